"""Every CUDA kernel numtorch ships, compiled by a real NVRTC, without a GPU.

The stand-in runs a kernel's NumPy reference, never its CUDA source, and numtorch falls back
to its xp code when a kernel fails to compile: a kernel that NVRTC rejects would go unnoticed
in CI and only make the GPU path slower. NVRTC itself needs no device (only CuPy's choice of
``-arch`` asks the driver), so this test builds each kernel's source exactly as CuPy does at
its first launch and compiles it as CuPy does on an H100/H200 (``-arch=sm_90``: NVRTC's
front end, then ptxas to a cubin):

1. a catalogue of workloads (optimizers, convolutions, norms, LSTM, GELU) runs on the
   stand-in, which notes every ``ElementwiseKernel`` it is asked to build (the keyword
   arguments and the numtorch line that built it) and each launch's argument signature;
2. for each (kernel, signature) a real ``cupy.ElementwiseKernel`` is made with the same
   arguments, CuPy's own code generator writes the CUDA source for that signature (the
   ``CArray``/``CIndexer`` parameters, typedefs, per-element references) and NVRTC compiles
   it with CuPy's options (headers, ``--std=c++17``, ``-ftz=true``, the kernel's own);
3. every kernel construction in numtorch's source must have been reached, so a new kernel
   cannot stay out of the catalogue.

Needs ``cupy-cuda13x`` and ``nvidia-cuda-nvrtc`` (the ``nvrtc`` extra); skipped without them.
"""

import ast
import pathlib

import numpy as np
import pytest

import numtorch
from numtorch.backend import _cupy_kernels, _cupy_optim
from tests.cuda import standin
from tests.cuda.standin import _kernels as standin_kernels
from tests.cuda.standin import _raw as standin_raw


def _nvrtc():
    try:
        import cupy
        from cupy.cuda import nvrtc

        nvrtc.getVersion()  # loads libnvrtc
        return cupy
    except Exception:  # noqa: BLE001  (no CuPy, or no NVRTC library next to it)
        return None


cupy = _nvrtc()
pytestmark = pytest.mark.skipif(cupy is None, reason="needs CuPy and NVRTC (the nvrtc extra)")

ARCH = "90"  # H100/H200, the GPUs numtorch's CUDA path is measured on
ROOT = pathlib.Path(numtorch.__file__).parent
KERNEL_CLASSES = {"ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule"}
# _ArgInfo kinds (cupy/_core/_kernel.pxd's _ArgKind)
NDARRAY, INDEXER, SCALAR = 1, 2, 3


# -- 1. the catalogue, on the stand-in -------------------------------------------------------
def _train_optimizers(dtype):
    # 40 parameters: a full chunk of each multi-tensor kernel (its largest source) and a rest
    configs = [("SGD", {}), ("SGD", {"momentum": 0.9, "nesterov": True}),
               ("Adam", {}), ("Adam", {"amsgrad": True}), ("AdamW", {"weight_decay": 0.1}),
               ("RMSprop", {}), ("RMSprop", {"centered": True, "momentum": 0.9}),
               ("RMSprop", {"momentum": 0.9}), ("RMSprop", {"centered": True}),
               ("Adagrad", {})]
    for name, kw in configs:
        ps = [numtorch.nn.Parameter(numtorch.ones(3, dtype=dtype, device="cuda") * (i + 1))
              for i in range(40)]
        opt = getattr(numtorch.optim, name)(ps, lr=0.1, **kw)
        for _ in range(2):
            opt.zero_grad()
            sum((p * p).sum() for p in ps).backward()
            opt.step()


def _train_adam_per_parameter(dtype):
    for kw in ({}, {"amsgrad": True}):
        p = numtorch.nn.Parameter(numtorch.ones(4, dtype=dtype, device="cuda"))
        opt = numtorch.optim.Adam([p], lr=0.1, **kw)
        (p * p).sum().backward()
        opt.step()


def _conv(dtype):
    F = numtorch.nn.functional
    for nd in (1, 2, 3):
        x = numtorch.randn((2, 4) + (6,) * nd, dtype=dtype, device="cuda", requires_grad=True)
        w = numtorch.randn((4, 2) + (3,) * nd, dtype=dtype, device="cuda", requires_grad=True)
        y = getattr(F, f"conv{nd}d")(x, w, stride=2, padding=1, groups=2)
        y.square().sum().backward()


