"""The recurrent layers' time loops on a GPU (``ops/rnn_sequence.py``: LSTM, GRU, Elman), each
step one cuBLAS GEMM and one fused kernel each way.

The LSTM loop is feature-major: gates ``a`` (4H, B) in the order [i f o g] with the sigmoid
gates' pre-activations halved (sigmoid(z) = tanh(z/2)/2 + 1/2), states (H, B). Written with xp,
one step is a recurrent GEMM and about nine elementwise passes forward (seven backward), each a
kernel launch of ~5-10 us host time on a GPU (a GRU step ten each way).

Why the whole loop lives here: on a GPU the loop is host-bound (an H200 ran the LSTM language
model's two layers' kernels in 1.3 ms of a 15.7 ms step), and per step the Python around the
launches cost more than they did: a view per array per step (CuPy's integer indexing runs its
full index parser), ``cupy.matmul``'s checks, argument and layout checks, the kernel lookup,
an ``ElementwiseKernel``'s analysis of its arguments. Here everything that is the same for
every step is done once per layer: the kernels are ``RawKernel``s taking whole arrays and the
step number, launched with a fixed argument tuple but for the step, and the recurrent GEMM is
one ``cublasGemmEx`` call on precomputed addresses (``step_gemm``), with the arguments
``cupy.matmul`` would pass for the step's matrices (same transposes, leading dimensions,
compute type and algorithm: the same cuBLAS computation, so the same bits).

Each kernel performs the xp code's operations in the same order and, built with
``--fmad=false`` as the other fused kernels (``_cupy_kernels``), rounds each as the xp code
does (CuPy builds raw kernels with ``-ftz=true`` as its elementwise ones), so the fused and
unfused loops agree bit for bit. The loops return False (the caller then runs its xp code) for
dtypes or layouts outside what the kernels take, or when a kernel cannot be built here
(``_cupy_kernels.FAILED``).
"""

import os

import numpy as np

from .. import backend as _backend
from ._cupy_kernels import _OPTIONS, ENABLED, FLOATS, _kernel, _launch

# Raw kernels: a launch passes its arguments as they are (~3-5 us of host time on a GPU, where an
# ElementwiseKernel's argument analysis took ~20 us). ``T`` is typedef'd per dtype; Python ints
# reach the ``long long`` parameters as 8 bytes, as CuPy passes them.
_STEP_SRC = r"""
extern "C" __global__ void numtorch_lstm_seq_step(
        const T* xq, long long xrow, long long has_xq, long long step, long long n,
        long long bsz, long long hrow, T* a, T* cs, T* tcs, T* hs) {
    const long long nb = n * bsz;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nb;
            i += (long long)gridDim.x * blockDim.x) {
        const long long a0 = step * 4 * nb + i, s0 = step * nb + i;
        T zi = a[a0], zf = a[a0 + nb], zo = a[a0 + 2 * nb], zg = a[a0 + 3 * nb];
        if (has_xq) {
            const long long x0 = (i / bsz) * xrow + step * bsz + i % bsz, xk = n * xrow;
            zi = zi + xq[x0];
            zf = zf + xq[x0 + xk];
            zo = zo + xq[x0 + 2 * xk];
            zg = zg + xq[x0 + 3 * xk];
        }
        zi = tanh(zi) * (T)0.5 + (T)0.5;
        zf = tanh(zf) * (T)0.5 + (T)0.5;
        zo = tanh(zo) * (T)0.5 + (T)0.5;
        zg = tanh(zg);
        a[a0] = zi;
        a[a0 + nb] = zf;
        a[a0 + 2 * nb] = zo;
        a[a0 + 3 * nb] = zg;
        T ig = zi * zg;
        T cn = zf * cs[s0];
        cn = cn + ig;
        cs[s0 + nb] = cn;
        T th = tanh(cn);
        tcs[s0] = th;
        hs[(step + 1) * hrow + i] = zo * th;
    }
}
"""

