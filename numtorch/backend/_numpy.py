"""NumPy implementations of the helpers whose CuPy spelling differs (see backend/_cupy.py)."""

import numpy as np

_scipy_special = False  # looked up on first use: importing scipy.special costs ~0.2 s
_scipy_linalg = False  # not looked up yet (importing it costs ~0.1 s, so only on first use)


def _sp():
    """``scipy.special`` or None without SciPy (the fallbacks below are vectorised and
    accurate to double precision)."""
    global _scipy_special
    if _scipy_special is False:
        try:
            from .._quiet_import import import_module

            mod = import_module("scipy.special")
        except ImportError:  # pragma: no cover - exercised only without SciPy
            mod = None
        _scipy_special = mod
    return _scipy_special


def scipy_linalg():
    """``scipy.linalg`` (batched LAPACK routines NumPy lacks), or None without SciPy."""
    global _scipy_linalg
    if _scipy_linalg is False:
        try:
            from .._quiet_import import import_module

            mod = import_module("scipy.linalg")
        except ImportError:  # pragma: no cover - exercised only without SciPy
            mod = None
        _scipy_linalg = mod
    return _scipy_linalg


def linalg_raises():
    """A context in which ``xp.linalg`` raises ``numpy.linalg.LinAlgError`` for a singular,
    not positive-definite or non-convergent input: NumPy always does."""
    import contextlib

    return contextlib.nullcontext()


def scatter_add(target, index, values):
    """target[index] += values, accumulating repeated indices (in place)."""
    np.add.at(target, index, values)


def take_in_range(a, index, axis, out):
    """``a.take(index, axis)`` written into ``out``, for indices already in range: NumPy's
    default mode checks every index and buffers ``out`` for it (8 x (16, 1024) -> 4096 taps
    of grid_sample: 0.46 -> 0.25 ms); 'wrap' leaves in-range indices as they are."""
    return np.take(a, index, axis=axis, out=out, mode="wrap")


def write_last_wins(target, index, values):
    """``target[index] = values``, a memory element written more than once keeping the last
    value (NumPy's order already; the CuPy helper has to arrange it)."""
    target[index] = values


def index_add_rows(n_rows, index, values):
    """Sum rows of ``values`` into ``n_rows`` buckets given by the 1-D ``index`` (in range).

    One stable sort groups the rows by bucket; each bucket's rows are then added in their
    original order, so this is the fast path used by index-accumulating backward passes
    (embedding, advanced indexing along one dim), never ``np.add.at``.
    """
    out = np.zeros((n_rows,) + values.shape[1:], dtype=values.dtype)
    if index.size == 0:
        return out
    # the bucket sizes (one count per row: less than zeroing ``out``, which has a row each)
    counts = None
    if index.dtype.kind == "i":
        try:
            counts = np.bincount(index, minlength=n_rows)
        except ValueError:  # a negative index (callers pass indices in range): as before
            counts = None
    if counts is not None and counts.size != n_rows:
        counts = None  # an index past the table: as before (out[...] raises IndexError)
    if counts is not None and index.size <= n_rows and counts.max() == 1:
        # every row gets at most one value (a position embedding's arange): 0 + v is v but
        # for a -0.0, which torch's sum into zeros makes +0.0 (nanoGPT's wpe: 49 -> 5 us)
        out[index] = _plus_zero(values)
        return out
    order = np.argsort(index, kind="stable")
    sorted_idx = index[order]
    if counts is not None:  # the buckets from the counts: no comparison pass over the rows
        lengths = counts[counts > 0]
        starts = np.cumsum(lengths) - lengths
    else:
        starts = np.flatnonzero(np.concatenate(([True], sorted_idx[1:] != sorted_idx[:-1])))
        lengths = np.diff(starts, append=index.size)
    longest = int(lengths.max())
    if values.ndim == 2 and values.shape[1] >= 16 and longest >= 8 and \
            starts.size * longest <= 4 * index.size:
        return _padded_sums(out, sorted_idx, order, starts, lengths, longest, values)
    else:
        _segment_sums(out, sorted_idx, order, starts, lengths, values)
    return out


