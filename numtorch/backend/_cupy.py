"""CuPy implementations of the helpers in backend/_numpy.py, plus the device-side state (current
device, transfers, pinned memory, peak-memory accounting).

The modules are bound by ``backend`` (``_bind``) when CuPy is first found, so this file never
imports CuPy itself, and tests can bind the CPU stand-in instead.
"""

import weakref

import numpy as np

from .._device import device as _device

cp = None  # the cupy module (bound by backend._bind)
cupyx = None
_special = None
_DEVICES = {}
# device index -> [bytes asked of the pool since the last reset, highest pool.used_bytes() and
# highest pool.total_bytes() seen by the allocator]; lists the allocator updates in place
_COUNTS = {}
_ROUTE_POOL = [None]  # a pool of its own taking the allocations (MemPool, graph capture)
CACHE_BLOCKS = [True]  # torch.cuda.caching_allocator_enable


def _bind(cupy_module, cupyx_module):
    """Use ``cupy_module``/``cupyx_module`` from now on (called by ``backend``)."""
    global cp, cupyx, _special
    cp, cupyx = cupy_module, cupyx_module
    _special = None if cupyx_module is None else cupyx_module.scipy.special
    if cupy_module is not None:
        _track_peak_memory()


def reset_device_state():
    """Forget per-device state (generators, peaks) when the CuPy module changes (tests)."""
    _DEVICES.clear()
    for c in _COUNTS.values():  # (zeroed in place: the allocator holds device 0's list)
        c[:] = [0, 0, 0]
    _ROUTE_POOL[0] = None
    CACHE_BLOCKS[0] = True
    SYNC_DEBUG[0] = 0
    from . import _cupy_kernels, _cupy_random

    _cupy_random.reset()
    # kernels are built by one CuPy module (a real GPU's or the tests' stand-in): a kernel
    # kept across a switch refuses the other module's arrays
    _cupy_kernels._KERNELS.clear()
    _cupy_kernels.FAILED.clear()


def cuda_device(index):
    """The ``numtorch.device('cuda', index)`` (cached)."""
    d = _DEVICES.get(index)
    if d is None:
        d = _DEVICES[index] = _device("cuda", index)
    return d


def current_device_index():
    """The index of CuPy's current device."""
    return cp.cuda.get_device_id()


# -- transfers ------------------------------------------------------------------------------------
SYNC_DEBUG = [0]  # torch.cuda.set_sync_debug_mode: 0 off, 1 warn, 2 raise on a blocking copy


def to_host(array, non_blocking=False):
    """A NumPy copy of device array ``array``; ``non_blocking`` returns before the copy is
    done (into pinned memory, on the current stream), as torch's ``non_blocking`` does."""
    if not non_blocking:
        if SYNC_DEBUG[0]:
            _synchronizing()
        return array.get()
    out = cupyx.empty_pinned(array.shape, dtype=array.dtype)
    return array.get(stream=cp.cuda.get_current_stream(), out=out, blocking=False)


def _synchronizing():
    if SYNC_DEBUG[0] == 2:
        raise RuntimeError("called a synchronizing CUDA operation")
    import warnings

    warnings.warn("called a synchronizing CUDA operation", UserWarning, stacklevel=4)


def to_device(array, index, non_blocking=False):
    """``array`` (host or device) on GPU ``index``. A host-to-device copy is asynchronous only
    with ``non_blocking`` (torch's contract: the source may be changed once the call returns
    otherwise)."""
    if isinstance(array, cp.ndarray):
        if array.data.device_id == index:
            return array
        with cp.cuda.Device(index):
            return array.copy()
    with cp.cuda.Device(index):
        return cp.asarray(array, blocking=not non_blocking)


def is_pinned(array):
    """True if host array ``array`` lives in page-locked memory from CuPy's pinned pool."""
    base = array
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, cp.cuda.PinnedMemoryPointer)


