"""``numtorch.Size``, the tuple of dimension sizes, and the parsing of ``size`` arguments."""

from ._class_repr import TorchNamed
import math
import operator

__all__ = ["Size"]

_tuple_new = tuple.__new__


class Size(tuple, metaclass=TorchNamed):
    """A tuple of dimension sizes, printed as ``torch.Size([2, 3])``.

    Args:
        sizes (iterable of int): the sizes; anything with ``__index__`` (a NumPy integer, a
            one-element integer tensor) is accepted, a float is a TypeError.

    Example:
        >>> s = torch.Size([2, 3])
        >>> s.numel(), s[1:], s + (4,)
        (6, torch.Size([3]), torch.Size([2, 3, 4]))
    """

    __slots__ = ()

    def __new__(cls, sizes=()):
        items = tuple(sizes)
        for i, s in enumerate(items):
            if type(s) is not int:
                try:
                    s = operator.index(s)
                except TypeError:
                    raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                                    f"'{type(s).__name__}')") from None
                items = items[:i] + (s,) + items[i + 1:]
        return _tuple_new(cls, items)

    def numel(self):
        """Number of elements a tensor of this shape holds."""
        return math.prod(self)

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return _tuple_new(Size, r) if isinstance(key, slice) else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            "torch.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n):
        r = tuple.__mul__(self, n)
        return r if r is NotImplemented else _tuple_new(Size, r)

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


Size.__module__ = "numtorch"  # printed as torch.Size is, and pickled by its public name


# numtorch's classes that are C types in torch: their messages name them torch.dtype & co
C_TYPES = frozenset({"dtype", "device", "Size", "layout", "memory_format", "Generator",
                     "qscheme", "finfo", "iinfo"})


def _type_name(x):
    t = type(x)
    if t.__module__.startswith("numtorch") and t.__name__ in C_TYPES:
        return f"torch.{t.__name__}"
    return t.__name__ if t.__module__ == "builtins" or t.__module__.startswith("numtorch") \
        else f"{t.__module__.split('.')[0]}.{t.__name__}"


def _as_dim(x):
    """``x`` as a Python int if it is an integer (not a bool, float or multi-element tensor)."""
    if type(x) is int:
        return x
    if isinstance(x, bool) or isinstance(x, float):
        return None
    if hasattr(x, "_array") and x._array.dtype.kind not in "iu":
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def parse_size(fn, args, size=None, negative_message=None):
    """Turn the size arguments of a factory function into a tuple of ints, as torch does.

    Accepts ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])``, ``f(torch.Size(...))`` and ``size=``.

    Args:
        fn (str): the function name used in error messages.
        args (tuple): the positional size arguments.
        size (sequence, optional): the ``size=`` keyword.
        negative_message (str, optional): replaces torch's usual negative-dimension message
            (``zeros`` words it differently).
    """
    if size is not None:
        if args:
            raise TypeError(f"{fn}() got multiple values for argument 'size'")
        args = (size,)
    if not args:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')
    single = len(args) == 1
    if not single and isinstance(args[0], (tuple, list)):
        # a sequence takes the whole size: torch's parser sees extra positional arguments
        raise TypeError(f"{fn}() takes 1 positional argument but {len(args)} were given")
    seq = args[0] if single and isinstance(args[0], (tuple, list)) else args
    out = []
    for i, s in enumerate(seq):
        d = _as_dim(s)
        if d is None and i > 0 and type(s) is bool:  # torch checks only the first entry's type
            d = int(s)
        if d is None:
            if hasattr(s, "_array") and s._array.dtype.kind == "b" and s._array.size == 1:
                from .ops._util import NOT_INTEGRAL

                raise RuntimeError(NOT_INTEGRAL)
            if single and seq is args:
                raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, "
                                f"not {_type_name(s)}")
            if i == 0 and seq is not args:  # torch's parser words a bad first entry so
                if size is not None:
                    raise TypeError(f"{fn}(): argument 'size' must be tuple of ints, not "
                                    f"{_type_name(seq)}")
                raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, "
                                f"but found element of type {_type_name(s)} at pos 0")
            raise TypeError(f"{fn}(): argument 'size' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{_type_name(s)}\"")
        if not -(1 << 63) <= d < 1 << 63:  # torch reads each size as a C long long
            raise TypeError(f"{fn}(): argument 'size' failed to unpack the object at pos {i + 1} "
                            f"with error \"Overflow when unpacking long long\"")
        out.append(d)
    shape = tuple(out)
    for d in shape:
        if d < 0:
            raise RuntimeError(negative_message or f"Trying to create tensor with negative "
                               f"dimension {d}: [{', '.join(map(str, shape))}]")
    return shape


def size_args(args, kwargs, name, fname):
    """The sizes/dims of a ``*args`` method also callable as ``fname(name=seq)`` (torch's
    ``x.flip(dims=[1])``, ``x.view(size=(2, 3))``); returned as a tuple for :func:`shape_arg`."""
    if not kwargs:
        return args
    if args or set(kwargs) != {name}:
        bad = next((k for k in kwargs if k != name), name)
        raise TypeError(f"{fname}() got an unexpected keyword argument '{bad}'")
    return (kwargs[name],)


def required_size_args(args, kwargs, name, fname):
    """:func:`size_args` for a method whose sizes/dims are required (torch raises TypeError
    when none are given, where an empty unpacked shape would otherwise mean a 0-d result)."""
    if not args and not kwargs:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "{name}"')
    return size_args(args, kwargs, name, fname)
