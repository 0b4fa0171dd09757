"""``torch.utils.swap_tensors``: exchange two tensor objects' contents in place."""

import weakref

from .._tensor import Tensor

# every slot a tensor object carries (its class's layout), bar the weakref and dict slots
_SLOTS = tuple(dict.fromkeys(
    name for cls in Tensor.__mro__ for name in getattr(cls, "__slots__", ())
    if name not in ("__weakref__", "__dict__")))
_UNSET = object()


def swap_tensors(t1, t2):
    """Swap ``t1`` and ``t2`` in place: data, autograd state, class (a Parameter stays with
    its contents) and Python attributes, so every reference to ``t1`` now sees what ``t2``
    held and the other way round.

    Raises:
        RuntimeError: one of them has a weak reference (the referrer would see the swap).
    """
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise AttributeError(f"'{type(t).__name__}' object has no attribute '_use_count'")
        if weakref.getweakrefcount(t):
            raise RuntimeError(f"Cannot swap {name} because it has weakref associated with it")
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    for slot in _SLOTS:
        a, b = getattr(t1, slot, _UNSET), getattr(t2, slot, _UNSET)
        for t, v in ((t1, b), (t2, a)):
            if v is _UNSET:
                if hasattr(t, slot):
                    object.__delattr__(t, slot)
            else:
                object.__setattr__(t, slot, v)
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
