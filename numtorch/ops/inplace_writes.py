"""In-place writes that torch lets through to memory shared by several elements.

An expanded tensor (``b.expand(3, 4)``) or an overlapping ``unfold`` is a read-only NumPy view:
an ordinary in-place op (``add_``, ``copy_``) computes every element from its own old value,
which is ill-defined when elements share memory, and torch refuses it ("more than one element
of the written-to tensor refers to a single memory location"). Writes of one value are
well-defined, and torch allows them: ``fill_``/``zero_`` and ``fill_diagonal_`` silently,
``masked_fill_``, ``index_fill_`` and ``index_put_`` (so ``x[mask] = v``) with a deprecation
warning. These functions do those writes through a writeable alias of the shared memory; on
ordinary tensors they are the usual in-place ops.
"""

import warnings

import numpy as np

from .._creation import _REDUCED_MAX, number_as, unchecked_half
from .._tensor import Tensor
from ..autograd.grad_mode import _state
from ..autograd.inplace import apply_inplace
from ..backend import helpers_for, is_writeable, xp_of
from . import index_updates as _index_updates  # (cycles: attributes are read late)
from . import indexing as _indexing, structure as _structure
from ._util import canonical_dim

__all__ = []  # reached as ops.inplace_writes.<name> from the Tensor methods

OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.")

_DEPRECATED = ("Use of {} on expanded tensors is deprecated. Please clone() the tensor before "
               "performing this operation. This also applies to advanced indexing e.g. "
               "tensor[{}] = {}")


def zero_stride_overlap(arr):
    """Whether some dim of ``arr`` repeats one element (stride 0, size > 1): torch's test for
    a written-to tensor it knows overlaps itself."""
    return any(s == 0 and n > 1 for n, s in zip(arr.shape, arr.strides))


PARTIAL = ("unsupported operation: some elements of the input tensor and the written-to tensor "
           "refer to a single memory location. Please clone() the tensor before performing the "
           "operation.")


def _dense_span(arr):
    """``(first byte, end byte)`` of a NumPy array whose elements tile one block of memory
    without gaps or repeats (any dim order), else None: torch judges overlap only there."""
    step, order = arr.itemsize, sorted((abs(st), n, st) for n, st in zip(arr.shape, arr.strides)
                                       if n != 1)
    for size_, n, st in order:
        if st != size_ or size_ != step:
            return None
        step *= n
    start = arr.__array_interface__["data"][0]
    return start, start + step


def check_partial_overlap(dst, src):
    """Torch's refusal of a write from ``src`` into ``dst`` (NumPy arrays) when the two are
    dense blocks of memory that overlap without being the same elements in the same order (the
    same block read through other strides, as ``x.t()``, overlaps partially too)."""
    if type(dst) is not np.ndarray or type(src) is not np.ndarray or dst.size == 0 or \
            not np.may_share_memory(dst, src):
        return
    a, b = _dense_span(dst), _dense_span(src)
    if a is not None and b is not None and a[0] < b[1] and b[0] < a[1] and (
            a != b or dst.strides != src.strides or dst.shape != src.shape):
        raise RuntimeError(PARTIAL)


def writeable_alias(arr):
    """A writeable view of the memory behind the shared-memory view ``arr`` (on the GPU,
    ``arr`` itself: CuPy arrays are always writeable)."""
    alias = helpers_for(xp_of(arr)).writeable_alias(arr)
    if alias is None:  # memory that is read-only itself
        raise RuntimeError(OVERLAP)
    return alias


def shared_memory_target(self, *values):
    """The writeable alias to write ``self`` through, or None to take the ordinary path.

    Only a read-only NumPy view qualifies, and only when autograd records nothing: a
    recorded write to such a view fails as every other write does (torch fails in backward).
    """
    arr = self._array
    if is_writeable(arr) or _recorded(self):
        return None
    if _state.enabled:
        for v in values:
            if isinstance(v, Tensor) and v._requires_grad:
                return None
    return writeable_alias(arr)


def _recorded(self):
    """Whether autograd would record a write to ``self`` (else it is a plain memory write)."""
    if not _state.enabled:
        return False
    base = self._base
    return self._requires_grad or self._grad_fn is not None or (
        base is not None and (base._requires_grad or base._grad_fn is not None))


def _done(self):
    self._vc[0] += 1
    return self


def _warn_expanded(arr, name, index, value, stacklevel=4):
    if zero_stride_overlap(arr):
        warnings.warn(_DEPRECATED.format(name, index, value), UserWarning,
                      stacklevel=stacklevel)


def fill_(self, value):
    """``self.fill_(value)``; a number is written through expanded dims too."""
    check_fill_value("fill_", value)
    if self._array.size == 1 and self.dtype in _REDUCED_MAX and (
            isinstance(value, (float, complex)) or
            isinstance(value, int) and -2 ** 63 <= value < 2 ** 63):
        value = unchecked_half(value, self.dtype)  # torch fills one element unchecked (to inf)
    if isinstance(value, Tensor) or _recorded(self):
        return apply_inplace(self, _indexing.full_like_value, value)
    # nothing to record: write straight into the memory (through an expanded view too)
    arr = self._array
    if not is_writeable(arr):
        arr = writeable_alias(arr)
    arr[...] = number_as(value, self.dtype, keep_python=True)
    return _done(self)