def _padded_sums(out, sorted_idx, order, starts, lengths, longest, values):
    """``_segment_sums`` for few, long buckets (a small vocabulary's embedding: nanoGPT's 65
    characters in 768 rows, 239 -> 130 -> 87 us; minGPT's in 8192 rows 2.9 -> 1.0 ms): every
    bucket's rows scattered into a zero-padded block by rank (``_rank_block_sums``). Returns
    the sums: ``out`` filled in, or the block's sums themselves when every bucket is used
    (then they are ``out``'s rows in order)."""
    nb = starts.size
    dest = np.empty(order.size, dtype=np.intp)  # row order[j] -> rank * buckets + bucket
    dest[order] = np.arange(order.size) * nb + np.repeat(np.arange(nb) - starts * nb, lengths)
    sums = _rank_block_sums(dest, values, nb, longest)
    if nb == out.shape[0] and sorted_idx[0] == 0 and sorted_idx[-1] == nb - 1:
        return sums  # every row of ``out`` is a bucket, in order (nb distinct sorted values)
    out[sorted_idx[starts]] = sums
    return out


def _rank_block_sums(dest, values, nb, longest):
    """The per-bucket sums of ``values``' rows, row ``i`` of ``values`` at position
    ``dest[i]`` = rank * ``nb`` + bucket of a zero-padded (``longest``, ``nb``, width) block:
    one reduction over its first axis, which NumPy runs as sequential row additions of whole
    (nb, width) slabs (the same order, and bits, as a (nb, longest, width) block reduced over
    its middle axis, at half the time: nanoGPT's (19, 65, 128) 33 -> 16 us): each bucket's
    rows added in their original order, as torch does, the padding's zeros added last
    changing nothing."""
    pad = np.zeros((nb * longest, values.shape[1]), dtype=values.dtype)
    pad[dest] = values
    # from an initial zero, as torch's sums into zeros start (a bucket of -0.0s sums to +0.0)
    return np.add.reduce(pad.reshape(longest, nb, -1), axis=0, initial=0)


def _plus_zero(values):
    """``0 + values``: the values themselves but +0.0 for -0.0, which is what adding them into
    a zeroed buffer (torch's accumulating backward passes) leaves."""
    if values.dtype.kind not in "fc":
        return values
    return np.add(values, values.dtype.type(0))


_SHORT_SEGMENT = 32  # buckets with at most this many rows are summed by rank passes


