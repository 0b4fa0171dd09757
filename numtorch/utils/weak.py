"""``torch.utils.weak``: weak references and dictionaries keyed by object identity.

Tensors compare elementwise (``==`` gives a tensor), so they cannot key a
``weakref.WeakKeyDictionary``; these key by ``id`` and drop an entry when its key dies."""

import weakref
from collections.abc import MutableMapping

from .._tensor import Tensor

__all__ = ["TensorWeakRef", "WeakIdKeyDictionary", "WeakIdRef", "WeakTensorKeyDictionary"]

WeakRef = weakref.ref


class WeakIdRef(weakref.ref):
    """A weak reference that hashes and compares by the referent's identity (and keeps that
    hash after the referent died)."""

    __slots__ = ("_id",)

    def __new__(cls, key, callback=None):
        r = super().__new__(cls, key, callback)
        r._id = id(key)
        return r

    def __init__(self, key, callback=None):
        super().__init__(key, callback)

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        a, b = self(), other() if isinstance(other, weakref.ref) else other
        if a is not None and b is not None:
            return a is b
        return self is other


class WeakIdKeyDictionary(MutableMapping):
    """A mapping whose keys are held weakly and matched by identity."""

    def __init__(self, dict=None, ref_type=WeakIdRef):  # noqa: A002 - torch's keyword
        self._data = {}
        self._ref_type = ref_type
        self_ref = weakref.ref(self)

        def drop(k, self_ref=self_ref):
            owner = self_ref()
            if owner is not None:
                owner._data.pop(k, None)

        self._drop = drop
        if dict is not None:
            self.update(dict)

    def __getitem__(self, key):
        return self._data[self._ref_type(key)]

    def __setitem__(self, key, value):
        self._data[self._ref_type(key, self._drop)] = value

    def __delitem__(self, key):
        del self._data[self._ref_type(key)]

    def __contains__(self, key):
        try:
            r = self._ref_type(key)
        except TypeError:
            return False
        return r in self._data

    def __iter__(self):
        for r in list(self._data):
            obj = r()
            if obj is not None:
                yield obj

    def __len__(self):
        return sum(1 for r in list(self._data) if r() is not None)

    def __repr__(self):
        return f"<{type(self).__name__} at {hex(id(self))}>"

    def copy(self):
        new = type(self)(ref_type=self._ref_type)
        for k, v in self.items():
            new[k] = v
        return new

    __copy__ = copy

    def keyrefs(self):
        return list(self._data)


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a tensor (calling it gives the tensor, or None once freed)."""

    __slots__ = ("ref",)

    def __init__(self, tensor):
        if not isinstance(tensor, Tensor):
            raise AssertionError("TensorWeakRef expects a Tensor")
        self.ref = weakref.ref(tensor)

    def __call__(self):
        return self.ref()
