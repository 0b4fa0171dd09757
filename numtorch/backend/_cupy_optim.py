"""Multi-tensor CuPy kernels for the optimizers' updates: many parameters, one launch.

On a GPU a small model's optimizer step costs its kernel launches (~5-10 us of host time
each), not its arithmetic: SGD with momentum written with xp is four launches per parameter
(ResNet-18: 62 parameters, about 250 launches per step), Adam one fused kernel plus the step
counter's ``+= 1``. Here one ``ElementwiseKernel`` updates up to ``_MAX_TENSORS`` parameters:
every tensor comes in as a ``raw`` array (flat and contiguous), with the running end of each
tensor in the concatenated index range as an int64 scalar; thread ``i`` finds its tensor by
comparing ``i`` with those ends and updates element ``i - start`` of it. The kernel's source
depends only on how many tensors it takes (built once per count, cached by CuPy per dtype).
The size of the launch's parameter block keeps the count small enough for CUDA's 4 KiB limit.

Each element runs the optimizer's xp code's operations in its order, compiled with
``--fmad=false`` (``_cupy_kernels``): results are bit for bit those of the xp code, whatever
the grouping. Adam's kernel also advances each parameter's float32 ``step`` counter (a 0-d
device array), which would otherwise be one more launch per parameter.

The helpers return False (nothing was changed) when the inputs are outside what the kernels
take or a kernel cannot be built here; the optimizer then runs its per-parameter path.
"""

import numpy as np

from .. import backend as _backend
from ._cupy_kernels import _OPTIONS, ENABLED, _launch
from ._cupy_kernels import FLOATS as _FLOATS

_F32 = np.dtype(np.float32)
# bytes of the kernel's parameter block: a 1-d raw array is passed as a 32-byte struct (data,
# size, shape, strides), a 0-d one as 16, a scalar as 8; CUDA takes 4 KiB on every GPU
_PARAM_BYTES = 4096 - 256  # room for the shared scalars and the indexer
_MAX_TENSORS = 32

_SGD_FN = """
__device__ __forceinline__ void nt_sgd(T& p, const T g, T* b, const double lr, const double wd,
                                       const double mom, const double damp, const int nesterov,
                                       int neg) {
    T d = g;
    if (wd != 0) {
        T w = p * (T)wd;
        d = neg ? w - d : w + d;
        neg = 0;
    }
    if (b != 0) {
        T m = *b * (T)mom;
        if (damp != 0) {
            T t = d * (T)(1 - damp);
            m = neg ? m - t : m + t;
        } else {
            m = neg ? m - d : m + d;
        }
        *b = m;
        if (nesterov) {
            T t = m * (T)mom;
            d = neg ? t - d : t + d;
        } else {
            d = m;
        }
        neg = 0;
    }
    T t = d * (T)lr;
    p = neg ? p + t : p - t;
}
"""

_ADAM_FN = """
__device__ __forceinline__ void nt_adam(T& p, const T grad, T& m, T& v, T* vmax,
                                        const double lr, const double wd, const double eps,
                                        const double beta1, const double beta2, const T sgn,
                                        const int l2, const double bc2_sqrt,
                                        const double step_size) {
    T g = grad * sgn;
    if (wd != 0) {
        if (l2) g = g + (T)wd * p;
        else p = p * (T)(1 - lr * wd);
    }
    m = m + (g - m) * (T)(1 - beta1);
    v = v * (T)beta2 + (T)(1 - beta2) * g * g;
    T vv = v;
    if (vmax != 0) {
        T x = *vmax;
        x = (x != x || v <= x) ? x : v;
        *vmax = x;
        vv = x;
    }
    p = p - (T)step_size * (m / (sqrt(vv) / (T)bc2_sqrt + (T)eps));
}
"""

_RMSPROP_FN = """
__device__ __forceinline__ void nt_rmsprop(T& p, const T grad, T& sq, T* ga, T* buf,
                                           const double lr, const double alpha,
                                           const double eps, const double wd,
                                           const double mom, const int centered,
                                           const int neg) {
    T g = neg ? -grad : grad;
    if (wd != 0) g = g + (T)wd * p;
    sq = sq * (T)alpha;
    sq = sq + (T)(1 - alpha) * g * g;
    T avg;
    if (centered) {
        T a = *ga;
        a = a + (g - a) * (T)(1 - alpha);
        *ga = a;
        avg = sqrt(sq - a * a);
    } else {
        avg = sqrt(sq);
    }
    avg = avg + (T)eps;
    if (mom > 0) {
        T b = *buf * (T)mom;
        b = b + g / avg;
        *buf = b;
        p = p - (T)lr * b;
    } else {
        p = p - (T)lr * (g / avg);
    }
}
"""

_ADAGRAD_FN = """
__device__ __forceinline__ void nt_adagrad(T& p, const T grad, T& sum, const double clr,
                                           const double wd, const double eps, const int neg) {
    T g = neg ? -grad : grad;
    if (wd != 0) g = g + (T)wd * p;
    sum = sum + g * g;
    p = p - (T)clr * (g / (sqrt(sum) + (T)eps));
}
"""


