"""Fused CuPy kernels for the LSTM sequence op's time loop (``ops/rnn_sequence.py``).

The loop is feature-major: gates ``a`` (4H, B) in the order [i f o g] with the sigmoid gates'
pre-activations halved (sigmoid(z) = tanh(z/2)/2 + 1/2), states (H, B). Written with xp, one
step is a recurrent GEMM and about nine elementwise passes forward (seven backward), each a
kernel launch of ~5-10 us host time on a GPU: the loop's time there was its launches (the LSTM
language model's step 13x torch's). Here a step is the GEMM and ONE kernel each way.

Each kernel performs the xp code's operations in the same order and, built with
``--fmad=false`` as the other fused kernels (``_cupy_kernels``), rounds each as the xp code
does, so the fused and unfused loops agree bit for bit. The helpers return False (the caller
then runs its xp code) for dtypes or layouts outside what the kernels take, or when a kernel
cannot be built here (``_cupy_kernels.FAILED``).
"""

from ._cupy_kernels import ENABLED, _kernel, _launch, _OPTIONS

_FLOATS = ("float32", "float64")

_STEP_BODY = """
const ptrdiff_t nb = n * bsz;
T zi = a[i], zf = a[i + nb], zo = a[i + 2 * nb], zg = a[i + 3 * nb];
if (has_xq) {
    const ptrdiff_t x0 = (i / bsz) * xrow + xoff + i % bsz, xk = n * xrow;
    zi = zi + xq[x0];
    zf = zf + xq[x0 + xk];
    zo = zo + xq[x0 + 2 * xk];
    zg = zg + xq[x0 + 3 * xk];
}
zi = tanh(zi) * (T)0.5 + (T)0.5;
zf = tanh(zf) * (T)0.5 + (T)0.5;
zo = tanh(zo) * (T)0.5 + (T)0.5;
zg = tanh(zg);
a[i] = zi;
a[i + nb] = zf;
a[i + 2 * nb] = zo;
a[i + 3 * nb] = zg;
T ig = zi * zg;
T cn = zf * cp;
cn = cn + ig;
c = cn;
T t = tanh(cn);
tc = t;
h = zo * t;
"""


def _make_step(cp):
    return cp.ElementwiseKernel(
        "raw T xq, int64 xrow, int64 xoff, int32 has_xq, T cp, int64 n, int64 bsz",
        "raw T a, T c, T tc, T h", _STEP_BODY, "numtorch_lstm_seq_step", options=_OPTIONS)


_GRAD_BODY = """
const ptrdiff_t nb = n * bsz;
T d = dh + go;
dh = d;
T e = d * dtc;
T g = dc + e;
dz[i] = fac[i] * g;
dz[i + nb] = fac[i + nb] * g;
dz[i + 2 * nb] = fac[i + 2 * nb] * g;
dz[i + 3 * nb] = fac[i + 3 * nb] * d;
dc = g * fg;
"""


def _make_grad(cp):
    return cp.ElementwiseKernel(
        "T go, T dtc, T fg, raw T fac, int64 n, int64 bsz", "T dh, T dc, raw T dz", _GRAD_BODY,
        "numtorch_lstm_seq_grad", options=_OPTIONS)


def _contiguous(*arrays):
    first = arrays[0]
    return ENABLED[0] and first.dtype.name in _FLOATS and all(
        a.dtype == first.dtype and a.flags.c_contiguous for a in arrays)


def lstm_seq_step(a, xq, t, c_prev, c, tc, h):
    """One forward step of the loop after its recurrent GEMM (into ``a`` (4H, B)): adds the
    input projection's step ``t`` when ``xq`` (4H, T * B) is given, activates ``a`` in place
    and writes the new cell ``c``, ``tanh(c)`` into ``tc`` and the state into ``h`` (all
    (H, B)). False when the fused kernel does not apply."""
    n, bsz = c_prev.shape
    arrays = (a, c_prev, c, tc, h) if xq is None else (a, xq, c_prev, c, tc, h)
    if not _contiguous(*arrays) or a.shape != (4 * n, bsz):
        return False
    if xq is None:
        xq, xrow, has = a, 0, 0
    else:
        xrow, has = xq.shape[1], 1
    return _launch("numtorch_lstm_seq_step", _make_step, xq, xrow, t * bsz, has, c_prev, n,
                   bsz, a, c, tc, h)


def lstm_seq_grad(go, dtc, fg, fac, dh, dc, dz):
    """One backward step before its recurrent GEMM: ``dh += go``; ``dc += dh * dtc``; the gate
    gradients ``dz`` (4H, B) = ``fac`` (4H, B) times ``dc`` (gates i, f, g) or ``dh`` (o);
    then ``dc *= fg``. ``dh``, ``dc`` (H, B) are updated in place. False when the fused kernel
    does not apply."""
    n = dh.shape[0]
    if (not _contiguous(dtc, fac, dh, dc, dz) or go.dtype != dh.dtype or fg.dtype != dh.dtype
            or fac.shape != (4 * n, dh.shape[1]) or dz.shape != fac.shape):
        return False
    return _launch("numtorch_lstm_seq_grad", _make_grad, go, dtc, fg, fac, n, dh.shape[1], dh,
                   dc, dz)