def _norms(dtype):
    nn = numtorch.nn
    x = numtorch.randn(4, 3, 5, 5, dtype=dtype, device="cuda", requires_grad=True)
    nn.BatchNorm2d(3).cuda().to(dtype)(x).square().sum().backward()
    x = numtorch.randn(2, 3, 6, 6, dtype=dtype, device="cuda", requires_grad=True)
    nn.BatchNorm2d(3).cuda().to(dtype)(x).square().sum().backward()  # the warp sums (L >= 32)
    x = numtorch.randn(4, 3, dtype=dtype, device="cuda", requires_grad=True)
    nn.BatchNorm1d(3).cuda().to(dtype)(x).square().sum().backward()  # (N, C): the norm kernels
    x = numtorch.randn(3, 4, 8, dtype=dtype, device="cuda", requires_grad=True)
    for bias in (True, False):
        nn.LayerNorm(8, bias=bias).cuda().to(dtype)(x).square().sum().backward()
    x = numtorch.randn(8, 9, 8, dtype=dtype, device="cuda", requires_grad=True)  # 72 rows
    for bias in (True, False):  # the whole-row kernels (backend/_cupy_rows.py)
        nn.LayerNorm(8, bias=bias).cuda().to(dtype)(x).square().sum().backward()


def _recurrent(dtype):
    nn = numtorch.nn
    x = numtorch.randn(5, 2, 4, dtype=dtype, device="cuda", requires_grad=True)
    out, (h, c) = nn.LSTM(4, 6).cuda().to(dtype)(x)
    (out.square().sum() + c.sum()).backward()
    out, h = nn.RNN(4, 6).cuda().to(dtype)(x)
    (out.square().sum() + h.sum()).backward()
    for bias in (True, False):
        out, h = nn.GRU(4, 6, bias=bias).cuda().to(dtype)(x)
        (out.square().sum() + h.sum()).backward()
    cell = nn.LSTMCell(4, 6).cuda().to(dtype)
    h, c = cell(x[0])
    (h.square().sum() + c.sum()).backward()


def _gelu(dtype):
    x = numtorch.randn(3, 5, dtype=dtype, device="cuda", requires_grad=True)
    numtorch.nn.functional.gelu(x).square().sum().backward()


def _losses(dtype):
    x = numtorch.randn(6, 4, dtype=dtype, device="cuda", requires_grad=True)
    t = numtorch.tensor([0, 3, 1, 2, 2, 1], device="cuda")
    w = numtorch.rand(4, dtype=dtype, device="cuda")
    for reduction in ("mean", "none"):
        loss = numtorch.nn.functional.cross_entropy(x, t, weight=w, reduction=reduction)
        loss.sum().backward()


def _pools(dtype):
    F = numtorch.nn.functional
    for nd, kw in ((1, dict(kernel_size=3, stride=2, padding=1)), (2, dict(kernel_size=2)),
                   (3, dict(kernel_size=2, stride=1))):
        x = numtorch.randn((2, 3) + (6,) * nd, dtype=dtype, device="cuda", requires_grad=True)
        getattr(F, f"max_pool{nd}d")(x, **kw).square().sum().backward()


def _attention(dtype):
    nn = numtorch.nn
    x = numtorch.randn(2, 5, 8, dtype=dtype, device="cuda", requires_grad=True)
    mha = nn.MultiheadAttention(8, 2, batch_first=True).cuda().to(dtype)
    out, w = mha(x, x, x)  # packed projections, the weights returned
    (out.square().sum() + w.sum()).backward()
    mask = numtorch.zeros(5, 5, dtype=dtype, device="cuda").masked_fill(
        numtorch.ones(5, 5, dtype=numtorch.bool, device="cuda").triu(1), float("-inf"))
    mask.requires_grad_(True)  # a float mask's gradient: the unscaled kernel
    mem = numtorch.randn(2, 4, 8, dtype=dtype, device="cuda")
    out, _ = mha(x, mem, mem, need_weights=False)
    out.sum().backward()
    out, _ = mha(x, x, x, attn_mask=mask, need_weights=False)
    out.sum().backward()
    y = numtorch.nn.functional.softmax(x, -1)  # the last-dim softmax kernels
    (y * y).sum().backward()
    q = x.reshape(2, 5, 2, 4).transpose(1, 2)  # scaled_dot_product_attention, causal
    numtorch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True).sum().backward()


WORKLOADS = [_train_optimizers, _train_adam_per_parameter, _conv, _norms, _recurrent, _gelu,
             _losses, _pools, _attention]


