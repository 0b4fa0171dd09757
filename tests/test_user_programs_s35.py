"""Defects found by session 35's user-style programs, checked against torch.

The programs ``tests/parity_users/programs/s35_*.py`` print values, dtypes, gradients and error
texts; each is run under real torch and under numtorch and the outputs must be the same. The
tests below it check the fixed defects directly, one library beside the other.
"""

import os

import pytest
import torch

import numtorch
from tests.parity_users.compare import diff

PROGRAMS = os.path.join(os.path.dirname(__file__), "parity_users", "programs")
S35 = sorted(n[:-3] for n in os.listdir(PROGRAMS) if n.startswith("s35_") and n.endswith(".py"))


def test_s35_programs_print_what_torch_prints():
    # every program in one child process per library: two interpreter starts in all
    # (one pair per program made these wrappers minutes of CI time)
    count, bad = diff(S35)
    assert count >= 2 * len(S35)
    report = "".join(f"==== {k}\n--- torch\n{w}--- numtorch\n{g}" for k, w, g in bad[:5])
    assert not bad, f"{len(bad)} of {count} cells differ:\n{report}"


def _outcome(f):
    try:
        out = f()
    except Exception as e:  # noqa: BLE001 - the error is what gets compared
        return type(e).__name__, str(e)
    return "ok", out.tolist() if hasattr(out, "tolist") else out


# -- in-place cumulative ops with a dtype ---------------------------------------------------
@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("src,dst", [("float32", "float64"), ("float32", "int64"),
                                     ("int64", "float32"), ("float32", "float32"),
                                     ("int32", "int32"), ("float16", "bfloat16")])
def test_inplace_cumulative_dtype_must_match(op, src, dst):
    # numtorch wrote the other dtype's result back into the tensor (a silent change of values
    # for int targets); torch refuses the call
    def f(L):
        x = L.tensor([1.5, 2.0, 3.0]).to(getattr(L, src))
        return lambda: (getattr(x, op)(0, dtype=getattr(L, dst)), x)[1]
    assert _outcome(f(numtorch)) == _outcome(f(torch))


# -- module full backward (pre-)hooks: what they return is checked -------------------------
HOOK_RESULTS = {
    "double": lambda L, g: (L.zeros(1, 2, dtype=L.float64),),
    "long": lambda L, g: (L.zeros(1, 2, dtype=L.int64),),
    "bigger": lambda L, g: (L.zeros(3),),
    "bare_tensor": lambda L, g: L.zeros(1, 2),
    "bare_row": lambda L, g: L.zeros(2),
    "list": lambda L, g: [g[0] * 2],
    "int_in_tuple": lambda L, g: (3,),
    "int": lambda L, g: 3,
    "zero_dim": lambda L, g: L.tensor(1.),
    "two": lambda L, g: (g[0], g[0]),
    "scaled": lambda L, g: (g[0] * 3,),
}


@pytest.mark.parametrize("pre", [False, True])
@pytest.mark.parametrize("name", sorted(HOOK_RESULTS))
def test_full_backward_hook_results(name, pre):
    make = HOOK_RESULTS[name]

    def run(L):
        L.manual_seed(0)
        lin = L.nn.Linear(2, 2)
        with L.no_grad():
            lin.weight.copy_(L.tensor([[1., 2.], [3., 4.]]))
        if pre:
            lin.register_full_backward_pre_hook(lambda m, go: make(L, go))
        else:
            lin.register_full_backward_hook(lambda m, gi, go: make(L, gi))
        x = L.ones(1, 2, requires_grad=True)
        return lambda: (lin(x).sum().backward(), x.grad)[1]
    assert _outcome(run(numtorch)) == _outcome(run(torch))


# -- messages -------------------------------------------------------------------------------
def test_sequential_lr_names_itself_in_the_optimizer_check():
    def f(L):
        p = L.nn.Parameter(L.zeros(1))
        o, o2 = L.optim.SGD([p], lr=0.1), L.optim.SGD([p], lr=0.1)
        S = L.optim.lr_scheduler
        return [_outcome(lambda: S.SequentialLR(o, [S.StepLR(o, 1), S.StepLR(o2, 1)], [1])),
                _outcome(lambda: S.SequentialLR(o, [S.StepLR(o, 1), 3], [1])),
                _outcome(lambda: S.SequentialLR(o, [S.StepLR(o, 1), S.ReduceLROnPlateau(o)],
                                                [1]))]
    assert f(numtorch) == f(torch)