# The gate-local factors are made here from the forward's values, each with the operations of
# ``LSTMSequence._factors`` in its order (the xp loop makes them for all steps first).
_GRAD_SRC = r"""
extern "C" __global__ void numtorch_lstm_seq_grad(
        const T* go, const T* acts, const T* cs, const T* tcs, long long step, long long n,
        long long bsz, T* dh, T* dc, T* dz) {
    const long long nb = n * bsz;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nb;
            i += (long long)gridDim.x * blockDim.x) {
        const long long s0 = step * nb + i, g0 = step * 4 * nb + i;
        const T ai = acts[g0], af = acts[g0 + nb], ao = acts[g0 + 2 * nb], ag = acts[g0 + 3 * nb];
        const T tc = tcs[s0];
        T dtc = tc * tc;
        dtc = (T)1 - dtc;
        dtc = dtc * ao;
        T fi = (T)1 - ai;
        fi = fi * ai;
        fi = fi * ag;
        T ff = (T)1 - af;
        ff = ff * af;
        ff = ff * cs[s0];
        T fo = (T)1 - ao;
        fo = fo * ao;
        fo = fo * tc;
        T fg = ag * ag;
        fg = (T)1 - fg;
        fg = fg * ai;
        T d = dh[i] + go[s0];
        dh[i] = d;
        T e = d * dtc;
        T g = dc[i] + e;
        dz[g0] = fi * g;
        dz[g0 + nb] = ff * g;
        dz[g0 + 2 * nb] = fg * g;
        dz[g0 + 3 * nb] = fo * d;
        dc[i] = g * af;
    }
}
"""
# The recurrent weight's (and input weight's, bias's) rows in the loops' gate order: torch's
# [i f g o] blocks of n rows as [i f o g], the sigmoid gates' rows times 0.5 (exact, as the xp
# code's multiply), g's copied. ``dst`` may be a column block of a wider matrix (row stride
# ``ld``).
_ROWS_SRC = r"""
extern "C" __global__ void numtorch_lstm_gate_rows(
        const T* src, long long k, long long n, T* dst, long long ld) {
    const long long total = 4 * n * k;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
            i += (long long)gridDim.x * blockDim.x) {
        const long long r = i / k, c = i % k, gate = r / n, j = r % n;
        const T v = src[i];
        if (gate == 2) {
            dst[(3 * n + j) * ld + c] = v;
        } else {
            dst[((gate == 3 ? 2 : gate) * n + j) * ld + c] = v * (T)0.5;
        }
    }
}
"""
_BLOCK = 128