def _segment_sums(out, sorted_idx, order, starts, lengths, values):
    """``out[bucket] = sum of its rows`` (the rows ``values[order]`` grouped by bucket,
    ``starts``/``lengths`` the groups), each bucket's rows added one after another in their
    original order, as torch's CPU embedding backward and ``index_add_`` do (the same bits).

    Why not one ``add.reduceat`` over all buckets: it does not add a segment's rows in
    sequence (a bucket of 200 rows differed from torch's sum in the last bit), and with a
    (700, 200) gradient in ~660 buckets (word_language_model's embedding) it took 480 us, its
    per-bucket cost paid for every column. Buckets of more than ``_SHORT_SEGMENT`` rows (at
    most 1 in 33 rows) are each one reduction over their rows (or a running sum for single
values).
    The short ones of 2-d rows of 16+ values go through one zero-padded block reduced over
    its middle axis (``_padded_sums``); others by rank: the first row of every bucket written
    at once, then each bucket's second row added (one fancy-indexed add: no bucket twice in
    it), and so on.
    """
    short = lengths <= _SHORT_SEGMENT
    # rows of 2+ values: a reduction over the rows is sequential (NumPy's inner loop runs
    # along the row); single values would be added pairwise, so they take a running sum
    rowwise = values.ndim > 1 and values[:1].size > 1
    for lo, n in zip(starts[~short].tolist(), lengths[~short].tolist()):
        rows = values[order[lo:lo + n]]
        out[sorted_idx[lo]] = np.add.reduce(rows, axis=0, initial=0) if rowwise else \
            _plus_zero(np.add.accumulate(rows, axis=0)[-1])
    if not short.any():
        return
    s_starts, s_len = starts[short], lengths[short]
    if values.ndim == 2 and values.shape[1] >= 16 and s_len.max() > 2:
        # (as ``_padded_sums``, for the short buckets' rows only)
        keep = np.repeat(short, lengths)
        nb, longest = s_starts.size, int(s_len.max())
        firsts = np.r_[0, np.cumsum(s_len[:-1])]
        dest = np.arange(firsts[-1] + s_len[-1]) * nb + np.repeat(np.arange(nb) - firsts * nb,
                                                                  s_len)
        out[sorted_idx[s_starts]] = _rank_block_sums(dest, values[order[keep]], nb, longest)
        return
    out[sorted_idx[s_starts]] = _plus_zero(values[order[s_starts]])
    if s_len.max() == 1:
        return
    # the short buckets' later rows, ordered by their rank in the bucket (stable: the
    # buckets stay in index order within one rank)
    rank = np.arange(sorted_idx.size) - np.repeat(starts, lengths)
    later = np.flatnonzero((rank > 0) & np.repeat(short, lengths))
    later = later[np.argsort(rank[later], kind="stable")]
    bounds = np.r_[0, np.cumsum(np.bincount(rank[later])[1:])]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        pos = later[lo:hi]
        out[sorted_idx[pos]] += values[order[pos]]


def erf(x):
    """The error function, elementwise, in ``x``'s dtype."""
    if _sp() is not None:
        return _sp().erf(x)
    return _erf_rational(np.asarray(x, dtype=np.float64)).astype(x.dtype, copy=False)


def erfinv(x):
    """The inverse error function, elementwise, in ``x``'s dtype."""
    if _sp() is not None:
        return _sp().erfinv(x)
    return _erfinv_newton(np.asarray(x, dtype=np.float64)).astype(x.dtype, copy=False)


def erfc(x):
    """The complementary error function ``1 - erf(x)``, elementwise, in ``x``'s dtype."""
    if _sp() is not None:
        return _sp().erfc(x)
    x64 = np.asarray(x, dtype=np.float64)
    out = 1.0 - _erf_rational(x64)  # exact enough where erf is small
    big = np.abs(x64) > 0.46875  # where 1 - erf would cancel, Cody's erfc keeps precision
    if big.any():
        ax = np.abs(x64[big])
        tail = np.where(ax < 27.3, _erfc_positive(ax), 0.0)  # below the smallest denormal
        out[big] = np.where(x64[big] > 0, tail, 2.0 - tail)
    return out.astype(x.dtype, copy=False)


def _scipy(name):
    """SciPy's ``special.<name>``; a RuntimeError naming SciPy when it is not installed."""
    if _sp() is None:
        raise RuntimeError(f"numtorch: {name} needs SciPy, which is not installed; install it "
                           "with `pip install scipy`")
    return getattr(_sp(), name)


def scipy_special(name):
    """The elementwise function ``scipy.special.<name>`` (a RuntimeError naming SciPy when it
    is not installed)."""
    return _scipy(name)


def gammaln(x):
    """log |Gamma(x)|, elementwise (``lgamma``)."""
    return _scipy("gammaln")(x)


def digamma(x):
    """The digamma function, the derivative of ``lgamma``, elementwise."""
    return _scipy("psi")(x)


def polygamma(n, x):
    """The ``n``-th derivative of the digamma function, elementwise."""
    return _scipy("polygamma")(n, x)


def i0(x):
    """The modified Bessel function of the first kind, order 0, elementwise."""
    if _sp() is not None:
        return _sp().i0(x)
    return np.i0(x).astype(x.dtype, copy=False)  # NumPy's Chebyshev series: no SciPy needed


def i1(x):
    """The modified Bessel function of the first kind, order 1, elementwise."""
    return _scipy("i1")(x)