def test_concat_dataset_asserts():
    def f(L):
        class It(L.utils.data.IterableDataset):
            def __iter__(self):
                return iter([1])
        CD = L.utils.data.ConcatDataset
        return [_outcome(lambda: CD([])), _outcome(lambda: CD([It()])),
                _outcome(lambda: len(CD([[1, 2], [3]])))]
    assert f(numtorch) == f(torch)


# -- autograd.grad / autograd.functional strict-mode checks ---------------------------------
def _x(L):
    return L.tensor([1., 2.])


STRICT = {
    "jacobian_detached": lambda L, F: F.jacobian(lambda t: t.detach() * 2, _x(L), strict=True),
    "jacobian_tuple": lambda L, F: F.jacobian(lambda a, b: (a * 2, b.detach()), (_x(L), _x(L)),
                                              strict=True),
    "jacobian_constant": lambda L, F: F.jacobian(lambda t: L.tensor(3.), _x(L), strict=True),
    "jacobian_create_graph": lambda L, F: F.jacobian(lambda t: t * 2, _x(L), strict=True,
                                                     create_graph=True),
    "jacobian_unused": lambda L, F: F.jacobian(lambda a, b: a * 2, (_x(L), _x(L)), strict=True),
    "vjp_detached": lambda L, F: F.vjp(lambda t: t.detach(), _x(L), _x(L), strict=True),
    "jvp_detached": lambda L, F: F.jvp(lambda t: t.detach(), _x(L), _x(L), strict=True),
    "hessian_detached": lambda L, F: F.hessian(lambda t: t.detach().sum(), _x(L), strict=True),
    "hessian_linear": lambda L, F: F.hessian(lambda t: (t * 2).sum(), _x(L), strict=True),
    "hessian_unused": lambda L, F: F.hessian(lambda a, b: (a ** 3).sum(), (_x(L), _x(L)),
                                             strict=True),
    "hessian_cross": lambda L, F: F.hessian(lambda a, b: (a * b).sum(), (_x(L), _x(L)),
                                            strict=True),
    "hvp_linear": lambda L, F: F.hvp(lambda t: (t * 2).sum(), _x(L), _x(L), strict=True),
    "vhp_linear_part": lambda L, F: F.vhp(lambda a, b: (a ** 3).sum() + b.sum(),
                                          (_x(L), _x(L)), (_x(L), _x(L)), strict=True),
    "hvp_unused": lambda L, F: F.hvp(lambda a, b: (a ** 3).sum(), (_x(L), _x(L)),
                                     (_x(L), _x(L)), strict=True),
    "hvp_ok": lambda L, F: F.hvp(lambda a: (a ** 3).sum(), _x(L), _x(L), strict=True)[1],
    "vhp_detached": lambda L, F: F.vhp(lambda t: t.detach().sum(), _x(L), _x(L), strict=True),
}


@pytest.mark.parametrize("name", sorted(STRICT))
def test_autograd_functional_strict_mode(name):
    # numtorch returned zeros for hvp/vhp of linear functions and named other causes
    f = STRICT[name]
    assert _outcome(lambda: f(numtorch, numtorch.autograd.functional)) == \
        _outcome(lambda: f(torch, torch.autograd.functional))


@pytest.mark.parametrize("allow_unused", [None, False, True])
def test_grad_materialize_grads_with_allow_unused(allow_unused):
    def f(L):
        x = L.tensor([1., 2.], requires_grad=True)
        y = L.tensor([3.], requires_grad=True)
        return lambda: L.autograd.grad((x ** 2).sum(), [x, y], allow_unused=allow_unused,
                                       materialize_grads=True)
    got, want = _outcome(f(numtorch)), _outcome(f(torch))
    assert str(got) == str(want)


