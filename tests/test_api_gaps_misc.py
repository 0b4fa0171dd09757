"""torch's smaller missing names against torch: linalg.ldl_*, sym_* helpers, norm forms,
empty_permuted, binomial, quantized function forms, build facts, torch.compiler,
torch.functional / version modules, nn.utils fusion / skip_init / memory format."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, same

rng = np.random.default_rng(4)


def _arr(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape)


def _sym(*shape):
    a = _arr(*shape)
    return a + np.swapaxes(a, -1, -2)


# -- linalg.ldl ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_ldl_factor_and_solve(dtype):
    A, B = _sym(2, 5, 5).astype(dtype), _arr(2, 5, 3).astype(dtype)
    tol = 1e-10 if dtype == "float64" else 1e-4
    same(lambda t: t.linalg.ldl_factor(t.from_numpy(A)), rtol=tol, atol=tol)
    same(lambda t: t.linalg.ldl_factor_ex(t.from_numpy(A)), rtol=tol, atol=tol)

    def solve(t):
        LD, piv = t.linalg.ldl_factor(t.from_numpy(A))
        return t.linalg.ldl_solve(LD, piv, t.from_numpy(B))

    same(solve, rtol=tol, atol=tol)


def test_ldl_complex_and_errors():
    a = _arr(4, 4) + 1j * _arr(4, 4)
    herm, sym = a + a.conj().T, a + a.T
    same(lambda t: t.linalg.ldl_factor(t.from_numpy(herm), hermitian=True), rtol=1e-10,
         atol=1e-12)
    same(lambda t: t.linalg.ldl_factor(t.from_numpy(sym)), rtol=1e-10, atol=1e-12)

    rhs = _arr(4, 2) + 0j

    def solve_h(t):
        LD, piv = t.linalg.ldl_factor(t.from_numpy(herm), hermitian=True)
        return t.linalg.ldl_solve(LD, piv, t.from_numpy(rhs), hermitian=True)

    same(solve_h, rtol=1e-10, atol=1e-12)
    same(lambda t: t.linalg.ldl_factor_ex(t.zeros(3, 3, dtype=t.float64)))
    same(lambda t: t.linalg.ldl_factor(t.zeros(3, 3, dtype=t.float64)), messages=False)
    same(lambda t: t.linalg.ldl_factor(t.ones(2, 3)))
    same(lambda t: t.linalg.ldl_factor(t.ones(3, 3, dtype=t.long)))

    def bad_solve(t):
        LD, piv = t.linalg.ldl_factor(t.from_numpy(_sym(4, 4)))
        return t.linalg.ldl_solve(LD, piv, t.ones(3, 2, dtype=t.float64))

    same(bad_solve)

    def no_grad_defined(t):
        A = t.from_numpy(_sym(3, 3)).requires_grad_()
        LD, piv = t.linalg.ldl_factor(A)
        LD.sum().backward()

    same(no_grad_defined)

    def no_solve_grad(t):
        LD, piv = t.linalg.ldl_factor(t.from_numpy(_sym(3, 3)))
        x = t.linalg.ldl_solve(LD, piv, t.ones(3, 1, dtype=t.float64, requires_grad=True))
        x.sum().backward()

    same(no_solve_grad)


# -- sym_*, norms, creation, sampling ------------------------------------------------------

def test_sym_helpers():
    cases = [lambda t: t.sym_int(3.7), lambda t: t.sym_int(-3.7), lambda t: t.sym_int(np.int64(4)),
             lambda t: t.sym_float(3), lambda t: t.sym_float(t.tensor(2)),
             lambda t: t.sym_max(2, 3.5), lambda t: t.sym_max(3, 2.5), lambda t: t.sym_max(2, 3),
             lambda t: t.sym_min(3, 2.5), lambda t: t.sym_min(2, 3), lambda t: t.sym_not(True),
             lambda t: t.sym_not(t.tensor(True)), lambda t: t.sym_sqrt(4),
             lambda t: t.sym_ite(True, 1, 2), lambda t: t.sym_ite(False, "a", "b"),
             lambda t: t.sym_sum([1, 2, 3]), lambda t: t.sym_sum([]),
             lambda t: t.sym_sum([1.5, 2]), lambda t: t.sym_int("a"),
             lambda t: t.sym_max(t.tensor(2), 3),
             lambda t: t.sym_constrain_range(3, min=0, max=2),
             lambda t: t.sym_constrain_range(1, min=0, max=2),
             lambda t: t.sym_constrain_range_for_size(3, min=0, max=5)]
    for case in cases:
        same(case, messages=case is not cases[-4])


def test_norm_forms():
    a = _arr(3, 4)
    for dim in (0, 1, -1):
        check_op(lambda t, x: t.norm_except_dim(x, 2, dim), [a])
    check_op(lambda t, x: t.norm_except_dim(x, 3, 0), [a])
    check_op(lambda t, x: t.norm_except_dim(x), [_arr(2, 3, 4)])
    check_op(lambda t, x: t.frobenius_norm(x, [1]), [a])
    check_op(lambda t, x: t.frobenius_norm(x, [0, 1], True), [a])
    check_op(lambda t, x: t.nuclear_norm(x), [a], second_order=False)
    check_op(lambda t, x: t.nuclear_norm(x, True), [a], second_order=False)
    check_op(lambda t, x: t.nuclear_norm(x, [0, 2]), [_arr(3, 2, 4)], second_order=False)
    same(lambda t: t.frobenius_norm(t.ones(2, 3)), messages=False)


def test_empty_permuted():
    for size, order in (((2, 3, 4), (0, 2, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)), ((3,), (0,))):
        same(lambda t: (t.empty_permuted(size, order).shape,
                        t.empty_permuted(size, order).stride()))
    same(lambda t: t.empty_permuted((2, 3), (1, 0), dtype=t.int64).dtype)
    same(lambda t: t.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad)


def test_binomial():
    numtorch.manual_seed(0)
    count = numtorch.full((4000,), 20.0)
    draws = numtorch.binomial(count, numtorch.full((4000,), 0.3))
    assert draws.dtype == numtorch.float32 and draws.shape == (4000,)
    assert abs(draws.mean().item() - 6.0) < 0.15
    assert (draws >= 0).all() and (draws <= 20).all() and (draws == draws.round()).all()
    same(lambda t: t.binomial(t.tensor([10, 20]), t.tensor([0.5, 0.1])))
    same(lambda t: t.binomial(t.tensor([10.0]), t.tensor([1.0])))
    same(lambda t: t.binomial(t.tensor([10.0]), t.tensor([0.0])))


def test_quantized_function_forms():
    x = _arr(2, 3).astype("float32")

    def per_tensor(t):
        q = t.quantize_per_tensor(t.from_numpy(x), 0.1, 2, t.quint8)
        return t.q_scale(q), t.q_zero_point(q), t.int_repr(q)

    def per_channel(t):
        q = t.quantize_per_channel(t.from_numpy(x), t.tensor([0.1, 0.2], dtype=t.float64),
                                   t.tensor([1, 2]), 0, t.qint8)
        return (t.q_per_channel_scales(q), t.q_per_channel_zero_points(q),
                t.q_per_channel_axis(q), t.int_repr(q))

    same(per_tensor)
    same(per_channel)
    same(lambda t: t.q_scale(3))


def test_build_facts():
    same(lambda t: (t.has_lapack, t.has_spectral, t.compiled_with_cxx11_abi(),
                    t.is_vulkan_available(), t.is_distributed(t.ones(2)),
                    t.init_num_threads()))
    assert isinstance(numtorch.has_mkl, bool) and isinstance(numtorch.has_openmp, bool)


# -- torch.compiler, torch.functional, version ----------------------------------------------

def test_compiler():
    same(lambda t: (t.compiler.is_compiling(), t.compiler.is_dynamo_compiling(),
                    t.compiler.is_exporting(), t.compiler.reset(),
                    t.compiler.cudagraph_mark_step_begin()))

    def decorators(t):
        @t.compiler.disable
        def f(x):
            return x + 1

        @t.compiler.disable(recursive=False)
        def g(x):
            return x * 2

        def k():
            return 3

        return (f(t.ones(2)), g(t.ones(2)), t.compiler.allow_in_graph(k) is k,
                t.compiler.assume_constant_result(k)())

    same(decorators)

    def stance(t):
        with t.compiler.set_stance("force_eager"):
            a = t.ones(2) * 3

        @t.compiler.set_stance("default")
        def h():
            return t.ones(1)

        return a, h()

    same(stance)
    same(lambda t: t.compiler.wrap_numpy(lambda a, b: np.sin(a) + b)(t.tensor([0.0, 1.0]),
                                                                       t.tensor([1.0, 1.0])),
         rtol=1e-6)
    assert numtorch.compiler.compile is numtorch.compile
    assert isinstance(numtorch.compiler.list_backends(), list)


def test_functional_and_version_modules():
    assert sorted(numtorch.functional.__all__) == sorted(torch.functional.__all__)
    for name in numtorch.functional.__all__:
        assert getattr(numtorch.functional, name) is getattr(numtorch, name)
    same(lambda t: t.functional.einsum("ij,jk->ik", t.ones(2, 3), t.ones(3, 2)))
    same(lambda t: (t.version.cuda, t.version.hip))
    assert numtorch.torch_version.TorchVersion is not None


# -- nn.utils -------------------------------------------------------------------------------

def test_fusion_exports():
    from tests.oracle import load_torch_state

    for lib in (numtorch, torch):
        assert lib.nn.utils.fuse_conv_bn_eval is lib.nn.utils.fusion.fuse_conv_bn_eval
    conv_nt, conv_th = numtorch.nn.Conv2d(2, 3, 3), torch.nn.Conv2d(2, 3, 3)
    bn_nt, bn_th = numtorch.nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    load_torch_state(conv_nt, conv_th)
    bn_th.running_mean.uniform_(-1, 1)
    bn_th.running_var.uniform_(0.5, 2)
    bn_th.weight.data.uniform_(0.5, 2)
    load_torch_state(bn_nt, bn_th)
    conv_nt.eval(), bn_nt.eval(), conv_th.eval(), bn_th.eval()
    f_nt = numtorch.nn.utils.fuse_conv_bn_eval(conv_nt, bn_nt)
    f_th = torch.nn.utils.fuse_conv_bn_eval(conv_th, bn_th)
    np.testing.assert_allclose(f_nt.weight.detach().numpy(), f_th.weight.detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_skip_init_and_memory_format():
    same(lambda t: t.nn.utils.skip_init(t.nn.Linear, 3, 4, dtype=t.float64).weight.dtype)
    same(lambda t: t.nn.utils.skip_init(t.nn.Linear, 3, 4))
    same(lambda t: t.nn.utils.skip_init(t.nn.ReLU))

    def convert(t):
        m = t.nn.Sequential(t.nn.Conv2d(2, 3, 3), t.nn.ReLU(), t.nn.ConvTranspose2d(3, 2, 2))
        out = t.nn.utils.convert_conv2d_weight_memory_format(m, t.channels_last)
        m3 = t.nn.Conv3d(2, 3, 2)
        t.nn.utils.convert_conv3d_weight_memory_format(m3, t.channels_last_3d)
        return (out is m, m[0].weight.stride(), m[2].weight.stride(), m3.weight.stride(),
                type(m[0].weight).__name__)

    same(convert)
