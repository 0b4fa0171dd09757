"""Session 48 (programs): torch.utils.flop_counter's counts (which products torch counts, under
which operator, forward and backward) and torch.utils.cpp_extension in a framework that builds
no native code, each checked against torch at test time."""

import numpy as np
import pytest
import torch
import torch.utils.cpp_extension as _tce
import torch.utils.flop_counter  # a submodule torch does not import

import numtorch
import numtorch.utils.cpp_extension as _nce
import numtorch.utils.flop_counter


def _counts(L, fn, specs):
    """Global flop counts of ``fn(*tensors)`` (and its backward when anything needs grad):
    ``{op name: flops}`` and the total."""
    g = L.Generator().manual_seed(0)
    ts = [L.randn(*shape, generator=g, requires_grad=grad) for shape, grad in specs]
    with L.utils.flop_counter.FlopCounterMode(display=False) as fc:
        out = fn(L, *ts)
        if out.requires_grad:
            out.sum().backward()
    glob = fc.get_flop_counts().get("Global", {})
    return {str(k): v for k, v in glob.items()}, fc.get_total_flops()


def _F(L):
    return L.nn.functional


_T, _N = True, False
_MATMUL_SHAPES = [((1, 2, 6), (3, 6, 7)), ((3, 2, 6), (1, 6, 7)), ((2, 6), (3, 6, 7)),
                  ((3, 2, 6), (6, 7)), ((2, 1, 2, 6), (3, 6, 7)), ((6,), (6, 7)),
                  ((6,), (3, 6, 7)), ((2, 6), (1, 6, 7)), ((1, 1, 2, 6), (1, 6, 7)),
                  ((3, 2, 6), (3, 6, 7)), ((1, 2, 6), (1, 6, 7)), ((3, 2, 6), (6,))]
_CASES = {}
for _sa, _sb in _MATMUL_SHAPES:
    for _ga in (_N, _T):
        for _gb in (_N, _T):
            _CASES[f"matmul-{_sa}{'g' if _ga else ''}-{_sb}{'g' if _gb else ''}"] = (
                lambda L, a, b: L.matmul(a, b), [(_sa, _ga), (_sb, _gb)])