# W. J. Cody's rational Chebyshev approximations for erf/erfc (Math. Comp. 1969), three
# ranges, each accurate to double precision
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
          3.20937758913846947e03, 1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
          2.84423683343917062e03)
_ERF_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
          2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
          2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_ERF_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
          1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
          3.43936767414372164e03, 1.23033935480374942e03)
_ERF_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
          1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_ERF_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1,
          6.05183413124413191e-2, 2.33520497626869185e-3)


def _ratio(t, num, den, n):
    """Cody's nested evaluation of (num(t)) / (den(t)) with ``n`` inner steps."""
    xnum, xden = num[-1] * t, t
    for i in range(n):
        xnum = (xnum + num[i]) * t
        xden = (xden + den[i]) * t
    return xnum, xden


def _exp_neg_square(y):
    """exp(-y*y) without the rounding error of squaring y (split at a multiple of 1/16)."""
    z = np.trunc(y * 16.0) / 16.0
    return np.exp(-z * z) * np.exp(-(y - z) * (y + z))


def _erfc_positive(y):
    """erfc for float64 ``y >= 0.46875`` (Cody's second and third ranges)."""
    out = np.empty(y.shape)
    mid = y <= 4.0
    if mid.any():
        ym = y[mid]
        num, den = _ratio(ym, _ERF_C, _ERF_D, 7)
        out[mid] = (num + _ERF_C[7]) / (den + _ERF_D[7]) * _exp_neg_square(ym)
    big = ~mid
    if big.any():
        yb = np.minimum(y[big], 27.0)  # erfc underflows to 0 long before this
        t = 1.0 / (yb * yb)
        num, den = _ratio(t, _ERF_P, _ERF_Q, 4)
        r = t * (num + _ERF_P[4]) / (den + _ERF_Q[4])
        out[big] = (1.0 / np.sqrt(np.pi) - r) / yb * _exp_neg_square(yb)
    return out


def _erf_rational(x):
    """erf for float64 arrays with NumPy only (the fallback when SciPy is missing)."""
    out = np.full(x.shape, np.nan)
    ax = np.abs(x)
    small = ax <= 0.46875
    if small.any():
        xs = x[small]
        num, den = _ratio(xs * xs, _ERF_A, _ERF_B, 3)
        out[small] = xs * (num + _ERF_A[3]) / (den + _ERF_B[3])
    large = ax > 0.46875
    if large.any():
        out[large] = np.copysign(1.0 - _erfc_positive(ax[large]), x[large])
    return out


