"""Row gathers and their scatter-add transposes: the primitives behind embeddings.

``weight[indices]`` through the general indexing op would work, but embedding gradients need
the padding row kept at zero and, optionally, each row scaled by how often its index occurs.
``Embedding`` and ``EmbeddingBackward`` do that in one sort-and-``add.reduceat`` pass
(``backend.helpers_for(xp).index_add_rows``), never ``np.add.at`` (speed). The two ops are each
other's transpose, so gradients of any order are compositions of them.

``BagMax`` is the per-bag maximum of ``embedding_bag(mode="max")``: one ``maximum.reduceat``
for the values and a mask of the first maximal row per bag and column for the gradient.
"""

import numpy as np

from .. import backend
from .._tensor import _make
from ..autograd.graph import Op
from ._accumulate import is_half

__all__ = ["embedding_rows", "index_add_rows", "bag_max"]


class Embedding(Op):
    """y = weight[indices] (rows); dweight = EmbeddingBackward(g): rows of g summed per index,
    the ``padding_idx`` row zeroed and rows divided by their index's count if asked."""

    padding_idx = -1
    scale_grad_by_freq = False
    sparse = False

    def forward(self, weight, indices):
        self.num_weights = weight.shape[0]
        self.save(indices=indices)
        return self.xp.take(weight, indices, axis=0)

    def backward(self, grad):
        if self.sparse:
            return _sparse_grad(self, grad), None
        return EmbeddingBackward.apply(grad, indices=self.saved("indices"),
                                       num_weights=self.num_weights,
                                       padding_idx=self.padding_idx,
                                       scale_grad_by_freq=self.scale_grad_by_freq), None


def _sparse_grad(node, grad):
    """The weight gradient as torch's ``sparse=True`` gives it: an uncoalesced sparse COO
    tensor with one entry per looked-up index (in the indices' row-major order, the padding
    index left out) whose values are the matching rows of ``grad``."""
    if node.scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse "
                           "gradients")
    from .. import _sparse

    idx = node.saved("indices")
    row = tuple(grad.shape[idx.ndim:])
    idx = np.asarray(idx, dtype=np.int64).reshape(-1)
    values = grad.reshape((idx.shape[0],) + row)
    if node.padding_idx >= 0:
        keep = np.flatnonzero(idx != node.padding_idx)
        if keep.shape[0] != idx.shape[0]:
            idx = idx[keep]
            values = values[_make(keep)]
    if not values._array.flags.c_contiguous:
        values = values.contiguous()
    return _sparse.make(idx.reshape(1, -1), values, (node.num_weights,) + row,
                        coalesced=idx.shape[0] < 2)


class EmbeddingBackward(Op):
    """w = zeros(num_weights, D); w[indices] += g; w[padding_idx] = 0; rows / count if asked.

    Linear in g; its transpose is the gather g'[indices], masked and scaled the same way.
    """

    bag_sums = False

    def forward(self, g):
        xp = self.xp
        self.dtype_np = g.dtype
        idx = self.indices.reshape(-1)
        vals = g.reshape((idx.shape[0],) + g.shape[self.indices.ndim:])
        if self.scale_grad_by_freq:
            # each row scaled by 1 / count held in the dtype before the sum, as torch
            scale = (1 / self._counts(xp, idx).astype(np.float64)).astype(vals.dtype)
            vals = vals * scale[idx].reshape((-1,) + (1,) * (vals.ndim - 1))
        # 16-bit rows: an embedding's gradient adds them in the dtype one after another, each
        # sum rounded (torch's CPU kernel); embedding_bag's sums (``bag_sums``) and the GPU's
        # go in float32, rounded once
        wide = is_half(vals.dtype) and (self.bag_sums or xp is not np)
        out = backend.helpers_for(xp).index_add_rows(
            self.num_weights, idx, vals.astype(np.float32) if wide else vals)
        if wide:
            out = out.astype(vals.dtype)
        if self.padding_idx >= 0:
            out[self.padding_idx] = 0
        return out

    def _counts(self, xp, idx):
        """How often each row index occurs (at least 1, so unused rows divide by 1)."""
        counts = xp.bincount(idx, minlength=self.num_weights)
        return xp.maximum(counts, 1).astype(self.dtype_np)

    def backward(self, gg):
        idx = self.indices
        out = Embedding.apply(gg, _make(idx))
        scale = None
        if self.padding_idx >= 0:
            scale = (idx != self.padding_idx).astype(self.dtype_np)
        if self.scale_grad_by_freq:
            # the exact transpose; torch's own double backward leaves this scale out
            inv = (1 / self._counts(self.xp, idx.reshape(-1)))[idx]
            scale = inv if scale is None else scale * inv
        if scale is not None:
            out = out * _make(scale.reshape(idx.shape + (1,) * (out.ndim - idx.ndim)))
        return out