# -- factory sizes: a sequence followed by more positional arguments -----------------------
@pytest.mark.parametrize("call", [
    lambda L: L.zeros((2, 3), (4,)), lambda L: L.ones((2,), 3), lambda L: L.empty([2], [3]),
    lambda L: L.zeros((2, 3), 4, 5), lambda L: L.ones(L.Size([2]), 3),
    lambda L: L.zeros(2, (3,)), lambda L: L.ones(2, [3]), lambda L: L.zeros([2, 3]).shape])
def test_factory_size_sequence_and_more_arguments(call):
    assert _outcome(lambda: call(numtorch)) == _outcome(lambda: call(torch))


# -- addmm: beta/alpha are read as the tensors' scalar type --------------------------------
ADDMM = {
    "int_beta_half": lambda L, a: L.addmm(a, a, a, beta=0.5),
    "int_alpha": lambda L, a: L.addmm(a, a, a, alpha=1.5),
    "int_both": lambda L, a: L.addmm(a, a, a, beta=2.7, alpha=-1.5),
    "int_inplace": lambda L, a: a.clone().addmm_(a, a, beta=0.5, alpha=2.2),
    "int32": lambda L, a: L.addmm(a.int(), a.int(), a.int(), alpha=2.5),
    "uint8_neg": lambda L, a: L.addmm(*[a.to(L.uint8)] * 3, beta=-255),
    "uint8_over": lambda L, a: L.addmm(*[a.to(L.uint8)] * 3, beta=256),
    "int32_over": lambda L, a: L.addmm(*[a.int()] * 3, beta=2 ** 40),
    "float_complex": lambda L, a: L.addmm(*[a.float()] * 3, beta=1j),
    "double_complex": lambda L, a: L.addmm(*[a.double()] * 3, alpha=2j),
    "half_complex": lambda L, a: L.addmm(*[a.half()] * 3, beta=1j),
    "long_complex": lambda L, a: L.addmm(a, a, a, alpha=1j),
    "real_complex": lambda L, a: L.addmm(*[a.float()] * 3, beta=1 + 0j),
    "cfloat": lambda L, a: L.addmm(*[a.cfloat()] * 3, beta=1j),
    "addmv_complex": lambda L, a: L.addmv(a[0].float(), a.float(), a[0].float(), beta=1j),
    "bool": lambda L, a: L.addmm(*[a.bool()] * 3, beta=0.5),
}


@pytest.mark.parametrize("name", sorted(ADDMM))
def test_addmm_scalars_in_the_tensor_type(name):
    # numtorch multiplied integer tensors by float beta/alpha and returned float32 values
    f = ADDMM[name]
    got = _outcome(lambda: f(numtorch, numtorch.tensor([[1, 2], [3, 4]])))
    want = _outcome(lambda: f(torch, torch.tensor([[1, 2], [3, 4]])))
    assert str(got) == str(want)


# -- add/sub alpha on bool results; complex alpha ------------------------------------------
ALPHA = {
    "bool_2": lambda L, m, i: L.add(m, m, alpha=2), "bool_0": lambda L, m, i: L.add(m, m, alpha=0),
    "bool_neg": lambda L, m, i: L.add(m, m, alpha=-1),
    "bool_float": lambda L, m, i: L.add(m, m, alpha=1.5),
    "bool_scalar": lambda L, m, i: L.add(m, True, alpha=2),
    "bool_false": lambda L, m, i: L.add(m, m, alpha=False),
    "bool_inplace": lambda L, m, i: m.clone().add_(m, alpha=2),
    "bool_sub": lambda L, m, i: L.sub(m, m, alpha=2),
    "int_bool": lambda L, m, i: L.add(i, m, alpha=2),
    "float_complex": lambda L, m, i: L.add(i.float(), i, alpha=1j),
    "sub_complex": lambda L, m, i: L.sub(i.float(), i, alpha=1j),
    "int_complex": lambda L, m, i: L.add(i, i, alpha=1j),
    "complex_result": lambda L, m, i: L.add(i, 1j, alpha=1j),
}