_CASES.update({
    "matmul-transposed-batch": (lambda L, a, b: L.matmul(a.transpose(0, 1), b),
                                [((2, 3, 6), _N), ((6, 7), _N)]),
    "addmm": (lambda L, b, x, w: L.addmm(b, x, w), [((6,), _N), ((2, 4), _T), ((4, 6), _T)]),
    "addmm-nograd": (lambda L, b, x, w: L.addmm(b, x, w), [((6,), _N), ((2, 4), _N),
                                                           ((4, 6), _N)]),
    "baddbmm": (lambda L, b, x, w: L.baddbmm(b, x, w),
                [((3, 2, 7), _N), ((3, 2, 6), _T), ((3, 6, 7), _T)]),
    "addbmm": (lambda L, b, x, w: L.addbmm(b, x, w),
               [((2, 7), _N), ((3, 2, 6), _T), ((3, 6, 7), _N)]),
    "einsum-bmm": (lambda L, a, b: L.einsum("bij,bjk->bik", a, b),
                   [((3, 2, 6), _T), ((3, 6, 7), _T)]),
    "einsum-outer": (lambda L, a, b: L.einsum("i,j->ij", a, b), [((6,), _T), ((5,), _T)]),
    "einsum-summed-label": (lambda L, a, b: L.einsum("ij,jk->k", a, b),
                            [((2, 6), _T), ((6, 7), _T)]),
    "einsum-chain-3": (lambda L, a, b, c: L.einsum("ij,jk,kl->il", a, b, c),
                       [((2, 6), _T), ((6, 7), _T), ((7, 3), _T)]),
    "einsum-chain-3-right-first": (lambda L, a, b, c: L.einsum("ij,jk,kl->il", a, b, c),
                                   [((2, 60), _N), ((60, 7), _T), ((7, 30), _N)]),
    "einsum-4-batched": (lambda L, a, b, c, d: L.einsum("bi,ij,jk,bk->b", a, b, c, d),
                         [((4, 5), _T), ((5, 6), _T), ((6, 7), _N), ((4, 7), _T)]),
    "einsum-3-batch-dims": (lambda L, a, b, c: L.einsum("bij,bjk,bkl->bil", a, b, c),
                            [((3, 2, 6), _T), ((3, 6, 7), _T), ((3, 7, 3), _T)]),
    "einsum-3-outer": (lambda L, a, b, c: L.einsum("i,j,k->ijk", a, b, c),
                       [((2,), _T), ((3,), _T), ((4,), _T)]),
    "einsum-3-trace": (lambda L, a, b, c: L.einsum("ij,jk,ki->", a, b, c),
                       [((3, 4), _T), ((4, 5), _T), ((5, 3), _T)]),
    "bilinear": (lambda L, x, y, w: _F(L).bilinear(x, y, w),
                 [((3, 4), _T), ((3, 5), _T), ((2, 4, 5), _T)]),
    "linear-1d": (lambda L, x, w, b: _F(L).linear(x, w, b), [((4,), _T), ((5, 4), _T),
                                                              ((5,), _T)]),
    "linear-4d": (lambda L, x, w, b: _F(L).linear(x, w, b),
                  [((2, 3, 2, 4), _T), ((5, 4), _T), ((5,), _T)]),
    "linear-3d-noncontiguous": (lambda L, x, w, b: _F(L).linear(x.transpose(0, 1), w, b),
                                [((3, 2, 4), _T), ((5, 4), _T), ((5,), _T)]),
    "linear-4d-noncontiguous": (lambda L, x, w, b: _F(L).linear(x.transpose(0, 1), w, b),
                                [((3, 2, 5, 4), _N), ((6, 4), _T), ((6,), _N)]),
    "linear-nobias-3d": (lambda L, x, w: _F(L).linear(x, w), [((3, 2, 4), _N), ((5, 4), _N)]),
    "conv-grouped": (lambda L, x, w: _F(L).conv2d(x, w, groups=2),
                     [((2, 4, 6, 6), _T), ((6, 2, 3, 3), _T)]),
    "conv-grouped-weight-only": (lambda L, x, w: _F(L).conv2d(x, w, groups=2, stride=2),
                                 [((2, 4, 6, 6), _N), ((6, 2, 3, 3), _T)]),
    "conv-depthwise-1d": (lambda L, x, w: _F(L).conv1d(x, w, groups=4, padding=1),
                          [((2, 4, 9), _T), ((4, 1, 3), _T)]),
    "conv-transposed-grouped": (lambda L, x, w: _F(L).conv_transpose2d(x, w, groups=2,
                                                                         stride=2),
                                [((2, 4, 5, 5), _T), ((4, 3, 3, 3), _T)]),
})
_SDPA = {
    "4d": ({}, [(2, 2, 5, 4)] * 3),
    "4d-causal": ({"is_causal": True}, [(2, 2, 5, 4)] * 3),
    "4d-dropout": ({"dropout_p": 0.5}, [(2, 2, 5, 4)] * 3),
    "3d": ({}, [(2, 5, 4)] * 3),
    "2d": ({}, [(5, 4)] * 3),
    "5d": ({}, [(2, 2, 2, 5, 4)] * 3),
    "4d-broadcast-batch": ({}, [(2, 2, 5, 4), (1, 2, 5, 4), (1, 2, 5, 4)]),
    "4d-value-head-size": ({}, [(2, 2, 5, 4), (2, 2, 6, 4), (2, 2, 6, 3)]),
    "4d-gqa": ({"enable_gqa": True}, [(2, 4, 5, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
    "4d-gqa-dropout": ({"enable_gqa": True, "dropout_p": 0.3},
                       [(2, 4, 5, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
}
for _name, (_kw, _shapes) in _SDPA.items():
    for _grads in ((_T, _T, _T), (_N, _N, _T), (_T, _N, _N), (_N, _N, _N)):
        _CASES[f"sdpa-{_name}-{''.join('g' if g else '-' for g in _grads)}"] = (
            lambda L, q, k, v, _kw=_kw: _F(L).scaled_dot_product_attention(q, k, v, **_kw),
            list(zip(_shapes, _grads)))
_CASES["sdpa-mask"] = (
    lambda L, q, k, v, m: _F(L).scaled_dot_product_attention(q, k, v, attn_mask=m),
    [((2, 2, 5, 4), _T), ((2, 2, 5, 4), _T), ((2, 2, 5, 4), _T), ((5, 5), _N)])
_CASES["sdpa-query-last-dim-strided"] = (
    lambda L, q, k, v: _F(L).scaled_dot_product_attention(q.transpose(-1, -2), k, v),
    [((2, 2, 4, 5), _T), ((2, 2, 5, 4), _T), ((2, 2, 5, 4), _T)])


@pytest.mark.parametrize("case", list(_CASES))
def test_flop_counts_by_operator(case):
    fn, specs = _CASES[case]
    assert _counts(numtorch, fn, specs) == _counts(torch, fn, specs)


def _mha(L, batch_first, need_weights, dropout=0.0, cross=False):
    L.manual_seed(0)
    m = L.nn.MultiheadAttention(8, 2, dropout=dropout, batch_first=batch_first)
    x = L.randn(2, 3, 8)
    y = (L.randn(2, 5, 8) if batch_first else L.randn(5, 3, 8)) if cross else x
    with L.utils.flop_counter.FlopCounterMode(display=False) as fc:
        m(x, y, y, need_weights=need_weights)[0].sum().backward()
    return {str(k): v for k, v in fc.get_flop_counts()["Global"].items()}


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("cross", [False, True])
def test_flop_counts_multihead_attention(batch_first, need_weights, cross):
    """torch projects the merged heads with one addmm (2-D rows)."""
    args = (batch_first, need_weights, 0.0, cross)
    assert _mha(numtorch, *args) == _mha(torch, *args)


def test_flop_counts_multihead_attention_dropout():
    assert _mha(numtorch, False, False, 0.5) == _mha(torch, False, False, 0.5)


def _model_counts(L, kind):
    L.manual_seed(0)
    nn = L.nn
    if kind == "mlp":
        model, x = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8, bias=False),
                                 nn.GELU(), nn.Linear(8, 4)), L.randn(2, 5, 16)
    elif kind == "cnn":
        model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                              nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, stride=2, groups=2),
                              nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                              nn.Linear(16, 10))
        x = L.randn(2, 3, 16, 16, requires_grad=True)
    else:
        layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        model, x = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), L.randn(2, 6, 16)
    with L.utils.flop_counter.FlopCounterMode(display=False) as fc:
        model(x).sum().backward()
    counts = fc.get_flop_counts()
    # per module, the forward counts (torch charges some backward products to modules that
    # are still open in its backward module tracker, e.g. a dropout that returns its input)
    return fc.get_total_flops(), {str(k): v for k, v in counts["Global"].items()}


@pytest.mark.parametrize("kind", ["mlp", "cnn", "transformer"])
def test_flop_counts_models(kind):
    assert _model_counts(numtorch, kind) == _model_counts(torch, kind)


def _mha_outcome(L, need_weights, bias_kv):
    L.manual_seed(0)
    m = L.nn.MultiheadAttention(8, 2, add_bias_kv=bias_kv)
    try:
        return tuple(m(L.randn(2, 3, 8), *[L.randn(2, 5, 8)] * 2,
                       need_weights=need_weights)[0].shape)
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("bias_kv", [False, True])
def test_multihead_attention_keys_of_another_batch_size(need_weights, bias_kv):
    """Keys and values whose batch size differs from the query's: torch's error."""
    args = (need_weights, bias_kv)
    assert _mha_outcome(numtorch, *args) == _mha_outcome(torch, *args)


# -- torch.utils.cpp_extension: describing a build works, building native code raises ---------

def _ce_outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)