def check_fill_value(fn, value, method=True):
    """torch's parser error when the fill value is neither a Tensor nor a number (a string,
    None, a list ...: NumPy would convert some of them)."""
    if isinstance(value, (Tensor, bool, int, float, complex, np.number, np.bool_)):
        return
    from .._generator_args import type_name

    def marked(v):
        if isinstance(v, list):
            return f"list of [{', '.join(type_name(x) for x in v)}]"
        if isinstance(v, tuple):
            return f"tuple of ({', '.join(type_name(x) for x in v)}{',' if len(v) == 1 else ''})"
        return type_name(v)

    got, why = type_name(value), f"!{marked(value)}!"
    if not method:
        got, why = f"Tensor, {got}", f"Tensor, {why}"
    first = "" if method else "Tensor input, "
    lines = "".join(f" * ({first}{k} value)\n      didn't match because some of the arguments "
                    f"have invalid types: ({why})\n" for k in ("Tensor", "Number"))
    raise TypeError(f"{fn}() received an invalid combination of arguments - got ({got}), but "
                    f"expected one of:\n{lines}")


def zero_(self):
    """``self.zero_()`` (recorded under torch's own node name)."""
    if _recorded(self):
        return apply_inplace(self, _indexing.zero_value)
    return fill_(self, 0)


def masked_fill_(self, mask, value):
    """``self.masked_fill_(mask, value)``, allowed (with torch's warning) on expanded dims."""
    masked_fill = _indexing.masked_fill
    alias = shared_memory_target(self, value)
    if alias is None:
        try:
            return apply_inplace(self, masked_fill, mask, value)
        except RuntimeError as e:
            if not str(e).startswith("The size of tensor a"):
                raise
            from .cast import copy_shape_error  # in place, self is torch's tensor a

            raise copy_shape_error(self._array.shape, mask._array.shape) from None
    out = masked_fill(self, mask, value)  # the ordinary checks of mask and value
    _warn_expanded(alias, "masked_fill_", "mask", "scalar")
    if out._array.shape != alias.shape:
        return apply_inplace(self, masked_fill, mask, value)  # raises torch's shape error
    m = xp_of(alias).broadcast_to(mask._array, alias.shape)
    alias[m] = out._array[m]
    return _done(self)


def index_fill_(self, dim, index, value):
    """``self.index_fill_(dim, index, value)``, allowed (with a warning) on expanded dims."""
    index_fill = _index_updates.index_fill
    alias = shared_memory_target(self, value)
    if alias is None:
        return apply_inplace(self, index_fill, dim, index, value)
    out = index_fill(self, dim, index, value)
    _warn_expanded(alias, "index_fill_", "mask", "scalar")
    if alias.ndim == 0:
        alias[...] = out._array
    else:
        sel = (slice(None),) * canonical_dim(dim, alias.ndim) + (index._array.reshape(-1),)
        alias[sel] = out._array[sel]
    return _done(self)


def fill_diagonal_(self, fill_value, wrap=False):
    """``self.fill_diagonal_(value, wrap)``, written through expanded dims as in torch."""
    alias = shared_memory_target(self, fill_value)
    if alias is None:
        return apply_inplace(self, _structure.fill_diagonal, fill_value, wrap)
    out = _structure.fill_diagonal(self, fill_value, wrap)
    m = _structure.diagonal_mask(alias.shape, wrap)
    alias[m] = out._array[m]
    return _done(self)


def index_put_(self, indices, values, accumulate=False):
    """``self.index_put_(indices, values, accumulate)``, allowed (with a warning) on expanded
    dims: positions that share memory are written (or added to) one after the other."""
    alias = shared_memory_target(self, values)
    if alias is None:
        return apply_inplace(self, _indexing.index_put, indices, values, accumulate)
    _indexing.index_put(self, indices, values, accumulate)  # the ordinary checks
    idx, _ = _indexing.convert_index(tuple(indices), self)
    write_indexed(alias, idx, values, accumulate, stacklevel=5)
    return _done(self)


def write_indexed(alias, idx, value, accumulate=False, stacklevel=5):
    """``alias[idx] = value`` (or ``+=`` with repeats adding up) on the writeable alias of an
    expanded tensor, after torch's deprecation warning."""
    _warn_expanded(alias, "index_put_", "indices", "tensor", stacklevel)
    v = value._array if isinstance(value, Tensor) else value
    if not accumulate and len(idx) == 1 and getattr(idx[0], "dtype", None) == np.bool_ and \
            np.ndim(v) == 0:
        # one mask and one value: torch's index_put_ hands over to masked_fill_
        _warn_expanded(alias, "masked_fill_", "mask", "scalar", stacklevel)
    xp = xp_of(alias)
    v = xp.asarray(v).astype(alias.dtype, copy=False)
    if accumulate:
        helpers_for(xp).scatter_add(alias, idx, xp.broadcast_to(v, alias[idx].shape))
    else:
        helpers_for(xp).write_last_wins(alias, idx, v)