@pytest.fixture(scope="module")
def launched():
    """The stand-in's record of the kernels the catalogue built and launched."""
    standin_kernels.LAUNCHED.clear()
    standin_kernels.BUILT_AT.clear()
    standin_raw.BUILT.clear()
    with standin.active():
        _cupy_kernels.FAILED.clear()
        _cupy_kernels._KERNELS.clear()
        numtorch.manual_seed(0)
        for dtype in (numtorch.float32, numtorch.float64):
            for run in WORKLOADS:
                run(dtype)
        saved = _cupy_optim._usable
        _cupy_optim._usable = lambda groups: False  # the per-parameter Adam kernels
        try:
            for dtype in (numtorch.float32, numtorch.float64):
                _train_adam_per_parameter(dtype)
        finally:
            _cupy_optim._usable = saved
            _cupy_kernels.FAILED.clear()
            _cupy_kernels._KERNELS.clear()
    return dict(standin_kernels.LAUNCHED), set(standin_kernels.BUILT_AT), set(standin_raw.BUILT)


# -- 2. CuPy's source for a signature, compiled ------------------------------------------------
def _arginfos(kernel, sig, ndim):
    """CuPy's ``_ArgInfo`` of each argument of a launch with signature ``sig`` over a loop of
    ``ndim`` dims, after CuPy's dimension reduction (contiguous non-raw arrays of one loop
    shape collapse to one dim)."""
    from cupy._core import _carray, _kernel, _scalar

    params = kernel.params[:-1]
    loose = [s for p, s in zip(params, sig) if s[0] == "array" and not p.raw]
    if kernel.reduce_dims and ndim > 1 and all(s[3] for s in loose):
        ndim = 1
    infos = []
    for p, s in zip(params, sig):
        if s[0] == "scalar":
            infos.append(_kernel._ArgInfo(SCALAR, _scalar.CScalar, np.dtype(s[1]), 0, True,
                                          True))
        else:
            _, dt, nd, contiguous = s
            if not p.raw:
                nd, contiguous = ndim, contiguous or ndim <= 1
            infos.append(_kernel._ArgInfo(NDARRAY, cupy.ndarray, np.dtype(dt), nd, contiguous,
                                          True))
    infos.append(_kernel._ArgInfo(INDEXER, _carray.Indexer, None, ndim, True, True))
    return tuple(infos)


def _source(kernel, sig, bound, ndim):
    """The CUDA source and NVRTC options CuPy compiles for this launch."""
    from cupy._core import _kernel, core

    types = _kernel._TypeMap(tuple((k, np.dtype(v)) for k, v in bound))
    code = _kernel._get_elementwise_kernel_code(_arginfos(kernel, sig, ndim), types,
                                                kernel.params, kernel.operation, kernel.name,
                                                kernel.preamble, **kernel.kwargs)
    source = "\n".join(f"#include <{h}>" for h in core._cupy_header_list) + code
    options = core.assemble_cupy_compiler_options(tuple(kernel.kwargs.get("options", ())))
    return source, options + ("-ftz=true", f"-arch=sm_{ARCH}",
                              "--device-as-default-execution-space")


def compile_kernel(kernel, sig, bound, ndim):
    """Compile one launch's kernel to a cubin; an AssertionError with NVRTC's log and the
    source when NVRTC refuses it."""
    from cupy.cuda import compiler

    source, options = _source(kernel, sig, bound, ndim)
    prog = compiler._NVRTCProgram(source, f"{kernel.name}.cu", method="cubin")
    try:
        cubin, _ = prog.compile(options)
    except compiler.CompileException as e:
        raise AssertionError(f"NVRTC rejects {kernel.name} {sig}:\n{e.get_message()}\n"
                             f"{source}") from None
    assert cubin[:4] == b"\x7fELF" and kernel.name.encode() in cubin
    return cubin


def _real(built_with):
    return cupy.ElementwiseKernel(**dict(built_with))


def test_every_launched_kernel_compiles(launched):
    kernels, _, _ = launched
    names = {dict(b)["name"] for b in kernels}
    # what the catalogue is there for: each family of numtorch's kernels
    for want in ("numtorch_multi_sgd", "numtorch_multi_adam", "numtorch_multi_rmsprop",
                 "numtorch_multi_adagrad", "numtorch_adam_update", "numtorch_adam_amsgrad_update",
                 "numtorch_im2col1", "numtorch_im2col2", "numtorch_im2col3", "numtorch_col2im",
                 "numtorch_norm_invstd", "numtorch_norm_apply", "numtorch_norm_grad_stats",
                 "numtorch_norm_grad_input", "numtorch_rows_center", "numtorch_rows_affine",
                 "numtorch_rows_grad", "numtorch_lstm_cell", "numtorch_gelu_erf",
                 "numtorch_gelu_slope",
                 "numtorch_ce_exp", "numtorch_ce_rows", "numtorch_loss_mean", "numtorch_ce_grad",
                 "numtorch_max_pool", "numtorch_max_pool_grad", "numtorch_running_stats"):
        assert want in names
    compiled = 0
    for built_with, sigs in kernels.items():
        kernel = _real(built_with)
        for sig, bound, ndim in sorted(sigs):
            compile_kernel(kernel, sig, bound, ndim)
            compiled += 1
    assert compiled >= 2 * len(names)  # float32 and float64 at least


