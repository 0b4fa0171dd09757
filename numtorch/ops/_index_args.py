"""How torch reads the arguments of ``x[index]`` and ``x[index] = value``.

A list index is several indices when it holds a slice, a tensor or another sequence (NumPy's
old rule, which torch keeps with a deprecation warning); a list, ``range`` or array index is
one integer (or mask) index, its floats truncated; the value of an assignment must be a tensor
or a number that fits the tensor's dtype.
"""

import warnings

import numpy as np

from .._creation import number_as
from .._from_data import tensor
from .._tensor import Tensor

_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
              "are valid indices (got {})")


def _type_name(obj):
    """A type's name as CPython prints it: qualified unless it is a builtin."""
    t = type(obj)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _sequence_to_index_array(seq):
    """A list/range/ndarray used as one index, as an int64 (or bool mask) array.

    Torch builds a tensor from the sequence and makes it a long tensor unless it is all
    bools: float entries are truncated toward zero, as a cast does.
    """
    a = np.asarray(seq)
    kind = a.dtype.kind
    if kind == "b" or a.dtype == np.int64:
        return a
    if a.dtype == np.uint8:
        return a.astype(bool)  # a byte mask, as torch's deprecated uint8 masks
    if a.size == 0 or kind in "iuf":
        return a.astype(np.int64)
    if kind == "c":
        raise TypeError("'complex' object cannot be interpreted as an integer")
    if kind in "US":
        raise TypeError(f"new(): invalid data type '{'str' if kind == 'U' else 'bytes'}'")
    tensor(list(seq))  # raises torch's "Could not infer dtype of ..." for what cannot index
    raise IndexError(_BAD_INDEX.format(_type_name(seq)))


# A list index is read as a tuple of indices (NumPy's old rule, which torch still follows
# with a deprecation warning) when it is short and holds something that only makes sense
# as a per-dim index.
_TUPLE_ITEM_TYPES = (Tensor, list, tuple, range, np.ndarray, slice, type(None), type(Ellipsis))
_SEQ_AS_TUPLE = ("Using a non-tuple sequence for multidimensional indexing is deprecated and "
                 "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                 "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                 "which will result either in an error or a different result")


def _list_as_tuple(index):
    """``index`` as a tuple when torch reads this list as several indices, else unchanged."""
    if len(index) >= 32:
        return index
    for item in index:
        if isinstance(item, (*_TUPLE_ITEM_TYPES, str)):
            warnings.warn(_SEQ_AS_TUPLE, UserWarning, stacklevel=4)
            return tuple(index)
    return index


# dtype: (low, high, takes floats) for numbers NumPy may write unchecked (a C cast, as torch)
_FITS = {np.dtype(np.float64): (-np.inf, np.inf, True),
         np.dtype(np.float32): (-3.4028234663852886e38, 3.4028234663852886e38, True),
         np.dtype(np.float16): (-65504.0, 65504.0, True)}
_FITS.update({np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max), False)
              for t in (np.int8, np.int16, np.int32, np.int64, np.uint8)})
_I64 = (-2 ** 63, 2 ** 63 - 1)


def _setitem_number(input, value):
    """The number ``x[i] = value`` writes; anything but a tensor or a number is refused."""
    if isinstance(value, (int, float, complex)) or (
            hasattr(type(value), "__index__") and isinstance(value, np.integer)):
        return number_as(value, input.dtype, "setitem")
    name = _type_name(value)
    if name.startswith("numtorch."):
        name = "torch." + type(value).__name__
    raise TypeError(f"can't assign a {name} to a {input.type()}")