def _body(k, call):
    """The kernel body: tensor ``t`` owns indices ``[e{t-1}, e{t})``; ``call(t)`` is its update
    of element ``j``."""
    lines = []
    for t in range(k):
        start = "i" if t == 0 else f"i - e{t - 1}"
        cond = f"if (i < e{t})" if t < k - 1 else ""
        lines.append(f"{'else ' if t else ''}{cond} {{ const ptrdiff_t j = {start}; "
                     f"{call(t)} }}")
    # the last tensor's end is unused in the chain: name it so every parameter is used
    lines.append(f"(void)e{k - 1};")
    return "\n".join(lines)


def _make_sgd(k, momentum):
    def make(cp):
        ins = ", ".join(f"raw T g{t}, int64 e{t}" for t in range(k)) + (
            ", float64 lr, float64 wd, float64 mom, float64 damp, int32 nesterov, int32 neg")
        outs = ", ".join(f"raw T p{t}" + (f", raw T b{t}" if momentum else "")
                         for t in range(k))
        buf = (lambda t: f"&b{t}[j]") if momentum else (lambda t: "(T*)0")
        body = _body(k, lambda t: f"nt_sgd(p{t}[j], g{t}[j], {buf(t)}, lr, wd, mom, damp, "
                                  "nesterov, neg);")
        if not momentum:
            body += "\n(void)mom; (void)damp; (void)nesterov;"
        return cp.ElementwiseKernel(ins, outs, body, "numtorch_multi_sgd", preamble=_SGD_FN,
                                    options=_OPTIONS)
    return make


def _make_stepped(k, kind, fn, states, scalars):
    """A multi-tensor kernel that also advances each tensor's float32 step counter (a 0-d
    raw output ``s{t}``): per tensor ``p``, the states ``states`` ((prefix, how) with how
    "ref" for an always present array, "ptr" for an optional one given, "none" for one
    absent: a null pointer), then the shared ``scalars`` ((type, name) pairs)."""
    def make(cp):
        ins = ", ".join(f"raw T g{t}, int64 e{t}" for t in range(k)) + ", " + ", ".join(
            f"{typ} {name}" for typ, name in scalars)
        outs = ", ".join(", ".join([f"raw T p{t}"] + [
            f"raw T {pre}{t}" for pre, how in states if how != "none"] + [f"raw float32 s{t}"])
            for t in range(k))

        def call(t):
            args = [f"p{t}[j]", f"g{t}[j]"] + [
                f"{pre}{t}[j]" if how == "ref" else f"&{pre}{t}[j]" if how == "ptr" else "(T*)0"
                for pre, how in states] + [name for _, name in scalars]
            return f"{fn}({', '.join(args)}); if (j == 0) s{t}[0] = s{t}[0] + 1.0f;"

        source = {"adam": _ADAM_FN, "rmsprop": _RMSPROP_FN, "adagrad": _ADAGRAD_FN}[kind]
        return cp.ElementwiseKernel(ins, outs, _body(k, call), f"numtorch_multi_{kind}",
                                    preamble=source, options=_OPTIONS)
    return make


