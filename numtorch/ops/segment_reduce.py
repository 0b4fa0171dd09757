"""``torch.segment_reduce``: reductions over consecutive runs (segments) along one axis.

Why a primitive: the forward is one ``<ufunc>.reduceat`` over all segments of all leading
rows at once (no loop over segments). Its backward is written with the embedding gather /
scatter-add pair (``Embedding`` / ``index_add_rows``), so gradients of any order compose.
"""

import numpy as np

from .. import _dtype, backend
from .._tensor import _make
from ..autograd.graph import Op
from ._accumulate import is_half
from .embedding import Embedding, index_add_rows

__all__ = ["segment_reduce"]

# reduce name -> (ufunc applied by reduceat, value of an empty segment without ``initial``)
_UFUNCS = {
    "sum": ("add", 0.0),
    "mean": ("add", np.nan),
    "prod": ("multiply", 1.0),
    "max": ("maximum", -np.inf),
    "min": ("minimum", np.inf),
}
_ALIASES = {"amax": "max", "amin": "min"}


def _segments(data, lengths, offsets, axis, unsafe):
    """Checked (starts, ends) of every segment as flat row numbers of ``data`` viewed as
    ``(rows, trailing)``, plus the output's shape."""
    use_lengths = lengths is not None
    index = lengths if use_lengths else offsets
    if index is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if index.dtype not in (_dtype.int32, _dtype.int64):
        kernel = "lengths" if use_lengths else "offsets"
        raise NotImplementedError(f'"_segment_reduce_{kernel}_cpu_kernel1" not implemented '
                                  f"for '{_dtype._TYPE_DISPLAY[index.dtype.name]}'")
    axis = _wrap(axis, data.dim())
    if axis != index.dim() - 1:
        raise RuntimeError("segment_reduce(): Expected axis to be the last dimension of "
                           f"lengths but got {axis}.")
    # boundaries live on the host: the output's size depends on them (torch syncs too)
    idx = np.asarray(index.detach().cpu()._array, dtype=np.int64).reshape(
        -1, index.shape[-1] if index.dim() else 1)
    if use_lengths:
        if (idx < 0).any():
            raise RuntimeError("lengths contains negative value!")
        if not unsafe and (idx.sum(axis=1) != data.shape[axis]).any():
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to "
                               "sum to data.size(lengths.dim()-1) when !unsafe.")
        ends = np.cumsum(idx, axis=1)
        starts = ends - idx
    else:
        starts, ends = idx[:, :-1], idx[:, 1:]
    n = data.shape[axis]
    row0 = (np.arange(starts.shape[0]) * n)[:, None]
    shape = tuple(data.shape[:axis]) + (starts.shape[1],) + tuple(data.shape[axis + 1:])
    return (starts + row0).reshape(-1), (ends + row0).reshape(-1), shape


def _wrap(axis, ndim):
    top = max(ndim, 1)
    if not -top <= axis < top:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-top}, {top - 1}], but got {axis})")
    return axis % top


