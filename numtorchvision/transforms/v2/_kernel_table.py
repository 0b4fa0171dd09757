"""Transforms that are one kernel call with fixed arguments (optionally behind a coin toss),
built from a table row instead of written out one class at a time."""

import inspect

from ._transform import Transform, checked_probability

_ARG = inspect.Parameter.POSITIONAL_OR_KEYWORD
_SHARED_COIN_INIT = {"RandomHorizontalFlip", "RandomVerticalFlip", "RandomInvert",
                     "RandomAutocontrast", "RandomEqualize"}


def _init_with_signature(owner, fields, setup):
    """An ``__init__`` with exactly ``fields`` as its parameters (so that a wrong call gets
    Python's own TypeError, naming ``owner``) that hands their values to ``setup``."""
    defaults = {f"_default_{f.name}": f.default for f in fields if f.default is not f.empty}
    params = ", ".join(f.name if f.default is f.empty else f"{f.name}=_default_{f.name}"
                       for f in fields)
    values = ", ".join(f"{f.name!r}: {f.name}" for f in fields)
    scope = {"_setup": setup, **defaults}
    exec(f"def __init__(self, {params}):\n    _setup(self, {{{values}}})\n", scope)
    init = scope["__init__"]
    init.__qualname__ = f"{owner}.__init__"
    init.__code__ = init.__code__.replace(co_qualname=init.__qualname__)
    return init


def kernel_transform(name, kernel, args=(), p=None, doc="", module=None, types=None,
                     direct=False):
    """A ``Transform`` subclass called ``name`` whose ``__init__`` takes ``args`` (pairs of
    name and default, ``inspect.Parameter.empty`` for a required one) and then ``p`` when
    ``p`` is a default probability, and whose ``transform`` calls ``kernel`` with them
    (``types``: the ``_transformed_types``, when not the default; ``direct``: call ``kernel``
    itself rather than the kernel registered for the input's type)."""
    names = tuple(a for a, _ in args)
    fields = [inspect.Parameter(a, _ARG, default=d) for a, d in args]
    if p is not None:
        fields.append(inspect.Parameter("p", _ARG, default=p))

    def setup(self, values):
        if p is not None:
            checked_probability(values["p"])
        Transform.__init__(self)
        if p is not None:
            self.p = values["p"]
        for key in names:
            setattr(self, key, values[key])

    def transform(self, inpt, params):
        kwargs = {key: getattr(self, key) for key in names}
        if direct:
            return kernel(inpt, **kwargs)
        return self._call_kernel(kernel, inpt, **kwargs)

    body = {"transform": transform, "__doc__": doc, "_coin": p is not None,
            "__module__": module or __name__}
    # one without settings keeps Transform's __init__ as torchvision's do (RGB has its own
    # there: the name in a bad call's TypeError)
    if fields or name == "RGB":
        # torchvision's coin-only flips/colour ops share a private base's __init__ (its
        # name is in their TypeError)
        owner = "_RandomApplyTransform" if name in _SHARED_COIN_INIT else name
        body["__init__"] = _init_with_signature(owner, fields, setup)
    if types is not None:
        body["_transformed_types"] = types
    return type(name, (Transform,), body)