def _chunks(n, per_tensor):
    """Split ``n`` tensors into launches within the parameter-block budget."""
    size = max(1, min(_MAX_TENSORS, _PARAM_BYTES // per_tensor))
    return [(lo, min(n, lo + size)) for lo in range(0, n, size)]


def _usable(groups):
    """Every array of every tensor: a contiguous float32/float64 device array of its
    tensor's size, all of one dtype."""
    if not ENABLED[0] or not groups:
        return False
    dt = groups[0][0].dtype
    if dt not in _FLOATS:
        return False
    contiguous = _backend.DEVICE_C_CONTIGUOUS
    for arrays in groups:
        n = arrays[0].size
        for a in arrays:
            if a.dtype != dt or a.size != n or not contiguous(a):
                return False
    return True


def _flat(a):
    """``a`` (contiguous) as the 1-d raw array the kernels index: a view, except for a 1-d
    array itself (each CuPy reshape is a microsecond or two of host time; biases and norm
    weights are most of a model's parameters)."""
    return a if a.ndim == 1 else a.reshape(-1)


def _run(name, make, args, total):
    """Launch; False (and never again for this kernel) when it cannot be compiled."""
    return _launch(name, make, *args, size=total)


def _launches(tensors, per_tensor, launch):
    """Run ``launch(lo, hi)`` per chunk of ``tensors``; the number of tensors updated (a
    refusal stops the chunks: a kernel compiles at its first launch, so the last chunk, of
    another tensor count, could be refused after the others ran)."""
    for lo, hi in _chunks(len(tensors), per_tensor):
        if not launch(lo, hi):
            return lo
    return len(tensors)


def multi_sgd(tensors, lr, wd, momentum, dampening, nesterov, negate):
    """SGD's update of each ``(param, grad[, momentum_buffer])`` array tuple in ``tensors``
    (all with buffers, or none), in place, in as few launches as the parameter block allows.
    Returns how many tensors (from the first) were updated: 0 when the fused path does not
    apply, fewer than all when a kernel could not be built."""
    if not _usable(tensors) or any(len(t) != len(tensors[0]) for t in tensors):
        return 0
    with_buf = len(tensors[0]) == 3
    per = 8 + 32 * len(tensors[0])

    def launch(lo, hi):
        k = hi - lo
        ins, outs, end = [], [], 0
        for arrays in tensors[lo:hi]:
            end += arrays[0].size
            ins += [_flat(arrays[1]), end]
            for a in (arrays[0],) + tuple(arrays[2:]):
                outs.append(_flat(a))
        ins += [float(lr), float(wd), float(momentum), float(dampening), int(bool(nesterov)),
                int(bool(negate))]
        name = f"numtorch_multi_sgd_{'m' if with_buf else 'p'}{k}"
        return end == 0 or _run(name, _make_sgd(k, with_buf), ins + outs, end)

    return _launches(tensors, per, launch)


def _multi_stepped(kind, fn, states, scalars, values, tensors, steps):
    """Launch the ``kind`` kernel over ``tensors`` (each ``(param, grad, *present states)``)
    advancing ``steps``; the number of tensors updated (see :func:`multi_sgd`)."""
    width = 2 + sum(how != "none" for _, how in states)
    if not _usable(tensors) or any(len(t) != width or t[0].size == 0 for t in tensors):
        return 0  # (an empty tensor's step counter would not move)
    if any(s.dtype != _F32 or s.ndim != 0 for s in steps):
        return 0
    per = 8 + 16 + 32 * width
    key = "".join(how[0] for _, how in states)

    def launch(lo, hi):
        k = hi - lo
        ins, outs, end = [], [], 0
        for arrays, s in zip(tensors[lo:hi], steps[lo:hi]):
            end += arrays[0].size
            ins += [_flat(arrays[1]), end]
            for a in (arrays[0],) + tuple(arrays[2:]):
                outs.append(_flat(a))
            outs.append(s)
        name = f"numtorch_multi_{kind}_{key}{k}"
        return _run(name, _make_stepped(k, kind, fn, states, scalars), ins + values + outs, end)

    return _launches(tensors, per, launch)


def multi_adam(tensors, steps, lr, wd, eps, beta1, beta2, negate, l2, bc2_sqrt, step_size):
    """Adam's update of each ``(param, grad, exp_avg, exp_avg_sq[, max_exp_avg_sq])`` in
    ``tensors`` (all with the amsgrad maximum, or none), advancing each 0-d float32 device
    array of ``steps`` by one, in place. Every tensor shares the step's bias corrections; none
    may be empty. Returns how many tensors (from the first) were updated, as
    :func:`multi_sgd`."""
    if not tensors:
        return 0
    amsgrad = len(tensors[0]) == 5
    sgn = tensors[0][0].dtype.type(-1 if negate else 1)
    return _multi_stepped(
        "adam", "nt_adam", (("m", "ref"), ("v", "ref"), ("x", "ptr" if amsgrad else "none")),
        (("float64", "lr"), ("float64", "wd"), ("float64", "eps"), ("float64", "beta1"),
         ("float64", "beta2"), ("T", "sgn"), ("int32", "l2"), ("float64", "bc2_sqrt"),
         ("float64", "step_size")),
        [float(lr), float(wd), float(eps), float(beta1), float(beta2), sgn, int(bool(l2)),
         float(bc2_sqrt), float(step_size)], tensors, steps)


def multi_rmsprop(tensors, steps, lr, alpha, eps, wd, momentum, centered, negate):
    """RMSprop's update of each ``(param, grad, square_avg[, grad_avg][, momentum_buffer])``
    (grad_avg when ``centered``, the buffer when ``momentum > 0``), advancing ``steps``, as
    :func:`multi_adam`."""
    return _multi_stepped(
        "rmsprop", "nt_rmsprop", (("q", "ref"), ("a", "ptr" if centered else "none"),
                                  ("b", "ptr" if momentum > 0 else "none")),
        (("float64", "lr"), ("float64", "alpha"), ("float64", "eps"), ("float64", "wd"),
         ("float64", "mom"), ("int32", "centered"), ("int32", "neg")),
        [float(lr), float(alpha), float(eps), float(wd), float(momentum), int(bool(centered)),
         int(bool(negate))], tensors, steps)


def multi_adagrad(tensors, steps, clr, wd, eps, negate):
    """Adagrad's update of each ``(param, grad, sum)`` with the step's learning rate ``clr``,
    advancing ``steps``, as :func:`multi_adam`."""
    return _multi_stepped(
        "adagrad", "nt_adagrad", (("q", "ref"),),
        (("float64", "clr"), ("float64", "wd"), ("float64", "eps"), ("int32", "neg")),
        [float(clr), float(wd), float(eps), int(bool(negate))], tensors, steps)
