"""Public functions that several features replace for a while, one over another: autocast's
casting wrappers (in place while some thread has autocast on), the ``__torch_function__``
dispatching wrappers (in place while a mode is active or a lazy module's placeholder lives;
a placeholder's end comes at garbage collection, so at any moment, even inside an autocast
region).

Such layers are not always taken out in the order they were put in. If a layer restored the
function it found when it came, it could throw away a layer put on top of it since (autocast
would silently stop casting) or bring back one taken out since. So each wrapper calls the
function below it through a ``Link`` it keeps, and a layer is taken out of the chain wherever
it is: the function below it shows again, the layers above it stay.
"""

_DEPTH = 32  # a chain longer than this is not one of ours


class Link:
    """What a layered ``wrapper`` calls: ``below``, changed when the layer under it leaves."""

    __slots__ = ("below", "wrapper")

    def __init__(self, below):
        self.below = below
        self.wrapper = None


def attach(wrapper, link):
    """Mark ``wrapper`` (which calls ``link.below``) as a layer; returns it."""
    link.wrapper = wrapper
    wrapper.__layer_link__ = link
    return wrapper


def link_of(node):
    """The link of a layered wrapper, or None (a copy made by ``functools.wraps`` of a
    wrapper carries the attribute too, but not as its own link)."""
    link = getattr(node, "__layer_link__", None)
    return link if isinstance(link, Link) and link.wrapper is node else None


def contains(owner, name, wrapper):
    """Whether ``wrapper`` is somewhere in the chain at ``owner.name``."""
    node = vars(owner).get(name)
    for _ in range(_DEPTH):
        if node is wrapper:
            return True
        link = link_of(node)
        if link is None:
            return False
        node = link.below
    return False


def take_out(owner, name, wrapper, put_back):
    """Remove ``wrapper``'s layer from the chain at ``owner.name``. On top, ``put_back(below)``
    replaces the attribute; further down, the layer above is linked past it. A chain a user
    replaced (a monkeypatch) is left alone. Returns whether the layer was found."""
    below = wrapper.__layer_link__.below
    node = vars(owner).get(name)
    if node is wrapper:
        put_back(below)
        return True
    for _ in range(_DEPTH):
        link = link_of(node)
        if link is None:
            return False
        if link.below is wrapper:
            link.below = below
            return True
        node = link.below
    return False


def put_back(owner, name, below):
    """``below`` as ``owner.name`` again; for a class, none of its own if that is what its
    bases give (Tensor's methods defined on its base classes show through again)."""
    if isinstance(owner, type):
        inherited = next((vars(k)[name] for k in owner.__mro__[1:] if name in vars(k)), None)
        if below is inherited:
            delattr(owner, name)
            return
    setattr(owner, name, below)