def embedding_rows(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Gather rows ``weight[indices]`` with embedding gradient rules.

    Args:
        weight (Tensor): the table, rows along dim 0.
        indices (Tensor): integer indices, already checked to lie in ``[0, len(weight))``.
        padding_idx (int): a row whose gradient stays zero, or -1 for none. Default: -1.
        scale_grad_by_freq (bool): divide each row's gradient by its index's count.
        sparse (bool): give ``weight`` a sparse COO gradient (CPU). Default: False.

    Returns:
        Tensor: shape ``indices.shape + weight.shape[1:]``.

    Example:
        >>> from numtorch.ops.embedding import embedding_rows
        >>> embedding_rows(torch.eye(3), torch.tensor([2, 0]))
        tensor([[0., 0., 1.],
                [1., 0., 0.]])
    """
    if padding_idx < 0 and not scale_grad_by_freq and not sparse:
        return Embedding.apply(weight, indices)
    return Embedding.apply(weight, indices, padding_idx=padding_idx,
                           scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def index_add_rows(values, index, n_rows):
    """Sum the rows of ``values`` into ``n_rows`` buckets given by the 1-D array ``index``.

    The transpose of a row gather; used for the per-bag sums of ``embedding_bag``.

    Args:
        values (Tensor): shape ``(len(index), ...)``.
        index (ndarray): integer bucket of each row.
        n_rows (int): number of buckets.

    Returns:
        Tensor: shape ``(n_rows, ...)``; empty buckets are zero.
    """
    return EmbeddingBackward.apply(values, indices=index, num_weights=n_rows, padding_idx=-1,
                                   scale_grad_by_freq=False, bag_sums=True)


class BagMax(Op):
    """y[b] = max over the rows of bag b (per column; 0 for empty bags);
    dx = g[bag] at each bag's first maximal row, per column, else 0."""

    def forward(self, rows):
        xp = self.xp
        ids, n_bags = self.ids, self.n_bags
        out = xp.zeros((n_bags,) + rows.shape[1:], dtype=rows.dtype)
        if rows.shape[0] == 0:
            self.save(mask=xp.zeros(rows.shape, dtype=bool))
            return out
        starts = xp.flatnonzero(xp.concatenate([xp.ones(1, dtype=bool), ids[1:] != ids[:-1]]))
        best = backend.helpers_for(xp).reduceat("maximum", rows, starts)
        out[ids[starts]] = best
        # first row reaching the maximum in each bag and column gets the gradient (torch)
        seg = xp.cumsum(xp.concatenate([xp.zeros(1, dtype=np.int64),
                                        (ids[1:] != ids[:-1]).astype(np.int64)]))
        hit = rows == best[seg]
        pos = xp.arange(rows.shape[0]).reshape((-1,) + (1,) * (rows.ndim - 1))
        first = backend.helpers_for(xp).reduceat("minimum", xp.where(hit, pos, rows.shape[0]),
                                                 starts)
        self.save(mask=(pos == first[seg]))
        return out

    def backward(self, grad):
        mask = self.saved("mask")
        return Embedding.apply(grad, _make(self.ids)) * _make(mask.astype(grad._array.dtype))


def bag_max(rows, ids, n_bags):
    """Per-bag, per-column maximum of ``rows`` (bags given by the sorted 1-D array ``ids``).

    Args:
        rows (Tensor): shape ``(len(ids), ...)``.
        ids (ndarray): sorted bag number of each row.
        n_bags (int): number of bags (empty bags give zeros).

    Returns:
        Tensor: shape ``(n_bags, ...)``.
    """
    return BagMax.apply(rows, ids=ids, n_bags=n_bags)