def _described(e):
    return (type(e).__mro__[-2].__name__, e.name, e.sources, e.language, e.extra_compile_args,
            e.define_macros)


_CE_CASES = {
    "all": lambda ce: sorted(ce.__all__),
    "cuda-extension": lambda ce: ce.CUDAExtension("c", ["a.cu"]),
    "sycl-extension": lambda ce: ce.SyclExtension("s", ["a.sycl"]),
    "include-paths-cuda": lambda ce: ce.include_paths("cuda"),
    "library-paths-cuda": lambda ce: ce.library_paths("cuda"),
    "cpp-extension": lambda ce: _described(ce.CppExtension(
        "foo", ["foo.cpp"], extra_compile_args=["-O2"], define_macros=[("A", "1")])),
    "build-root": lambda ce: ce.get_default_build_root(),
    "constants": lambda ce: (ce.CUDA_HOME, ce.ROCM_HOME, ce.IS_HIP_EXTENSION, ce.IS_LINUX,
                             ce.IS_WINDOWS, ce.LIB_EXT),
    "cxx": lambda ce: ce.get_cxx_compiler(),
    "gcc": lambda ce: ce.check_compiler_is_gcc(ce.get_cxx_compiler()),
    "abi": lambda ce: ce.get_compiler_abi_compatibility_and_version(ce.get_cxx_compiler()),
    "abi-missing-compiler": lambda ce: ce.get_compiler_abi_compatibility_and_version(
        "no-such-compiler-s48"),
    "ninja": lambda ce: ce.is_ninja_available(),
    "build-extension-base": lambda ce: [c.__name__ for c in ce.BuildExtension.__mro__[1:3]],
    "with-options": lambda ce: ce.BuildExtension.with_options(use_ninja=False).__mro__[1]
    is ce.BuildExtension,
}


