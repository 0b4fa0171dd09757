"""``numtorch.Size``: the tuple subclass returned by ``Tensor.shape`` and ``Tensor.size()``."""

import math

__all__ = ["Size"]


class Size(tuple):
    """A tuple of dimension sizes, printed as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def numel(self):
        """Number of elements a tensor of this shape holds."""
        return math.prod(self)

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __reduce__(self):
        return (Size, (tuple(self),))