@pytest.mark.parametrize("name", sorted(ALPHA))
def test_add_alpha_bool_and_complex(name):
    # numtorch gave int64 [3, 0, 3] for add(bool, bool, alpha=2) (torch: a bool result)
    f = ALPHA[name]

    def run(L):
        return lambda: f(L, L.tensor([True, False, True]), L.tensor([1, 2, 3]))
    assert str(_outcome(run(numtorch))) == str(_outcome(run(torch)))


# -- writes from memory that overlaps the target -------------------------------------------
def _w(fn):
    def run(L, make):
        g = make(L)
        fn(g)
        return g
    return run


OVERLAPPING = {
    "shift_right": (_w(lambda g: g.__setitem__(slice(1, None), g[:-1])), lambda L: L.arange(4.)),
    "same": (_w(lambda g: g.__setitem__(slice(None), g)), lambda L: L.arange(4.)),
    "columns": (_w(lambda g: g.__setitem__((slice(None), 0), g[:, 1])),
                lambda L: L.arange(6.).view(2, 3)),
    "rows": (_w(lambda g: g.__setitem__(0, g[1])), lambda L: L.arange(6.).view(2, 3)),
    "shift_left": (_w(lambda g: g.__setitem__(slice(None, 2), g[1:3])), lambda L: L.arange(4.)),
    "interleaved": (_w(lambda g: g.__setitem__(slice(None, None, 2), g[1::2])),
                    lambda L: L.arange(6.)),
    "copy_shift": (_w(lambda g: g[1:].copy_(g[:-1])), lambda L: L.arange(4.)),
    "copy_row_broadcast": (_w(lambda g: g.copy_(g[0])), lambda L: L.arange(6.).view(2, 3)),
    "setitem_row_broadcast": (_w(lambda g: g.__setitem__(slice(None), g[0])),
                              lambda L: L.arange(6.).view(2, 3)),
    "transpose": (_w(lambda g: g.copy_(g.t())), lambda L: L.arange(4.).view(2, 2)),
    "transpose_setitem": (_w(lambda g: g.__setitem__(slice(None), g.t())),
                          lambda L: L.arange(4.).view(2, 2)),
    "flip": (_w(lambda g: g.__setitem__(slice(0, 2), g[0:2].flip(0))), lambda L: L.arange(4.)),
    "int_rows": (_w(lambda g: g.__setitem__(slice(1, None), g[:2])),
                 lambda L: L.arange(6).view(3, 2)),
    "row_part": (_w(lambda g: g.__setitem__((0, slice(1, None)), g[0, :3])),
                 lambda L: L.arange(8.).view(2, 4)),
    "clone": (_w(lambda g: g.__setitem__(slice(1, None), g[:-1].clone())),
              lambda L: L.arange(4.)),
}


@pytest.mark.parametrize("name", sorted(OVERLAPPING))
def test_setitem_and_copy_from_overlapping_memory(name):
    # numtorch let g[1:] = g[:-1] and g[1:].copy_(g[:-1]) through (NumPy's overlap-safe copy)
    fn, make = OVERLAPPING[name]
    assert _outcome(lambda: fn(numtorch, make)) == _outcome(lambda: fn(torch, make))


# -- messages that name the layer / call .size() -------------------------------------------
@pytest.mark.parametrize("call", [
    lambda L: L.nn.Conv2d(3, 4), lambda L: L.nn.Conv1d(3, 4), lambda L: L.nn.ConvTranspose3d(3),
    lambda L: L.nn.Conv3d(3, 4, 2, foo=1), lambda L: L.nn.LazyConv2d(3),
    lambda L: L.nn.LazyConvTranspose1d(), lambda L: L.nn.Conv2d(3, 4, 3).kernel_size,
    lambda L: L.nn.MSELoss()(L.ones(2), [1, 2]), lambda L: L.nn.L1Loss()(L.ones(2), (1, 2)),
    lambda L: L.nn.functional.smooth_l1_loss(L.ones(2), [1., 2.])])
def test_layer_argument_errors_and_list_targets(call):
    assert _outcome(lambda: call(numtorch)) == _outcome(lambda: call(torch))