@pytest.mark.parametrize("case", list(_CE_CASES))
def test_cpp_extension_matches_torch(case):
    fn = _CE_CASES[case]
    assert _ce_outcome(lambda: fn(_nce)) == _ce_outcome(lambda: fn(_tce))


def test_cpp_extension_paths_are_lists():
    assert _nce.include_paths() == [] and _nce.library_paths() == []
    assert isinstance(_tce.include_paths(), list)


@pytest.mark.parametrize("how", ["load", "load_inline"])
def test_cpp_extension_build_raises_torch_build_error(how, tmp_path):
    """torch compiles here; numtorch cannot, and says so with torch's class of build error (a
    program's ``except RuntimeError`` fallback then runs)."""
    with pytest.raises(RuntimeError, match="Error building extension 'ext_s48'.*cannot be "
                                           "built or loaded"):
        if how == "load":
            _nce.load("ext_s48", [str(tmp_path / "a.cpp")], build_directory=str(tmp_path))
        else:
            _nce.load_inline("ext_s48", "int f(int x) { return x; }", functions=["f"],
                             build_directory=str(tmp_path))


def test_cpp_extension_setup_build_raises(tmp_path):
    from setuptools import Distribution

    dist = Distribution({"name": "ext_s48", "ext_modules": [
        _nce.CppExtension("ext_s48", [str(tmp_path / "a.cpp")])],
        "cmdclass": {"build_ext": _nce.BuildExtension}})
    cmd = dist.get_command_obj("build_ext")
    cmd.build_lib, cmd.build_temp = str(tmp_path / "lib"), str(tmp_path / "tmp")
    cmd.ensure_finalized()
    with pytest.raises(RuntimeError, match="Error building extension 'ext_s48'"):
        cmd.run()


