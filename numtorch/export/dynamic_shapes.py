"""``torch.export.dynamic_shapes``: ``Dim`` and the hints ``Dim.AUTO`` / ``Dim.DYNAMIC`` / ``Dim.STATIC``."""

import enum

_INF = float("inf")


class _DimHint(enum.Enum):
    AUTO = "AUTO"
    DYNAMIC = "DYNAMIC"
    STATIC = "STATIC"

    def __repr__(self):
        return f"DimHint({self.value})"

    __str__ = __repr__

    def __call__(self, min=None, max=None):
        """``Dim.DYNAMIC(min=, max=)``: the hint with a range."""
        return _RangedHint(self, min, max)


class _RangedHint:
    def __init__(self, hint, lo, hi):
        self.hint, self.min, self.max = hint, lo, hi

    def __repr__(self):
        return f"DimHint({self.hint.value}, min={self.min}, max={self.max})"


class Dim:
    """A named dynamic dimension of an input, with an inclusive range ``[min, max]``.

    ``Dim("batch", min=2, max=64)``; dims with one name must take the same size.
    """

    AUTO = _DimHint.AUTO
    DYNAMIC = _DimHint.DYNAMIC
    STATIC = _DimHint.STATIC

    def __init__(self, name, *, min=None, max=None):
        if not isinstance(name, str):
            raise TypeError(f"Dim name must be a string, got {type(name).__name__}")
        lo = 0 if min is None else min
        hi = _INF if max is None else max
        if hi < lo:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        self.__name__ = name
        self.min, self.max = lo, hi
        self._min_given = min is not None

    def __repr__(self):
        parts = [repr(self.__name__)]
        if self._min_given:
            parts.append(f"min={self.min}")
        if self.max != _INF:
            parts.append(f"max={self.max}")
        return f"Dim({', '.join(parts)})"


def dims(*names, min=None, max=None):
    """One :class:`Dim` per name, all with the same range."""
    return tuple(Dim(n, min=min, max=max) for n in names)


def hint_range(spec):
    """``(name, min, max, auto)`` of a dynamic spec, or None for a static one; ``auto``: the
    size may stay static when the program needs it to (``Dim.AUTO``)."""
    if spec is None or spec is _DimHint.STATIC:
        return None
    if isinstance(spec, Dim):
        return spec.__name__, spec.min, spec.max, False
    if isinstance(spec, _RangedHint):
        if spec.hint is _DimHint.STATIC:
            return None
        return (None, 0 if spec.min is None else spec.min,
                _INF if spec.max is None else spec.max, spec.hint is _DimHint.AUTO)
    if isinstance(spec, _DimHint):
        return None, 0, _INF, spec is _DimHint.AUTO
    return None
