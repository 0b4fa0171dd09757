"""The memory layout torch gives the result of an advanced index (``x[:, idx]``, ``x[mask]``).

torch gathers through one elementwise pass whose operands are the input, viewed in the
result's shape with stride 0 along the indexed dims, and the index tensors, broadcast to the
result with stride 0 along the other dims. The result takes the layout that pass gives (the
rule of ``backend/_layout_rank.py``): a transposed input keeps its dim order outside the
indexed dims, and size-1 dims get the strides of a dense tensor in that order. NumPy's fancy
indexing returns its own layout (indexed dims outermost, other strides for size-1 dims), which
shows in ``.stride()``, ``is_contiguous()`` and whether a later ``.view`` works.
"""

import numpy as np

from ..backend import xp_of
from ..backend._layout_rank import strides_in_order, torch_order


def _entries(x, index):
    """``index`` as a list of ('new',) / ('basic', slice) / ('adv', [int arrays], ndim taken);
    None where it holds something this module does not lay out (the result is kept)."""
    for i in index:
        if not (i is None or i is Ellipsis or isinstance(i, slice) or
                (hasattr(i, "ndim") and hasattr(i, "dtype") and i.ndim)):
            return None  # 0-d masks, numbers: NumPy's layout stays
    taken = sum(1 if isinstance(i, slice) else i.ndim if i.dtype == np.bool_ else 1
                for i in index if i is not None and i is not Ellipsis)
    out = []
    for i in index:
        if i is None:
            out.append(("new",))
        elif i is Ellipsis:
            out.extend([("basic", slice(None))] * (x.ndim - taken))
            taken = x.ndim
        elif isinstance(i, slice):
            out.append(("basic", i))
        else:
            arrays = list(i.nonzero()) if i.dtype == np.bool_ else [i]
            out.append(("adv", arrays, i.ndim if i.dtype == np.bool_ else 1))
    out.extend([("basic", slice(None))] * (x.ndim - taken))
    return out


def adv_index_result(x, index, y):
    """``y = x[index]`` (NumPy's result) laid out as torch lays it out; ``y`` itself when it
    already is."""
    if not hasattr(y, "flags") or y.ndim < 2 or y.size < 2:
        return y
    if x.flags.c_contiguous and 1 not in y.shape:
        # a row-major input gives a row-major result (the common case, kept cheap)
        return y if y.flags.c_contiguous else xp_of(y).ascontiguousarray(y)
    entries = _entries(x, index)
    if entries is None:
        return y
    xb = x[tuple(s for e in entries for s in
                 ([None] if e[0] == "new" else [e[1]] if e[0] == "basic" else
                  [slice(None)] * e[2]))]
    adv = [k for k, e in enumerate(entries) if e[0] == "adv"]
    arrays = [a for e in entries if e[0] == "adv" for a in e[1]]
    bshape = np.broadcast_shapes(*(a.shape for a in arrays))
    idx_b = [np.broadcast_to(a, bshape) for a in arrays]
    # each entry's dims in xb, and the broadcast index dims before or in place of them
    rest, pos, xpos = [], 0, 0
    first = None
    for e in entries:
        width = e[2] if e[0] == "adv" else 1
        if e[0] == "adv":
            first = len(rest) if first is None else first
        elif e[0] == "new":
            # torch unsqueezes: the next input dim's extent as the stride (NumPy gives 0)
            rest.append(x.shape[xpos] * x.strides[xpos] if xpos < x.ndim else x.itemsize)
        else:
            rest.append(xb.strides[pos])
        pos += width
        xpos += 0 if e[0] == "new" else width
    adjacent = adv == list(range(adv[0], adv[-1] + 1))
    at = first if adjacent else 0
    nb = len(bshape)
    shape = tuple(y.shape)
    if len(rest) + nb != len(shape):
        return y
    src = rest[:at] + [0] * nb + rest[at:]
    # torch views each index with size-1 dims around it: where the result also has size 1
    # there, that dim keeps the view's (non-zero) stride and takes part in the ranking
    around = (1,) * at + bshape + (1,) * (len(rest) - at)
    operands = [src] + [[st if n == 1 or at <= d < at + nb else 0
                         for d, (n, st) in enumerate(zip(shape, b.reshape(around).strides))]
                        for b in idx_b]
    perm = torch_order(shape, operands)
    want = tuple(strides_in_order(shape, perm, y.itemsize))
    if want == y.strides:
        return y
    xp = xp_of(y)
    if all(w == s or n == 1 for w, s, n in zip(want, y.strides, shape)):
        laid = y
    else:
        outer_first = perm[::-1]
        buf = xp.empty([shape[d] for d in outer_first], y.dtype)
        laid = buf.transpose(np.argsort(outer_first))
        laid[...] = y
    from ._util import restride

    return restride(xp, laid, want)