def _erfinv_newton(x):
    """erfinv for float64 arrays: M. Giles' single-precision approximation, then Newton steps
    on erf near 0 and on log(erfc) in the tails, where erf itself is too flat to invert."""
    a = np.abs(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w = -np.log((1.0 - a) * (1.0 + a))
        wc = w - 2.5
        p = np.full_like(a, 2.81022636e-08)
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
            p = c + p * wc
        wt = np.sqrt(w) - 3.0
        q = np.full_like(a, -0.000200214257)
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                  -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
            q = c + q * wt
        y = np.where(w < 5.0, p, q) * a
        inner = (a <= 0.5) & np.isfinite(y)
        tail = (a > 0.5) & (a < 1.0)
        slope = 2.0 / np.sqrt(np.pi)
        for _ in range(2):
            yi = y[inner]
            y[inner] = yi - (_erf_rational(yi) - a[inner]) / (slope * np.exp(-yi * yi))
        target = np.log1p(-a[tail])  # 1 - a is exact here
        yt = np.maximum(y[tail], 0.47)
        for _ in range(4):
            erfc = _erfc_positive(yt)
            yt = yt + (np.log(erfc) - target) * erfc / (slope * np.exp(-yt * yt))
        y[tail] = yt
        y = np.where(a == 1.0, np.inf, y)
        y = np.where(a > 1.0, np.nan, y)
    return np.copysign(y, x)


def floor_divide(a, b):
    """``a // b`` with Python's (and torch's) rounding (NumPy's ``floor_divide``)."""
    return np.floor_divide(a, b)


def true_divide(a, b):
    """``a / b`` (NumPy's complex division is torch's CPU rule already)."""
    return a / b


def remainder(a, b):
    """``a % b`` with the sign of ``b`` (NumPy's ``remainder``); a zero result keeps the sign of
    ``a`` as torch's (``fmod`` moved by ``b`` only where it is nonzero): -4. % 2 is -0."""
    r = np.remainder(a, b)
    if r.dtype.kind not in "iub" and r.ndim:
        np.copysign(r, a, out=r, where=r == 0)
    elif r.dtype.kind not in "iub" and r == 0:
        r = np.copysign(r, a)
    return r


def sliding_window_view(x, window_shape, axis):
    """Sliding windows of ``window_shape`` over ``axis`` (a read-only strided view)."""
    return np.lib.stride_tricks.sliding_window_view(x, window_shape, axis=axis)


def as_strided(x, shape, strides):
    """A view of ``x``'s memory with the given shape and byte strides."""
    return np.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def storage_root(arr):
    """The array whose memory block ``arr`` views (torch's storage): walked through views and
    the holders NumPy's stride tricks leave as bases."""
    owner = arr
    base = getattr(arr, "base", None)
    while base is not None:
        if isinstance(base, np.ndarray):  # (a meta array's memoryview has a shape too)
            owner = base
        nxt = getattr(base, "base", None)
        if nxt is None or nxt is base:
            break
        base = nxt
    return owner


def writeable_alias(arr):
    """A writeable view of the memory behind the read-only view ``arr`` (an expanded or
    overlapping view NumPy handed back read-only), or None for memory that is read-only
    itself."""
    alias = arr.view()
    try:
        alias.flags.writeable = True
        return alias
    except ValueError:  # a view NumPy made through as_strided (unfold): go to the memory
        pass
    owner = arr
    while not owner.flags.owndata:
        nxt = owner.base
        while nxt is not None and not isinstance(nxt, np.ndarray):
            nxt = getattr(nxt, "base", None)
        if nxt is None:
            return None
        owner = nxt
    if not owner.flags.writeable:
        return None
    offset = arr.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return np.ndarray(arr.shape, arr.dtype, buffer=owner, offset=offset, strides=arr.strides)


def address(arr):
    """The address of ``arr``'s first element."""
    return arr.__array_interface__["data"][0]


def expand_to(a, shape):
    """``a`` broadcast to ``shape`` as a new C-contiguous array.

    Used for the backward of reductions. ``np.broadcast_to`` would avoid the copy, but its
    Python overhead dominates on small tensors, and a stride-0 gradient makes the BLAS calls
    that usually consume it (matmul backward) slower than the copy costs.
    """
    out = np.empty(shape, dtype=a.dtype)
    out[...] = a
    return out


def open_grids(shape):
    """The open (broadcastable) index grids of ``shape``: ``np.indices(shape, sparse=True)``."""
    return np.indices(shape, sparse=True)


def accumulate(name, a, axis):
    """The running ``name`` (a binary ufunc: ``maximum``, ``logaddexp``...) along ``axis``."""
    return getattr(np, name).accumulate(a, axis=axis)


def reduceat(name, a, starts, axis=0):
    """``name`` reduced over the runs of ``a`` beginning at the sorted indices ``starts``."""
    return getattr(np, name).reduceat(a, starts, axis=axis)


def argsort_stable(a, axis=-1):
    """Indices sorting ``a`` along ``axis``, equal elements keeping their order (NaN last)."""
    return np.argsort(a, axis=axis, kind="stable")


def ufunc_at(name, target, index, values):
    """``target[index] = name(target[index], values)`` in place, repeated indices applying
    one after the other (``np.<name>.at``)."""
    getattr(np, name).at(target, index, values)


from ._libm_f32 import float32_rounded  # noqa: E402,F401  (small float32 math as torch rounds it)