def pin(array):
    """A copy of host array ``array`` in page-locked memory (same shape, dtype and values)."""
    out = cupyx.empty_pinned(array.shape, dtype=array.dtype)
    np.copyto(out, array)
    from ._cupy_memory import count_pinned

    count_pinned(out)
    return out


# -- memory accounting ----------------------------------------------------------------------------
def counts(index):
    """Device ``index``'s ``[bytes allocated since the last reset, peak used, peak reserved]``
    (the list the allocator updates)."""
    c = _COUNTS.get(index)
    if c is None:
        c = _COUNTS[index] = [0, 0, 0]
    return c


def _track_peak_memory():
    """Route CuPy's allocations through its default pool while recording, per device, the
    bytes asked and the peaks of ``used_bytes`` and ``total_bytes`` (CuPy's pool keeps no
    peak; torch's max_memory_allocated/max_memory_reserved need them, exact, so every
    allocation is seen). One Python call per allocation, kept to a few operations: the
    pool's methods bound once, device 0's counters closed over when it is the only GPU."""
    pool = cp.get_default_memory_pool()
    oom = cp.cuda.memory.OutOfMemoryError
    route, cache = _ROUTE_POOL, CACHE_BLOCKS
    malloc, used_bytes, total_bytes = pool.malloc, pool.used_bytes, pool.total_bytes
    only = counts(0) if cp.cuda.runtime.getDeviceCount() == 1 else None

    def allocate(size):
        private = route[0]
        if private is not None:  # a MemPool in use, or a CUDA graph being captured
            return private.malloc(size)
        if not cache[0]:  # caching off: cached blocks go back to the driver first
            pool.free_all_blocks()
        try:
            mem = malloc(size)
        except oom as e:
            raise out_of_memory(size, pool) from e
        c = only if only is not None else counts(mem.device_id)
        c[0] += size
        used = used_bytes()
        if used > c[1]:
            c[1] = used
            c[2] = max(c[2], total_bytes())
        return mem

    cp.cuda.set_allocator(allocate)