def lstm_gate_rows(w, rows, n):
    """``rows`` (4H, k) = ``w`` (4H, k, C-ordered)'s gate rows in the loops' order [i f o g],
    the sigmoid gates' rows halved, in one launch (the xp code takes three); ``rows`` may be a
    column block of a wider C-ordered matrix (or both are (4H,) vectors). False when the
    kernel does not apply."""
    if w.ndim == 1 and rows.ndim == 1:
        w, rows = w[:, None], rows[:, None]
    if w.ndim != 2 or rows.ndim != 2 or not _usable(w) or rows.dtype != w.dtype or \
            rows.shape != w.shape or w.shape[0] != 4 * n or not w.size or \
            rows.strides[1] != rows.itemsize or rows.strides[0] % rows.itemsize:
        return False
    k = w.shape[1]
    key, make = _raw(_ROWS_SRC, "numtorch_lstm_gate_rows", w.dtype)
    grid = ((w.size + _BLOCK - 1) // _BLOCK,)
    return _launch(key, make, grid, (_BLOCK,), (w, k, n, rows, rows.strides[0] // rows.itemsize))


def _raw(source, name, dtype):
    """(cache key, maker) of kernel ``name`` built from ``source`` for ``dtype``."""
    ctype = "float" if dtype.char == "f" else "double"
    return (f"{name}_{dtype.char}",
            lambda cp: cp.RawKernel(f"typedef {ctype} T;\n{source}", name, options=_OPTIONS))


def _usable(*arrays):
    first = arrays[0]
    dt = first.dtype
    if not ENABLED[0] or dt not in FLOATS:
        return False
    contiguous = _backend.DEVICE_C_CONTIGUOUS  # (CuPy's .flags is a new object each time)
    for a in arrays:
        if a.dtype != dt or not contiguous(a):
            return False
    return True


def lstm_seq_forward(wq, hfull, acts, cs, tcs, xq):
    """The forward loop over all steps: step ``t``'s gates ``acts[t]`` (4H, B) = ``wq`` (4H, R)
    @ ``hfull[t]`` (R, B) (its first H rows the state), then the fused kernel: adds the input
    projection's step ``t`` when ``xq`` (4H, T * B) is given, activates ``acts[t]`` in place,
    writes the cell ``cs[t + 1]``, ``tanh`` of it into ``tcs[t]`` and the state into the first
    H rows of ``hfull[t + 1]``. False (nothing done that the xp loop does not redo) when the
    kernels do not apply."""
    steps, gates, bsz = acts.shape
    n = gates // 4
    arrays = (wq, hfull, acts, cs, tcs) if xq is None else (wq, hfull, acts, cs, tcs, xq)
    if not steps or not _usable(*arrays) or hfull.shape[0] != steps + 1 or \
            hfull.shape[2] != bsz or cs.shape != (steps + 1, n, bsz):
        return False
    gemm = _StepGemm(wq, hfull, acts)
    xrow, has = (xq.shape[1], 1) if xq is not None else (0, 0)
    if xq is None:
        xq = acts  # (unread)
    hrow = hfull.shape[1] * bsz
    grid, block = ((n * bsz + _BLOCK - 1) // _BLOCK,), (_BLOCK,)
    key, make = _raw(_STEP_SRC, "numtorch_lstm_seq_step", acts.dtype)
    gemm(0, 0, 0)
    if not _launch(key, make, grid, block, (xq, xrow, has, 0, n, bsz, hrow, acts, cs, tcs,
                                            hfull)):
        return False
    kernel = _kernel(key, make)  # built and run: no fallback from here
    for t in range(1, steps):
        gemm(0, t, t)
        kernel(grid, block, (xq, xrow, has, t, n, bsz, hrow, acts, cs, tcs, hfull))
    return True


def lstm_seq_backward(wt, go, acts, cs, tcs, dh, dc, dz, first_gemm):
    """The backward loop over all steps, last first: the fused kernel (from the forward's gates
    ``acts[t]``, cells ``cs[t]`` and ``tcs[t]`` = tanh(``cs[t + 1]``) the gate-local factors
    (``LSTMSequence._factors``); ``dh += go[t]``; ``dc += dh * o tanh'(c)``; the gate
    gradients ``dz[t]`` (torch's order) = the factors times ``dc`` (gates i, f, g) or ``dh``
    (o); ``dc *= f``), then the GEMM ``dh = wt @ dz[t]`` (skipped at step 0 unless
    ``first_gemm``). ``dh``, ``dc`` (H, B) are updated in place. False (nothing done) when the
    kernels do not apply."""
    steps, gates, bsz = dz.shape
    n = gates // 4
    if not steps or not _usable(wt, go, acts, cs, tcs, dh, dc, dz) or \
            go.shape != tcs.shape or acts.shape != dz.shape or dh.shape != (n, bsz) or \
            cs.shape != (steps + 1, n, bsz):
        return False
    gemm = _StepGemm(wt, dz, dh)
    grid, block = ((n * bsz + _BLOCK - 1) // _BLOCK,), (_BLOCK,)
    key, make = _raw(_GRAD_SRC, "numtorch_lstm_seq_grad", dz.dtype)
    t = steps - 1
    if not _launch(key, make, grid, block, (go, acts, cs, tcs, t, n, bsz, dh, dc, dz)):
        return False
    kernel = _kernel(key, make)
    if t or first_gemm:
        gemm(0, t, 0)
    for t in range(steps - 2, -1, -1):
        kernel(grid, block, (go, acts, cs, tcs, t, n, bsz, dh, dc, dz))
        if t or first_gemm:
            gemm(0, t, 0)
    return True


# -- the Elman layer --------------------------------------------------------------------------
_RNN_STEP_SRC = r"""
extern "C" __global__ void numtorch_rnn_tanh_step(
        const T* xs, long long step, long long nb, T* hs) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nb;
            i += (long long)gridDim.x * blockDim.x) {
        const long long o = (step + 1) * nb + i;
        T v = hs[o] + xs[step * nb + i];
        hs[o] = tanh(v);
    }
}
"""

_RNN_GRAD_SRC = r"""
extern "C" __global__ void numtorch_rnn_seq_grad(
        const T* go, const T* fac, long long step, long long nb, T* dh, T* da) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nb;
            i += (long long)gridDim.x * blockDim.x) {
        const long long s0 = step * nb + i;
        T d = dh[i] + go[s0];
        dh[i] = d;
        da[s0] = d * fac[s0];
    }
}
"""


def rnn_tanh_forward(xs, wt, hs):
    """The tanh Elman layer's forward loop over all steps: ``hs[t + 1]`` (B, H) = tanh(``hs[t]``
    @ ``wt`` + ``xs[t]``), the GEMM then one kernel a step (the xp loop: GEMM, add, tanh).
    False (nothing done that the xp loop does not redo) when the kernel does not apply."""
    steps, bsz, n = xs.shape
    if not steps or not xs.size or not _usable(xs, wt, hs) or hs.shape != (steps + 1, bsz, n):
        return False
    gemm = step_gemm(hs, wt, hs)
    if gemm is None:
        return False
    nb = bsz * n
    grid, block = ((nb + _BLOCK - 1) // _BLOCK,), (_BLOCK,)
    key, make = _raw(_RNN_STEP_SRC, "numtorch_rnn_tanh_step", xs.dtype)
    gemm(0, 0, 1)
    if not _launch(key, make, grid, block, (xs, 0, nb, hs)):
        return False
    kernel = _kernel(key, make)
    for t in range(1, steps):
        gemm(t, 0, t + 1)
        kernel(grid, block, (xs, t, nb, hs))
    return True


def rnn_seq_backward(w, go, fac, dh, da):
    """The Elman layer's backward loop over all steps, last first: ``dh += go[t]``, ``da[t] =
    dh * fac[t]`` in one kernel, then ``dh = da[t] @ w`` into ``dh`` (it is dead by then).
    False (nothing done) when the kernel does not apply."""
    steps, bsz, n = da.shape
    if not steps or not da.size or not _usable(w, go, fac, dh, da) or \
            go.shape != da.shape or fac.shape != da.shape or dh.shape != (bsz, n):
        return False
    gemm = step_gemm(da, w, dh)
    if gemm is None:
        return False
    nb = bsz * n
    grid, block = ((nb + _BLOCK - 1) // _BLOCK,), (_BLOCK,)
    key, make = _raw(_RNN_GRAD_SRC, "numtorch_rnn_seq_grad", da.dtype)
    t = steps - 1
    if not _launch(key, make, grid, block, (go, fac, t, nb, dh, da)):
        return False
    kernel = _kernel(key, make)
    gemm(t, 0, 0)
    for t in range(steps - 2, -1, -1):
        kernel(grid, block, (go, fac, t, nb, dh, da))
        gemm(t, 0, 0)
    return True


# -- the GRU layer ----------------------------------------------------------------------------
_GRU_STEP_SRC = r"""
extern "C" __global__ void numtorch_gru_step(
        const T* xs, const T* gh, const T* bias, long long has_bias, long long step,
        long long n, long long bsz, T* rz, T* nn, T* ghn, T* hs) {
    const long long nb = n * bsz;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nb;
            i += (long long)gridDim.x * blockDim.x) {
        const long long b = i / n, j = i % n, g0 = b * 3 * n + j;
        const long long x0 = step * bsz * 3 * n + g0, s0 = step * nb + i;
        T gr = gh[g0], gz = gh[g0 + n], gn = gh[g0 + 2 * n];
        if (has_bias) {
            gr = gr + bias[j];
            gz = gz + bias[n + j];
            gn = gn + bias[2 * n + j];
        }
        T r = xs[x0] + gr;
        T z = xs[x0 + n] + gz;
        r = r * (T)0.5;
        z = z * (T)0.5;
        r = tanh(r);
        z = tanh(z);
        r = r * (T)0.5;
        z = z * (T)0.5;
        r = r + (T)0.5;
        z = z + (T)0.5;
        rz[step * bsz * 2 * n + b * 2 * n + j] = r;
        rz[step * bsz * 2 * n + b * 2 * n + n + j] = z;
        ghn[s0] = gn;
        T nt = r * gn;
        nt = nt + xs[x0 + 2 * n];
        nt = tanh(nt);
        nn[s0] = nt;
        T h = hs[s0] - nt;
        h = h * z;
        h = h + nt;
        hs[s0 + nb] = h;
    }
}
"""


def gru_forward(xs, wt, bias, hs, rz, nn, ghn):
    """The GRU layer's forward loop over all steps: ``gh = hs[t] @ wt`` (B, 3H) by one cuBLAS
    call, then one kernel doing the xp loop's gate math in its order (bias, the halved-tanh
    sigmoids of r and z into ``rz[t]``, ``ghn[t]``, the candidate ``nn[t]``, the state
    ``hs[t + 1]``). False (nothing done that the xp loop does not redo) when it does not
    apply."""
    steps, bsz, gates = xs.shape
    n = gates // 3
    arrays = (xs, wt, hs, rz, nn, ghn) + (() if bias is None else (bias,))
    if not steps or not xs.size or not _usable(*arrays) or hs.shape != (steps + 1, bsz, n) \
            or rz.shape != (steps, bsz, 2 * n) or nn.shape != (steps, bsz, n) \
            or ghn.shape != nn.shape \
            or wt.shape != (n, gates) or (bias is not None and bias.shape != (gates,)):
        return False
    from . import _cupy

    gh = _cupy.cp.empty((bsz, gates), xs.dtype)
    gemm = step_gemm(hs, wt, gh)
    if gemm is None:
        return False
    has_b, bias = (0, gh) if bias is None else (1, bias)
    grid, block = ((n * bsz + _BLOCK - 1) // _BLOCK,), (_BLOCK,)
    key, make = _raw(_GRU_STEP_SRC, "numtorch_gru_step", xs.dtype)
    gemm(0, 0, 0)
    if not _launch(key, make, grid, block, (xs, gh, bias, has_b, 0, n, bsz, rz, nn, ghn, hs)):
        return False
    kernel = _kernel(key, make)
    for t in range(1, steps):
        gemm(t, 0, 0)
        kernel(grid, block, (xs, gh, bias, has_b, t, n, bsz, rz, nn, ghn, hs))
    return True


# The previous step's tail (``dh = dh_next + dh * z``, after its GEMM) is done at the start of
# the next step's kernel, in the xp code's order.
_GRU_GRAD_SRC = r"""
extern "C" __global__ void numtorch_gru_grad(
        const T* go, const T* fac, const T* facn, const T* rz, long long step, long long last,
        long long n, long long bsz, const T* dcur, T* dold, T* dgh, T* dxn) {
    const long long nb = n * bsz;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nb;
            i += (long long)gridDim.x * blockDim.x) {
        const long long b = i / n, j = i % n, s0 = step * nb + i;
        const long long g0 = step * bsz * 3 * n + b * 3 * n + j;
        T d;
        if (step == last) {
            d = dold[i];
        } else {
            T p = dold[i] * rz[(step + 1) * bsz * 2 * n + b * 2 * n + n + j];
            d = dcur[i] + p;
        }
        d = d + go[s0];
        dold[i] = d;
        dgh[g0] = fac[g0] * d;
        dgh[g0 + n] = fac[g0 + n] * d;
        dgh[g0 + 2 * n] = fac[g0 + 2 * n] * d;
        dxn[s0] = facn[s0] * d;
    }
}
"""


def gru_backward(w, go, fac, facn, rz, dh, dgh, dxn):
    """The GRU layer's backward loop over all steps, last first: one kernel (the previous
    step's ``dh = dh_next + dh * z``, then ``dh += go[t]``, the gate gradients ``dgh[t]`` =
    ``fac[t]`` times dh per gate block and ``dxn[t]`` = ``facn[t] * dh``), then ``dh_next =
    dgh[t] @ w``; after the loop the last tail. ``dh`` (B, H) holds the initial gradient and
    is replaced by the result (returned). None (nothing done) when it does not apply."""
    steps, bsz, gates = dgh.shape
    n = gates // 3
    if not steps or not dgh.size or not _usable(w, go, fac, facn, rz, dh, dgh, dxn) or \
            go.shape != dxn.shape or facn.shape != dxn.shape or fac.shape != dgh.shape or \
            rz.shape != (steps, bsz, 2 * n) or dh.shape != (bsz, n) or w.shape != (gates, n):
        return None
    from . import _cupy

    dcur = _cupy.cp.empty_like(dh)
    gemm = step_gemm(dgh, w, dcur)
    if gemm is None:
        return None
    last = steps - 1
    grid, block = ((n * bsz + _BLOCK - 1) // _BLOCK,), (_BLOCK,)
    key, make = _raw(_GRU_GRAD_SRC, "numtorch_gru_grad", dgh.dtype)
    if not _launch(key, make, grid, block, (go, fac, facn, rz, last, last, n, bsz, dcur, dh,
                                            dgh, dxn)):
        return None
    kernel = _kernel(key, make)
    gemm(last, 0, 0)
    for t in range(last - 1, -1, -1):
        kernel(grid, block, (go, fac, facn, rz, t, last, n, bsz, dcur, dh, dgh, dxn))
        gemm(t, 0, 0)
    dcur += dh * rz[0, :, n:]  # the first step's tail, as the xp loop's
    return dcur


# -- the recurrent GEMM ---------------------------------------------------------------------------
class _StepGemm:
    """``gemm(ta, tb, tc)``: ``c[tc] = a[ta] @ b[tb]`` for C-contiguous device arrays, each
    operand either one fixed matrix (2-D, its step ignored) or a stack whose step ``t`` is a
    matrix (3-D).

    ``cupy.matmul`` on 2-D arrays ends in one ``cublasGemmEx`` call, after ~20 Python-level
    steps (result dtype, compute capability, transposed views, overlap checks) and a view per
    operand; for the same matrices those arguments never change, so they are worked out once
    here and each step passes only its addresses. Where CuPy would not reach ``gemmEx``
    (HIP, compute capability below 5.0, a 1 x 1 result) or the cuBLAS module is missing, the
    steps call ``matmul`` on views instead.
    """

    def __init__(self, a, b, c):
        from . import _cupy

        cp = _cupy.cp
        self.a, self.b, self.c = a, b, c
        a0, b0, c0 = (x if x.ndim == 2 else x[0] for x in (a, b, c))
        item = a.itemsize
        self.a_step, self.b_step, self.c_step = (x.strides[0] if x.ndim == 3 else 0
                                                 for x in (a, b, c))
        plan = _gemm_plan(cp, a.dtype)
        rows, k = a0.shape
        cols = b0.shape[1]
        self.call = None
        if plan is None or (rows == 1 and cols == 1):
            self.matmul = cp.matmul
            return
        cublas, compute, algo = plan
        # CuPy's dot: A^T B as (k, rows) and (k, cols) operands, each given to cuBLAS as it
        # lies (an F-ordered one as is, a C-ordered one transposed), computing C^T = B^T A
        ta, lda = _cublas_layout(a0.T, 0, item)
        tb, ldb = _cublas_layout(b0, 1, item)
        dtype_code = 0 if a.dtype.char == "f" else 1  # CUDA_R_32F, CUDA_R_64F
        self.one = np.ones(1, a.dtype)
        self.zero = np.zeros(1, a.dtype)
        self.call = cublas.gemmEx
        self.handle = cp.cuda.device.get_cublas_handle()
        self.head = (tb, ta, cols, rows, k, self.one.ctypes.data)
        self.b_ptr, self.b_args = b0.data.ptr, (dtype_code, ldb)
        self.a_ptr, self.a_args = a0.data.ptr, (dtype_code, lda, self.zero.ctypes.data)
        self.c_ptr, self.c_args = c0.data.ptr, (dtype_code, cols, compute, algo)

    def __call__(self, ta, tb, tc):
        call = self.call
        if call is None:
            a, b, c = self.a, self.b, self.c
            self.matmul(a if a.ndim == 2 else a[ta], b if b.ndim == 2 else b[tb],
                        out=c if c.ndim == 2 else c[tc])
            return
        call(self.handle, *self.head, self.b_ptr + tb * self.b_step, *self.b_args,
             self.a_ptr + ta * self.a_step, *self.a_args, self.c_ptr + tc * self.c_step,
             *self.c_args)


def step_gemm(a, b, c):
    """The recurrent GEMM of a loop over time on the GPU, its arguments worked out once:
    ``gemm(ta, tb, tc)`` computes ``c[tc] = a[ta] @ b[tb]``, each operand a C-ordered matrix
    (2-D, the same every step) or a C-ordered stack of them (3-D, indexed by the step), as
    ``cupy.matmul`` would (the same cuBLAS call). None when the operands do not suit (the
    caller keeps its ``matmul``)."""
    if not _usable(a, b, c) or not 2 <= min(a.ndim, b.ndim, c.ndim) <= max(
            a.ndim, b.ndim, c.ndim) <= 3 or not a.size or not b.size:
        return None
    rows, k = a.shape[-2:]
    if b.shape[-2] != k or c.shape[-2:] != (rows, b.shape[-1]) or not c.size:
        return None
    return _StepGemm(a, b, c)


def _cublas_layout(m, trans, item):
    """(transpose flag, leading dimension) with which CuPy hands the 2-D operand ``m`` to
    cuBLAS (``_mat_to_cublas_contiguous``): an F-ordered matrix as it is, a C-ordered one as
    its transpose."""
    if m.flags.f_contiguous:
        return trans, max(m.strides[1] // item, m.shape[0])
    return 1 - trans, m.strides[0] // item


def _gemm_plan(cp, dtype):
    """(cuBLAS module, compute type, algorithm) as ``cupy.matmul`` picks them for ``dtype`` on
    the current device, or None where it would not call ``gemmEx`` (cached per device)."""
    name = f"numtorch_rnn_gemm_{dtype.char}{cp.cuda.Device().id}"
    plan = _kernel(name, lambda cp: _make_plan(cp, dtype))
    return plan or None


def _make_plan(cp, dtype):
    cublas = getattr(cp.cuda, "cublas", None)
    if cublas is None or getattr(cp.cuda.runtime, "is_hip", False):
        return False
    cc = int(cp.cuda.Device().compute_capability)
    if cc < 50:
        return False
    # CuPy's compute type for the dtype (cupy._core.set_compute_type, else CUPY_TF32)
    linalg = getattr(getattr(cp, "_core", None), "_routines_linalg", None)
    if linalg is not None:
        kind = linalg.get_compute_type(dtype)
    else:
        kind = 7 if dtype.char == "f" and int(os.environ.get("CUPY_TF32", "0")) > 0 else 1
    if dtype.char == "f":
        compute = (cublas.CUBLAS_COMPUTE_32F_PEDANTIC if kind == 2 else
                   cublas.CUBLAS_COMPUTE_32F_FAST_TF32 if kind == 7 else cublas.CUBLAS_COMPUTE_32F)
    else:
        compute = cublas.CUBLAS_COMPUTE_64F_PEDANTIC if kind == 2 else cublas.CUBLAS_COMPUTE_64F
    algo = cublas.CUBLAS_GEMM_DEFAULT_TENSOR_OP if cc >= 80 else cublas.CUBLAS_GEMM_DEFAULT
    return cublas, compute, algo