def test_cpp_extension_import_under_torch_name(tmp_path):
    import subprocess
    import sys

    prog = tmp_path / "p.py"
    prog.write_text("import torch.utils.cpp_extension as ce\n"
                    "from torch.utils.cpp_extension import BuildExtension, CppExtension\n"
                    "try:\n    ce.load_inline('x', '')\nexcept RuntimeError as e:\n"
                    "    print('fallback', type(e).__name__)\n")
    out = subprocess.run([sys.executable, "-m", "numtorch.run", str(prog)], capture_output=True,
                         text=True, timeout=60, check=False)
    assert out.stdout.strip() == "fallback RuntimeError", out.stderr


# -- torch.utils._python_dispatch.TorchDispatchMode ---------------------------------------------
_PRODUCTS = ("mm", "addmm", "bmm", "mv", "dot", "convolution")


def _dispatch_log(L, fn):
    """The products a dispatch mode sees while ``fn(L, R)`` runs: (operator, argument shapes
    or values, result shape), and the result's shape."""
    from importlib import import_module

    base = import_module(L.__name__ + ".utils._python_dispatch").TorchDispatchMode

    class Log(base):
        def __init__(self):
            super().__init__()
            self.log = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if func._overloadpacket.__name__ in _PRODUCTS:
                self.log.append((str(func), [tuple(a.shape) if isinstance(a, L.Tensor) else a
                                             for a in args], tuple(out.shape)))
            return out

    g = L.Generator().manual_seed(0)

    def R(*shape, grad=False):
        return L.randn(*shape, generator=g, requires_grad=grad)

    with Log() as mode:
        out = fn(L, R)
    return mode.log, tuple(out.shape)


_DISPATCH = {
    "mm": lambda L, R: R(2, 6) @ R(6, 7),
    "fold-left": lambda L, R: R(3, 2, 6) @ R(6, 7, grad=True),
    "fold-right-transposed": lambda L, R: R(2, 6, grad=True) @ R(3, 6, 7),
    "bmm-broadcast": lambda L, R: R(1, 2, 6) @ R(3, 6, 7),
    "batch-of-one": lambda L, R: R(3, 2, 6) @ R(1, 6, 7),
    "vector-left": lambda L, R: R(6) @ R(3, 6, 7),
    "vector-right": lambda L, R: R(3, 2, 6) @ R(6),
    "vector-left-fold": lambda L, R: R(6, grad=True) @ R(3, 6, 7),
    "dot": lambda L, R: R(6) @ R(6),
    "4d": lambda L, R: R(2, 1, 2, 6) @ R(3, 6, 7),
    "linear": lambda L, R: L.nn.functional.linear(R(2, 3, 4), R(5, 4), R(5)),
    "linear-1d": lambda L, R: L.nn.functional.linear(R(4), R(5, 4), R(5)),
    "linear-noncontiguous": lambda L, R: L.nn.functional.linear(
        R(3, 2, 4).transpose(0, 1), R(5, 4, grad=True), R(5)),
    "linear-nobias": lambda L, R: L.nn.functional.linear(R(2, 3, 4), R(5, 4, grad=True)),
    "conv": lambda L, R: L.nn.functional.conv2d(R(1, 2, 6, 6), R(3, 2, 3, 3), R(3), stride=2,
                                                padding=1),
    "conv-transposed": lambda L, R: L.nn.functional.conv_transpose2d(
        R(1, 2, 5, 5), R(2, 3, 3, 3), stride=2, padding=1, output_padding=1),
    "conv1d-groups": lambda L, R: L.nn.functional.conv1d(R(2, 4, 9), R(4, 2, 3), groups=2,
                                                         dilation=2),
}


@pytest.mark.parametrize("case", list(_DISPATCH))
def test_dispatch_mode_sees_torch_operators(case):
    fn = _DISPATCH[case]
    assert _dispatch_log(numtorch, fn) == _dispatch_log(torch, fn)