class SegmentReduce(Op):
    """y[s] = reduce(x[starts[s]:ends[s]], initial) over the rows of x (shape (rows, t)).

    dx (sum) = g[seg]; (mean) = g[seg] / len; (max/min) = g[seg] / ties at the rows equal to
    y[seg], else 0; (prod) = g[seg] * (product of the other rows and initial).
    """

    def forward(self, data):
        xp = self.xp
        self.save_inputs(data)
        x = data.reshape((-1,) + data.shape[self.axis + 1:])
        starts, ends, reduce, initial = self.starts, self.ends, self.reduce, self.initial
        name, empty = _UFUNCS[reduce]
        work = x.astype(np.float32) if is_half(x.dtype) else x
        full_host = starts < ends
        full = xp.asarray(full_host)
        out = xp.full((starts.shape[0],) + x.shape[1:], empty, dtype=work.dtype)
        if full_host.any():
            # one reduceat over the runs between all segment boundaries (strictly increasing):
            # the runs that begin a segment are the segments, the others are gaps
            s, e = starts[full_host], ends[full_host]
            cuts = np.unique(np.concatenate([s, e]))
            cuts = cuts[cuts < x.shape[0]]
            runs = backend.helpers_for(xp).reduceat(name, work, xp.asarray(cuts))
            out[full] = runs[xp.asarray(np.searchsorted(cuts, s))]
        lens = (ends - starts).astype(work.dtype).reshape((-1,) + (1,) * (x.ndim - 1))
        if reduce == "mean":
            top = out if initial is None else out + initial
            with np.errstate(invalid="ignore", divide="ignore"):
                out = top / xp.asarray(lens)
        elif initial is not None:
            out = getattr(xp, name)(out, xp.asarray(initial, dtype=work.dtype))
        if initial is not None:
            out[~full] = initial
        return self.save_output(out.astype(x.dtype, copy=False).reshape(self.shape))

    def backward(self, g):
        data = self.saved_inputs()
        x = data.reshape((-1,) + tuple(data.shape[self.axis + 1:]))
        g = g.reshape((-1,) + tuple(x.shape[1:]))
        return self._grad(x, g).reshape(data.shape)

    def _grad(self, x, g):
        xp = self.xp
        reduce = self.reduce
        rows = x.shape[0]
        # segment number of each row; rows in no segment point at a zero row appended to g
        seg = np.full(rows, self.starts.shape[0], dtype=np.int64)
        lens = self.ends - self.starts
        seg_of = np.repeat(np.arange(self.starts.shape[0]), lens)
        pos = np.repeat(self.starts - np.cumsum(lens) + lens, lens) + np.arange(lens.sum())
        seg[pos] = seg_of
        seg = xp.asarray(seg)

        def gather(v):
            zero = v.new_zeros((1,) + tuple(v.shape[1:]))
            from .join import cat

            return Embedding.apply(cat([v, zero]), _make(seg))

        def bcast(a):
            return _make(xp.asarray(a, dtype=g._array.dtype).reshape(
                (-1,) + (1,) * (x.dim() - 1)))

        if reduce == "sum":
            return gather(g)
        if reduce == "mean":
            return gather(g / bcast(np.maximum(lens, 1)))
        if reduce in ("max", "min"):
            y = self.saved_output_array().reshape((-1,) + tuple(x.shape[1:]))
            pad = xp.concatenate([y, xp.zeros((1,) + y.shape[1:], y.dtype)])
            hit = x._array == pad[seg]
            ties = index_add_rows(_make(hit.astype(g._array.dtype)), seg,
                                  self.starts.shape[0] + 1)._array[:-1]
            share = g / _make(xp.maximum(ties, 1))
            return gather(share) * _make(hit.astype(g._array.dtype))
        # prod: the product of the other rows, exact when a segment holds zeros
        zero = x._array == 0
        safe = x.masked_fill(_make(zero), 1)
        nonzero_prod = SegmentReduce.apply(safe, starts=self.starts, ends=self.ends, axis=0,
                                           shape=g.shape, reduce="prod", initial=self.initial)
        zeros = index_add_rows(_make(zero.astype(g._array.dtype)), seg,
                               self.starts.shape[0] + 1)._array
        zeros_at = zeros[seg]
        factor = xp.where(zero, zeros_at == 1, zeros_at == 0).astype(g._array.dtype)
        return gather(g * nonzero_prod) / safe * _make(factor)


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """Reduce ``data`` over consecutive segments along ``axis``.

    Segments are given by ``lengths`` (sizes; unless ``unsafe`` they must add up to
    ``data.size(axis)``) or ``offsets`` (``offsets[..., i]:offsets[..., i + 1]``), whose last
    dimension is ``axis`` and whose leading dimensions match ``data``'s. ``reduce`` is one of
    ``"sum"``, ``"mean"``, ``"max"``, ``"min"``, ``"prod"``; ``initial`` joins every segment
    (and fills empty ones, which are otherwise 0, nan, -inf, inf or 1).

    Args:
        data (Tensor): floating-point values.
        reduce (str): the reduction.
        lengths (Tensor, optional): int32/int64 segment sizes.
        indices (Tensor, optional): unused, as in torch.
        offsets (Tensor, optional): int32/int64 segment boundaries.
        axis (int): the reduced dimension. Default: 0.
        unsafe (bool): skip the lengths-sum check. Default: False.
        initial (float, optional): the reduction's starting value.

    Returns:
        Tensor: ``data``'s shape with ``axis`` replaced by the number of segments.

    Example:
        >>> torch.segment_reduce(torch.tensor([1., 2., 3.]), "sum", lengths=torch.tensor([2, 1]))
        tensor([3., 3.])
    """
    del indices  # accepted and ignored by torch as well
    name = _ALIASES.get(reduce, reduce)
    if name not in _UFUNCS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    if not data.is_floating_point():
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for "
                                  f"'{_dtype._TYPE_DISPLAY[data.dtype.name]}'")
    starts, ends, shape = _segments(data, lengths, offsets, axis, unsafe)
    return SegmentReduce.apply(data, starts=starts, ends=ends, axis=_wrap(axis, data.dim()),
                               shape=shape, reduce=name,
                               initial=None if initial is None else float(initial))