def compile_raw(code, name, options):
    """Compile a ``RawKernel``'s source as CuPy does (``compile_with_cache``: its options plus
    CuPy's, ``-ftz=true``) for sm_90; an AssertionError with NVRTC's log when it refuses."""
    from cupy._core import core
    from cupy.cuda import compiler

    opts = core.assemble_cupy_compiler_options(options) + ("-ftz=true", f"-arch=sm_{ARCH}")
    prog = compiler._NVRTCProgram(code, f"{name}.cu", method="cubin")
    try:
        cubin, _ = prog.compile(opts)
    except compiler.CompileException as e:
        raise AssertionError(f"NVRTC rejects {name}:\n{e.get_message()}\n{code}") from None
    assert cubin[:4] == b"\x7fELF" and name.encode() in cubin
    return cubin


def test_every_raw_kernel_compiles(launched):
    _, _, raw = launched
    names = {name for _, name, _ in raw}
    assert {"numtorch_lstm_seq_step", "numtorch_lstm_seq_grad", "numtorch_lstm_gate_rows",
            "numtorch_rnn_tanh_step", "numtorch_rnn_seq_grad", "numtorch_gru_step",
            "numtorch_gru_grad",
            "numtorch_ln_forward",
            "numtorch_ln_grad_rows", "numtorch_ln_grad_cols_part", "numtorch_ln_grad_cols",
            "numtorch_attn_softmax", "numtorch_attn_softmax_grad", "numtorch_softmax_rows",
            "numtorch_softmax_rows_grad"} <= names
    for code, name, options in sorted(raw):
        compile_raw(code, name, options)
    assert len(raw) >= 2 * len(names)  # float32 and float64 at least


def test_nvrtc_reports_an_error_in_a_raw_kernel():
    code = 'extern "C" __global__ void numtorch_bad(float* y) { y[0] = undeclared_name; }'
    with pytest.raises(AssertionError, match="undeclared_name"):
        compile_raw(code, "numtorch_bad", ())


def test_jiterator_wrapper_compiles():
    from numtorch.cuda import jiterator

    fn = jiterator._create_jit_fn(
        "template <typename T> T my_fused(T x, T y, T alpha) { return -x + alpha * y; }",
        alpha=1.0)
    made = {}

    class Recorder:  # the jiterator builds its kernel through CuPy's class
        def ElementwiseKernel(self, *args, **kwargs):
            made["k"] = cupy.ElementwiseKernel(*args, **kwargs)
            return made["k"]

    import numtorch.backend as backend

    saved = backend.cupy_or_none
    backend.cupy_or_none = lambda: Recorder()
    try:
        fn._kernel(2)
    finally:
        backend.cupy_or_none = saved
    for dt in ("<f4", "<f8"):
        sig = (("array", dt, 1, True),) * 3 + (("array", dt, 1, True),)
        compile_kernel(made["k"], sig, (("T", dt),), 1)


def test_nvrtc_reports_an_error_in_a_kernel():
    """The check can fail: a body with a type error is refused with NVRTC's message."""
    bad = cupy.ElementwiseKernel("T x", "T y", "y = x + undeclared_name;", "numtorch_bad")
    sig = (("array", "<f4", 1, True), ("array", "<f4", 1, True))
    with pytest.raises(AssertionError, match="undeclared_name"):
        compile_kernel(bad, sig, (("T", "<f4"),), 1)


# -- 3. every kernel numtorch builds is in the catalogue ---------------------------------------
def _construction_sites():
    sites = set()
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in KERNEL_CLASSES):
                sites.add((str(path), node.lineno))
    return sites


def test_every_kernel_construction_is_compiled(launched):
    _, built_at, _ = launched
    sites = _construction_sites()
    assert len(sites) >= 26
    jiterator = {s for s in sites if s[0].endswith("jiterator.py")}  # its own test above
    missing = sorted(sites - built_at - jiterator)
    assert not missing, f"kernels no workload of this test builds: {missing}"