def _dispatch_program(L):
    from importlib import import_module

    pd = import_module(L.__name__ + ".utils._python_dispatch")

    class Count(pd.TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.n = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.n += 1
            return func(*args, **(kwargs or {}))

    class ZeroMM(pd.TorchDispatchMode):  # no super().__init__ (ptflops' modes skip it)
        def __init__(self):
            self.seen = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.seen.append(pd._get_current_dispatch_mode() is None)
            if func == L.ops.aten.mm.default:
                return L.zeros(args[0].shape[0], args[1].shape[1])
            return func(*args, **(kwargs or {}))

    L.manual_seed(0)
    model = L.nn.Sequential(L.nn.Linear(4, 8), L.nn.ReLU(), L.nn.Linear(8, 2, bias=False))
    x = L.randn(3, 4)
    ref = model(x)
    with Count() as c:
        y = model(x)
    y.sum().backward()
    grads = [p.grad.sum().item() for p in model.parameters()]
    with Count() as outer:
        stack_inside = len(pd._get_current_dispatch_mode_stack())
        with ZeroMM() as inner:
            zero = model(x)
        current = pd._get_current_dispatch_mode() is outer
    return (L.equal(ref, y), c.n > 0, y.requires_grad, [round(g, 4) for g in grads],
            zero.abs().sum().item(), stack_inside, current, outer.n > 0, all(inner.seen),
            pd._get_current_dispatch_mode() is None, pd.is_in_torch_dispatch_mode())


def test_dispatch_mode_program():
    """Results and gradients through a mode; nesting (a mode is off inside its own
    __torch_dispatch__; ops it runs go to the mode outside); a mode replacing a result."""
    assert _dispatch_program(numtorch) == _dispatch_program(torch)


def test_aten_operators_survive_deepcopy():
    """Dicts keyed by torch.ops.aten operators (ptflops' tables) are deep-copied."""
    import copy

    for L in (numtorch, torch):
        table = {L.ops.aten.mm: 1, L.ops.aten.addmm.default: 2}
        assert copy.deepcopy(table) == table
        assert L.ops.aten.mm.default._overloadpacket is L.ops.aten.mm


def test_aten_underscore_convolution():
    def run(L):
        g = L.Generator().manual_seed(0)
        x, w = L.randn(1, 2, 5, 5, generator=g), L.randn(3, 2, 3, 3, generator=g)
        return L.ops.aten._convolution.default(x, w, None, [1, 1], [1, 1], [1, 1], False,
                                               [0, 0], 1, False, False, True, True)

    assert np.allclose(run(numtorch).numpy(), run(torch).numpy(), atol=1e-5)


def test_batch_norm_eval_calls_no_public_add():
    """ptflops counts calls of a patched Tensor.add: torch's batch norm makes none."""
    def calls(L):
        L.manual_seed(0)
        bn = L.nn.BatchNorm2d(4).eval()
        orig, n = L.Tensor.add, []

        def add(self, *args, **kwargs):
            n.append(1)
            return orig(self, *args, **kwargs)

        L.Tensor.add = add
        try:
            out = bn(L.randn(2, 4, 3, 3))
            out = L.nn.functional.rms_norm(out, (3,), eps=1e-5)
        finally:
            L.Tensor.add = orig
        return len(n), round(out.sum().item(), 3)

    assert calls(numtorch) == calls(torch)


_WARN_TWICE = """
import warnings
import torch
def warn():
    warnings.warn("once per place")
p = torch.nn.Parameter(torch.ones(20000))
opt = torch.optim.Adam([p], lr=0.1)
warn()
p.grad = torch.ones(20000)
opt.step()
torch.nn.functional.gelu(torch.ones(40, dtype=torch.float16))
(torch.eye(3).to_sparse() @ torch.ones(3, 2)).sum()
torch.linalg.ldl_factor(torch.eye(3, dtype=torch.float64) * 2)
warn()
"""


def test_lazy_scipy_import_keeps_warnings_shown_once(tmp_path):
    """numtorch imports SciPy on first use (the optimizer step's BLAS, erf, sparse, LAPACK);
    SciPy's import changes the warning filters, which made Python forget which warnings it had
    shown: a program saw its warnings twice, where torch shows each once."""
    import subprocess
    import sys

    prog = tmp_path / "warn_twice.py"
    prog.write_text(_WARN_TWICE)
    counts = []
    for cmd in ([sys.executable, str(prog)], [sys.executable, "-m", "numtorch.run", str(prog)]):
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 0, out.stderr
        counts.append(out.stderr.count("UserWarning: once per place"))
    assert counts[1] == counts[0] == 1


def _table(L, case, depth):
    L.manual_seed(0)
    nn = L.nn
    m = nn.Sequential(nn.Linear(16, 32), nn.ReLU(),
                      nn.Sequential(nn.Linear(32, 8), nn.Linear(8, 2000)))
    with L.utils.flop_counter.FlopCounterMode(display=False, depth=depth) as fc:
        if case in ("model", "mixed"):
            m(L.randn(50, 16)).sum().backward()
        if case in ("global", "mixed"):
            L.randn(3, 4) @ L.randn(4, 5)
        if case == "big":
            L.randn(100, 300) @ L.randn(300, 400)
        if case == "empty":
            L.randn(3).sum()
    return fc.get_table(), fc.get_table(1)


@pytest.mark.parametrize("case", ["model", "global", "mixed", "big", "empty"])
@pytest.mark.parametrize("depth", [2, 3])
def test_flop_counter_table_matches_torch(case, depth):
    """get_table's text: units of the total, Global shown only for flops outside modules,
    depth, alignment."""
    assert _table(numtorch, case, depth) == _table(torch, case, depth)


def _custom_op_counts(L, ns):
    from importlib import import_module

    fcm = import_module(L.__name__ + ".utils.flop_counter")

    @L.library.custom_op(f"{ns}::scale", mutates_args=())
    def scale(a: L.Tensor, f: float) -> L.Tensor:
        return (a @ a.t()) * f

    counts = []
    with fcm.FlopCounterMode(display=False) as fc:  # no formula: opaque, counts nothing
        scale(L.randn(2, 3), 2.0)
    counts.append(fc.get_flop_counts())

    @fcm.register_flop_formula([getattr(L.ops, ns).scale])
    def formula(a_shape, f, *, out_shape=None):
        return a_shape[0] * int(f) + out_shape[0]

    with fcm.FlopCounterMode(display=False) as fc:
        scale(L.randn(2, 3), 2.0)
        getattr(L.ops, ns).scale.default(L.randn(5, 3), 3.0)
    counts.append(fc.get_flop_counts())
    try:
        fcm.register_flop_formula(getattr(L.ops, ns).scale)(formula)
    except RuntimeError as e:
        counts.append(str(e))
    return [{k: {str(o): v for o, v in d.items()} for k, d in c.items()}
            if isinstance(c, dict) else c for c in counts]


def test_register_flop_formula_for_custom_ops():
    assert _custom_op_counts(numtorch, "s48flops") == _custom_op_counts(torch, "s48flops")


def _dispatch_stack_queries(L):
    from importlib import import_module

    pd = import_module(L.__name__ + ".utils._python_dispatch")
    seen = []

    class Watch(pd.BaseTorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func._overloadpacket.__name__)
            return super().__torch_dispatch__(func, types, args, kwargs)

    out = [pd._len_torch_dispatch_stack(), pd.any_torch_dispatch_mode_on_stack()]
    with Watch() as w:
        out += [pd._len_torch_dispatch_stack(), pd.any_torch_dispatch_mode_on_stack()]
        y = L.ones(2, 3) @ L.ones(3, 2)
        with pd._pop_mode_temporarily() as popped:
            out += [popped is w, pd._len_torch_dispatch_stack()]
            L.ones(2, 3) @ L.ones(3, 5)  # not seen
        out.append(pd._get_current_dispatch_mode() is w)
    out += [y.sum().item(), seen.count("mm"), pd.is_traceable_wrapper_subclass_type(L.Tensor),
            pd.is_traceable_wrapper_subclass_type(int)]
    return out


def test_dispatch_stack_queries():
    assert _dispatch_stack_queries(numtorch) == _dispatch_stack_queries(torch)