def _format_size(n):
    """Bytes as torch's allocator messages write them (``20.00 MiB``)."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n} bytes"


def out_of_memory(size, pool):
    """torch's ``OutOfMemoryError`` for a failed allocation of ``size`` bytes from ``pool``
    (the current GPU's), with torch's account of where the memory is."""
    from .._errors_device import OutOfMemoryError

    index = cp.cuda.get_device_id()
    free, total = mem_get_info(index)
    used, reserved = pool.used_bytes(), pool.total_bytes()
    return OutOfMemoryError(
        f"CUDA out of memory. Tried to allocate {_format_size(size)}. GPU {index} has a total "
        f"capacity of {_format_size(total)} of which {_format_size(free)} is free. Of the "
        f"allocated memory {_format_size(used)} is allocated by PyTorch, and "
        f"{_format_size(reserved - used)} is reserved by PyTorch but unallocated.")


def memory_stats(index):
    """``(allocated, peak_allocated, reserved, peak_reserved)`` bytes of the default pool."""
    pool = cp.get_default_memory_pool()
    with cp.cuda.Device(index):  # CuPy's pool answers for the current device
        used, total = pool.used_bytes(), pool.total_bytes()
    c = counts(index)
    return used, max(c[1], used), total, max(c[2], total)


def reset_peak(index):
    """Start the peaks over from the current use (``reset_peak_memory_stats``)."""
    pool = cp.get_default_memory_pool()
    with cp.cuda.Device(index):
        c = counts(index)
        c[1], c[2] = pool.used_bytes(), pool.total_bytes()


def empty_cache():
    """Give the pools' unused blocks (device and pinned) back to the driver."""
    cp.get_default_memory_pool().free_all_blocks()
    cp.get_default_pinned_memory_pool().free_all_blocks()


def mem_get_info(index):
    """``(free, total)`` bytes of GPU ``index`` as the driver reports them."""
    with cp.cuda.Device(index):
        free, total = cp.cuda.Device(index).mem_info
    return int(free), int(total)


def set_memory_fraction(fraction, index):
    """Cap the default pool at ``fraction`` of GPU ``index``'s memory."""
    with cp.cuda.Device(index):
        cp.get_default_memory_pool().set_limit(fraction=fraction)


# -- helpers with the names of backend/_numpy.py ----------------------------------------------------
def scipy_linalg():
    """None: the linear-algebra ops use their own batched xp code on the GPU."""
    return None


def linalg_raises():
    """A context in which ``xp.linalg`` raises ``numpy.linalg.LinAlgError`` for a singular,
    not positive-definite or non-convergent input. CuPy leaves the solvers' status codes on
    the device and returns inf/NaN or plausible garbage unless told to read them; reading
    them is one host synchronisation per call, as torch's checked functions do."""
    return cupyx.errstate(linalg="raise")


def take_in_range(a, index, axis, out):
    """``a.take(index, axis)`` written into ``out``, for indices already in range."""
    return cp.take(a, index, axis=axis, out=out)


def scatter_add(target, index, values):
    """target[index] += values, accumulating repeated indices (in place). ``cupy.add.at``:
    CuPy 14 deprecates ``cupyx.scatter_add``/``ndarray.scatter_add`` with a warning."""
    ufunc_at("add", target, index, values)


def index_add_rows(n_rows, index, values):
    """Sum rows of ``values`` into ``n_rows`` buckets given by the 1-D ``index``."""
    out = cp.zeros((n_rows,) + values.shape[1:], dtype=values.dtype)
    ufunc_at("add", out, index, values)
    return out


def write_last_wins(target, index, values):
    """``target[index] = values`` where a memory element written more than once keeps the last
    value, as NumPy and torch's CPU kernels leave it. CuPy's scatter kernel lets the GPU threads
    race (the H100 kept the first), so the values are first made equal along each element's
    writes: every write carries that element's last value. Needed for repeated indices and for
    expanded (zero-stride) targets; a mask or a lone index writes as it is."""
    if not isinstance(index, tuple):
        index = (index,)
    arrays = [i for i in index if isinstance(i, cp.ndarray) and i.dtype != np.bool_]
    if not arrays or target.size == 0 or (
            0 not in target.strides and len(arrays) == 1 and arrays[0].size <= 1):
        target[index] = values
        return
    item = target.itemsize
    addr = 0
    for g, st in zip(open_grids(target.shape), target.strides):
        if st:
            addr = addr + cp.broadcast_to(g, target.shape)[index] * (st // item)
    shape = target[index].shape
    addr = cp.broadcast_to(cp.asarray(addr), shape).reshape(-1)
    n = addr.size
    if n <= 1:
        target[index] = values
        return
    vals = cp.broadcast_to(cp.asarray(values, dtype=target.dtype), shape).reshape(-1)
    pos = cp.arange(n)
    addr = addr - addr.min()
    order = cp.argsort(addr * n + pos)  # unique keys: one element's writes stay in order
    s = addr[order]
    last = cp.ones(n, dtype=bool)
    last[:-1] = s[1:] != s[:-1]
    # the position of its run's last write, for every position in the sorted order
    run_end = accumulate("minimum", cp.where(last, pos, n)[::-1], 0)[::-1]
    unified = cp.empty_like(vals)
    unified[order] = vals[order[run_end]]  # order is a permutation: no repeats here
    target[index] = unified.reshape(shape)


def float32_rounded(ufunc, x, out=None):
    """``ufunc(x)``: the float64 route of ``backend/_libm_f32.py`` reproduces torch's CPU
    kernels; on the GPU CuPy's own kernels run as they are."""
    return ufunc(x) if out is None else ufunc(x, out=out)


def erf(x):
    """The error function, elementwise."""
    return _special.erf(x)


def erfinv(x):
    """The inverse error function, elementwise."""
    return _special.erfinv(x)


def erfc(x):
    """The complementary error function, elementwise."""
    return _special.erfc(x)


def scipy_special(name):
    """``cupyx.scipy.special.<name>``; a function CuPy lacks runs SciPy's on a host copy."""
    if name in ("i0", "i1", "i0e", "i1e"):  # CUDA's Bessel functions differ from SciPy's at
        # +-inf
        return globals()[name]
    fn = getattr(_special, name, None)
    if fn is not None:
        return fn
    from . import _numpy

    host = _numpy.scipy_special(name)

    def on_host(*args):
        out = host(*[a.get() if isinstance(a, cp.ndarray) else a for a in args])
        if isinstance(out, tuple):
            return tuple(cp.asarray(o) for o in out)
        return cp.asarray(out)

    return on_host


def gammaln(x):
    """log |Gamma(x)|, elementwise."""
    return _special.gammaln(x)


def digamma(x):
    """The digamma function, elementwise."""
    return _special.digamma(x)


def polygamma(n, x):
    """The ``n``-th derivative of the digamma function, elementwise. CuPy's ``polygamma``
    tests ``cupy.where(n == 0, ...)``, so the order must be a device array (a Python int
    raises "'bool' object has no attribute 'astype'")."""
    if n == 0:
        return _special.digamma(x)
    return _special.polygamma(cp.asarray(n), x)


def i0(x):
    """The modified Bessel function of the first kind, order 0, elementwise; NaN at +-inf as
    torch and SciPy (CUDA's ``cyl_bessel_i0`` gives +inf there)."""
    return cp.where(cp.isinf(x), np.nan, _special.i0(x))


def i1(x):
    """The modified Bessel function of the first kind, order 1, elementwise; NaN at +-inf as
    torch and SciPy (``i0``'s CUDA function gives +inf there; the same guard here)."""
    return cp.where(cp.isinf(x), np.nan, _special.i1(x))


def i0e(x):
    """exp(-|x|) I0(x), elementwise; 0 at +-inf as torch and SciPy (CuPy multiplies exp(-|x|)
    by CUDA's ``cyl_bessel_i0``, +inf there: NaN)."""
    return cp.where(cp.isinf(x), 0.0, _special.i0e(x))


def i1e(x):
    """exp(-|x|) I1(x), elementwise; +-0 at +-inf as torch and SciPy (CuPy multiplies exp(-|x|)
    by CUDA's ``cyl_bessel_i1``, +-inf there: NaN, seen on an H200)."""
    return cp.where(cp.isinf(x), cp.copysign(x.dtype.type(0), x), _special.i1e(x))


def floor_divide(a, b):
    """``a // b`` with Python's (and torch's) rounding. CuPy's float kernel is
    ``floor(a / b)``: ``1 // -inf`` gave -0.0 (torch -1), ``inf // 1`` inf (torch NaN) and
    ``1 // 0.1`` gives 10 (torch 9). Floats take NumPy's rule instead: the quotient of
    ``a - fmod(a, b)``, corrected by one where the remainder's sign differs from ``b``'s and
    rounded to the nearest integer."""
    if a.dtype.kind != "f":
        return cp.floor_divide(a, b)
    mod = cp.fmod(a, b)
    div = (a - mod) / b
    div = cp.where(_signs_differ(mod, b), div - 1, div)
    fl = cp.floor(div)
    fl = cp.where(div - fl > 0.5, fl + 1, fl)
    q = cp.where(div != 0, fl, cp.copysign(0, a / b))
    return cp.where(b == 0, a / b, q)


def remainder(a, b):
    """``a % b`` with the sign of ``b``, as torch: ``fmod`` moved by ``b`` where the signs
    differ. CuPy's float kernel is ``a - floor(a / b) * b``, NaN for ``0 % inf`` (torch 0)
    and for ``3 % inf`` (torch 3)."""
    if a.dtype.kind != "f":
        return cp.remainder(a, b)
    mod = cp.fmod(a, b)
    return cp.where(_signs_differ(mod, b), mod + b, mod)


def true_divide(a, b):
    """``a / b``; complex quotients by NumPy's rule (Smith's: scale by the divisor's larger
    part; a zero divisor divides each part by zero), as torch's CPU kernels compute them.
    CuPy's complex division scales by ``1 / (|c| + |d|)``, which makes every quotient by zero
    NaN + NaN j (torch: inf or NaN per part) and ``(1+1j) / inf`` NaN (torch 0)."""
    if a.dtype.kind != "c" and b.dtype.kind != "c":
        return a / b
    dt = cp.result_type(a, b)
    a, b = cp.asarray(a, dtype=dt), cp.asarray(b, dtype=dt)
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    wide = cp.abs(br) >= cp.abs(bi)  # |c| >= |d|: divide through by c, else by d
    zero = cp.logical_and(br == 0, bi == 0)
    c = cp.where(wide, br, bi)
    d = cp.where(wide, bi, br)
    rat = d / cp.where(zero, 1, c)
    scl = 1 / (c + d * rat)
    re = cp.where(wide, ar + ai * rat, ar * rat + ai) * scl
    im = cp.where(wide, ai - ar * rat, ai * rat - ar) * scl
    out = cp.empty(cp.broadcast_shapes(a.shape, b.shape), dtype=dt)
    out.real[...] = cp.where(zero, ar / cp.abs(br), re)
    out.imag[...] = cp.where(zero, ai / cp.abs(br), im)
    return out


def _signs_differ(mod, b):
    """Where the nonzero remainder ``mod`` and the divisor ``b`` (maybe a NumPy scalar) have
    opposite signs."""
    return cp.logical_and(mod != 0, cp.not_equal(mod < 0, b < 0))


def sliding_window_view(x, window_shape, axis):
    """Sliding windows of ``window_shape`` over ``axis`` (a strided view)."""
    return cp.lib.stride_tricks.sliding_window_view(x, window_shape, axis=axis)


def as_strided(x, shape, strides):
    """A view of ``x``'s memory with the given shape and byte strides. CuPy builds it on
    ``x.data`` with no ``base``, so the array owning the memory is noted (see
    :func:`storage_root`)."""
    out = cp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)
    if out.base is None:
        root = storage_root(x)
        key = id(out)
        _STRIDED_ROOTS[key] = (weakref.ref(out, lambda _, k=key: _STRIDED_ROOTS.pop(k, None)),
                               root)
    return out


# id(view made by as_strided) -> (weak reference to that view, the array owning its memory)
_STRIDED_ROOTS = {}


def storage_root(arr):
    """The array whose memory block ``arr`` views (torch's storage). A CuPy view's ``base`` is
    that array already; a view made by :func:`as_strided` has none, and its root was noted."""
    a = arr if arr.base is None else arr.base
    entry = _STRIDED_ROOTS.get(id(a))
    if entry is not None and entry[0]() is a:
        return entry[1]
    return a


def writeable_alias(arr):
    """``arr``: CuPy arrays have no read-only flag, every view can be written."""
    return arr


def address(arr):
    """The device address of ``arr``'s first element."""
    return arr.data.ptr


def expand_to(a, shape):
    """``a`` broadcast to ``shape`` as a new C-contiguous array (as the NumPy helper)."""
    out = cp.empty(shape, dtype=a.dtype)
    out[...] = a
    return out


def open_grids(shape):
    """The open (broadcastable) index grids of ``shape`` (CuPy's ``indices`` has no
    ``sparse=``)."""
    k = len(shape)
    return tuple(cp.arange(n).reshape((1,) * i + (n,) + (1,) * (k - i - 1))
                 for i, n in enumerate(shape))


def accumulate(name, a, axis):
    """The running ``name`` along ``axis``. CuPy's ufuncs accumulate only ``add`` and
    ``multiply``; the others (``maximum``, ``minimum``, ``logaddexp``: associative) take
    ceil(log2 n) whole-array passes of a doubling scan."""
    if name == "add":
        return cp.cumsum(a, axis=axis)
    if name == "multiply":
        return cp.cumprod(a, axis=axis)
    fn = getattr(cp, name)
    out = cp.moveaxis(a, axis, 0).copy()
    step, n = 1, out.shape[0]
    while step < n:
        out[step:] = fn(out[step:], out[:-step])  # the right side is a new array: no aliasing
        step *= 2
    return cp.ascontiguousarray(cp.moveaxis(out, 0, axis))


def reduceat(name, a, starts, axis=0):
    """``name`` reduced over the runs of ``a`` beginning at the increasing indices ``starts``
    (as NumPy's ``reduceat``; CuPy has it for ``add`` only: the others scatter each run's
    elements onto its first one)."""
    if name == "add":
        return cp.add.reduceat(a, starts, axis=axis)
    rows = cp.moveaxis(a, axis, 0)
    seg = cp.searchsorted(starts, cp.arange(rows.shape[0]), side="right") - 1
    out = rows[starts]  # a fancy-indexed copy, holding each run's first element
    ufunc_at(name, out, seg, rows)
    return cp.ascontiguousarray(cp.moveaxis(out, 0, axis))


def argsort_stable(a, axis=-1):
    """Indices sorting ``a`` along ``axis``, equal elements keeping their order (NaN last):
    CuPy's sort is always stable and takes no ``kind``."""
    return cp.argsort(a, axis=axis)


# the target dtypes CuPy's atomic kernels behind ``<ufunc>.at`` take (others: TypeError), from
# cupy/_core/_routines_indexing.pyx
_ATOMIC_INT = tuple(np.dtype(n) for n in ("int32", "int64", "uint32", "uint64"))
_AT_DTYPES = {"add": _ATOMIC_INT + tuple(np.dtype(n) for n in ("float16", "float32", "float64")),
              "subtract": (np.dtype(np.int32), np.dtype(np.uint32)), "maximum": _ATOMIC_INT,
              "minimum": _ATOMIC_INT, "bitwise_and": _ATOMIC_INT, "bitwise_or": _ATOMIC_INT,
              "bitwise_xor": _ATOMIC_INT}  # (dtypes: NumPy's dtype.name is slow)
_SIGN = np.int64(0x7FFFFFFFFFFFFFFF)


def _order_key(a, nan_key):
    """int64 keys ordered as the float values of ``a`` (-0.0 equal to 0.0), NaN as
    ``nan_key``: the IEEE bits, with the magnitude bits of negative values flipped."""
    bits = a.astype(np.float64).view(np.int64)
    key = cp.where(bits < 0, bits ^ _SIGN, bits)
    return cp.where(cp.isnan(a), nan_key, cp.where(a == 0, 0, key))


def _float_extreme_at(name, target, index, values):
    """``maximum``/``minimum.at`` on floats, exact and with NaN winning (torch's amax/amin).
    CuPy's float atomics call ``fmaxf``/``fminf``: NaN loses, and float64 values are computed
    in float32 (every element they touch comes back rounded). The values go through int64 keys
    in the same order instead, which the integer atomics compare exactly."""
    nan_key = np.iinfo(np.int64).max if name == "maximum" else np.iinfo(np.int64).min
    before = _order_key(target, nan_key)
    keys = before.copy()
    getattr(cp, name).at(keys, index, _order_key(cp.asarray(values, dtype=target.dtype),
                                                 nan_key))
    bits = cp.where(keys < 0, keys ^ _SIGN, keys)
    bits = cp.where(keys == nan_key, np.int64(0x7FF8000000000000), bits)  # NaN, sign bit clear
    # only where a value won (a tie keeps the element, -0.0 included, as torch's compare does)
    target[...] = cp.where(keys != before, bits.view(np.float64).astype(target.dtype), target)


def ufunc_at(name, target, index, values):
    """``target[index] = name(target[index], values)`` in place, repeated indices applying
    one after the other. CuPy's ``at`` is an atomic kernel for a few ufuncs and dtypes
    (``_AT_DTYPES``): narrower integers and bools run it in int32, complex sums on the real and
    imaginary parts, float maxima and minima on ordered int64 keys (``_float_extreme_at``). For
    the other ufuncs (``multiply``, ``logical_and``/``logical_or``...) the updates are applied
    in rounds in which no index repeats: round k takes each index's k-th occurrence, so there
    are as many rounds as the most repeated index has occurrences."""
    dt = target.dtype
    kinds = _AT_DTYPES.get(name)
    if kinds is not None:
        if dt in kinds:
            getattr(cp, name).at(target, index, values)
            return
        if name in ("maximum", "minimum") and dt.kind == "f":
            _float_extreme_at(name, target, index, values)
            return
        if name == "add" and dt.kind == "c":
            v = cp.asarray(values, dtype=dt)
            cp.add.at(target.real, index, v.real)
            cp.add.at(target.imag, index, v.imag)
            return
        if name != "subtract" and dt.kind in "biu" and dt.itemsize < 4:
            wide = target.astype(np.int32)
            getattr(cp, name).at(wide, index, cp.asarray(values).astype(np.int32))
            target[...] = wide.astype(dt)  # wraps as the narrow type's arithmetic does
            return
    fn = getattr(cp, name)
    if not isinstance(index, tuple):
        index = (index,)
    values = cp.asarray(values, dtype=target.dtype)
    shape = cp.broadcast_shapes(*(i.shape for i in index), values.shape)
    lin = cp.ravel_multi_index(tuple(cp.broadcast_to(i, shape).reshape(-1) for i in index),
                               target.shape)
    vals = cp.broadcast_to(values, shape).reshape(-1)
    n = lin.size
    if n == 0:
        return
    order = cp.argsort(lin)
    s = lin[order]
    pos = cp.arange(n)
    starts = cp.ones(n, dtype=bool)
    starts[1:] = s[1:] != s[:-1]
    rank_sorted = pos - accumulate("maximum", cp.where(starts, pos, 0), 0)
    rank = cp.empty(n, dtype=rank_sorted.dtype)
    rank[order] = rank_sorted
    flat = target.reshape(-1)  # a view: target is contiguous where this is used
    for k in range(int(rank_sorted.max()) + 1):
        sel = rank == k
        where = lin[sel]
        flat[where] = fn(flat[where], vals[sel])


# the fused kernels (backend/_cupy_kernels.py), under the helper names the ops call
from ._cupy_kernels import adam_update, gelu_erf, gelu_slope, lstm_cell  # noqa: E402,F401
from ._cupy_rnn import lstm_gate_rows, lstm_seq_backward, lstm_seq_forward  # noqa: E402,F401
from ._cupy_rnn import gru_backward, gru_forward, rnn_seq_backward, rnn_tanh_forward  # noqa: E402,F401,E501
from ._cupy_rnn import step_gemm  # noqa: E402,F401
from ._cupy_norm import norm_apply, norm_grad, norm_invstd  # noqa: E402,F401
from ._cupy_norm import rows_forward, rows_grad, running_update  # noqa: E402,F401
from ._cupy_norm import bn_center, bn_grad, channel_sums  # noqa: E402,F401
from ._cupy_optim import multi_adagrad, multi_adam, multi_rmsprop, multi_sgd  # noqa: E402,F401
from ._cupy_conv import col2im, im2col  # noqa: E402,F401
from ._cupy_loss import ce_applies, ce_exp, ce_grad, ce_rows, loss_mean  # noqa: E402,F401
from ._cupy_pool import max_pool, max_pool_grad  # noqa: E402,F401
from ._cupy_rows import layer_norm_forward, layer_norm_grad_input  # noqa: E402,F401
from ._cupy_rows import layer_norm_grad_params, layer_norm_rows_ok  # noqa: E402,F401
from ._cupy_attention import attention_rows_ok, attention_softmax  # noqa: E402,F401
from ._cupy_attention import attention_softmax_grad, softmax_rows  # noqa: E402,F401
from ._cupy_attention import softmax_rows_grad  # noqa: E402,F401
