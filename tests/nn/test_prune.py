"""numtorch.nn.utils.prune against torch.nn.utils.prune."""

import numpy as np
import pytest
import torch
import torch.nn.utils.prune  # noqa: F401  (torch does not import it by default)

import numtorch
from tests.oracle import assert_same, load_torch_state

TOL = dict(rtol=1e-6, atol=1e-7)


def _pair(kind="linear", seed=0):
    """The same randomly initialised module (no tied magnitudes) in both libraries."""
    make = {"linear": lambda t: t.nn.Linear(6, 5),
            "conv": lambda t: t.nn.Conv2d(3, 4, 3)}[kind]
    torch.manual_seed(seed)
    th = make(torch)
    nt = make(numtorch)
    load_torch_state(nt, th)
    return nt, th


def _lib_call(fn):
    """Run ``fn(lib, module)`` on a fresh pair of modules."""
    nt, th = _pair()
    fn(numtorch, nt)
    fn(torch, th)
    return nt, th


def _compare_state(nt, th):
    assert [n for n, _ in nt.named_parameters()] == [n for n, _ in th.named_parameters()]
    assert [n for n, _ in nt.named_buffers()] == [n for n, _ in th.named_buffers()]
    assert list(nt.state_dict()) == list(th.state_dict())
    for k, v in th.state_dict().items():
        assert_same(nt.state_dict()[k], v, what=k, **TOL)


def _compare_forward_backward(nt, th, shape):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    u = rng.standard_normal(tuple(th(torch.from_numpy(x)).shape)).astype(np.float32)
    out_nt = nt(numtorch.from_numpy(x.copy()))
    out_th = th(torch.from_numpy(x.copy()))
    assert_same(out_nt, out_th, what="output", **TOL)
    names = [n for n, _ in th.named_parameters()]
    g_nt = numtorch.autograd.grad(out_nt, [dict(nt.named_parameters())[n] for n in names],
                                  numtorch.from_numpy(u.copy()))
    g_th = torch.autograd.grad(out_th, [dict(th.named_parameters())[n] for n in names],
                               torch.from_numpy(u.copy()))
    for n, a, b in zip(names, g_nt, g_th):
        assert_same(a, b, what=f"grad of {n}", **TOL)


@pytest.mark.parametrize("amount", [0, 7, 0.4, 1.0, 30])
def test_l1_unstructured_matches_torch(amount):
    nt, th = _lib_call(lambda t, m: t.nn.utils.prune.l1_unstructured(m, "weight", amount))
    _compare_state(nt, th)
    assert_same(nt.weight, th.weight, what="weight", **TOL)
    assert type(nt._forward_pre_hooks[next(iter(nt._forward_pre_hooks))]).__name__ == \
        "L1Unstructured"
    _compare_forward_backward(nt, th, (4, 6))


@pytest.mark.parametrize("amount,n,dim", [(2, 2, 0), (0.5, 1, 1), (1, float("inf"), -1),
                                          (0, 2, 0)])
def test_ln_structured_matches_torch(amount, n, dim):
    nt, th = _lib_call(lambda t, m: t.nn.utils.prune.ln_structured(m, "weight", amount, n, dim))
    _compare_state(nt, th)
    _compare_forward_backward(nt, th, (4, 6))


def test_iterative_pruning_composes_through_container():
    def prune(t, m):
        t.nn.utils.prune.l1_unstructured(m, "weight", 0.3)
        t.nn.utils.prune.ln_structured(m, "weight", 1, 2, 0)
        t.nn.utils.prune.l1_unstructured(m, "weight", 4)
    nt, th = _lib_call(prune)
    _compare_state(nt, th)
    hooks = list(nt._forward_pre_hooks.values())
    assert len(hooks) == 1 and isinstance(hooks[0], numtorch.nn.utils.prune.PruningContainer)
    assert [type(h).__name__ for h in hooks[0]] == ["L1Unstructured", "LnStructured",
                                                    "L1Unstructured"]
    _compare_forward_backward(nt, th, (3, 6))


def test_importance_scores_and_custom_from_mask():
    rng = np.random.default_rng(5)
    scores = rng.standard_normal((5, 6))
    mask = (rng.random((5, 6)) > 0.5).astype(np.float32)
    nt, th = _lib_call(lambda t, m: t.nn.utils.prune.l1_unstructured(
        m, "weight", 9, importance_scores=t.from_numpy(scores.copy())))
    _compare_state(nt, th)
    nt, th = _lib_call(lambda t, m: t.nn.utils.prune.custom_from_mask(
        m, "bias", t.from_numpy(mask[0, :5].copy())))
    _compare_state(nt, th)
    _compare_forward_backward(nt, th, (2, 6))


@pytest.mark.parametrize("amount", [10, 0.25])
def test_global_unstructured_matches_torch(amount):
    torch.manual_seed(3)
    th = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Linear(5, 4))
    nt = numtorch.nn.Sequential(numtorch.nn.Linear(6, 5), numtorch.nn.Linear(5, 4))
    load_torch_state(nt, th)
    for lib, m in ((numtorch, nt), (torch, th)):
        lib.nn.utils.prune.l1_unstructured(m[1], "weight", 3)
        lib.nn.utils.prune.global_unstructured(
            [(m[0], "weight"), (m[1], "weight"), (m[0], "bias")],
            pruning_method=lib.nn.utils.prune.L1Unstructured, amount=amount)
    _compare_state(nt, th)
    _compare_forward_backward(nt, th, (3, 6))
    assert numtorch.nn.utils.prune.is_pruned(nt)


def test_remove_makes_pruning_permanent():
    def prune(t, m):
        t.nn.utils.prune.l1_unstructured(m, "weight", 11)
        t.nn.utils.prune.remove(m, "weight")
    nt, th = _lib_call(prune)
    _compare_state(nt, th)
    assert isinstance(nt.weight, numtorch.nn.Parameter)
    assert not nt._forward_pre_hooks and not numtorch.nn.utils.prune.is_pruned(nt)
    _compare_forward_backward(nt, th, (2, 6))


def _raises(fn):
    """numtorch and torch raise the same exception type with the same message."""
    errs = []
    for lib in (numtorch, torch):
        nt, th = _pair()
        with pytest.raises(Exception) as info:
            fn(lib, nt if lib is numtorch else th)
        errs.append(info.value)
    assert type(errs[0]) is type(errs[1])
    a = str(errs[0]).replace("numtorch", "torch")
    assert a == str(errs[1])


@pytest.mark.parametrize("fn", [
    lambda t, m: t.nn.utils.prune.l1_unstructured(m, "weight", -1),
    lambda t, m: t.nn.utils.prune.l1_unstructured(m, "weight", 1.5),
    lambda t, m: t.nn.utils.prune.l1_unstructured(m, "weight", "half"),
    lambda t, m: t.nn.utils.prune.l1_unstructured(m, "weight", 31),
    lambda t, m: t.nn.utils.prune.ln_structured(m, "bias", 1, 2, 0),
    lambda t, m: t.nn.utils.prune.ln_structured(m, "weight", 1, 2, 2),
    lambda t, m: t.nn.utils.prune.random_structured(m, "weight", 6, 0),
    lambda t, m: t.nn.utils.prune.remove(m, "weight"),
    lambda t, m: t.nn.utils.prune.global_unstructured(
        [(m, "weight")], t.nn.utils.prune.RandomStructured, amount=1, dim=0),
    lambda t, m: t.nn.utils.prune.global_unstructured(3, t.nn.utils.prune.L1Unstructured),
    lambda t, m: t.nn.utils.prune.PruningContainer(3),
], ids=["neg", "float>1", "type", "too-many", "1d", "dim", "channels", "remove", "global-type",
        "global-iter", "container"])
def test_errors_match_torch(fn):
    _raises(fn)


def test_failed_pruning_restores_parameter():
    nt, th = _pair()
    for lib, m in ((numtorch, nt), (torch, th)):
        with pytest.raises(ValueError):
            lib.nn.utils.prune.l1_unstructured(m, "weight", 31)
    assert isinstance(nt.weight, numtorch.nn.Parameter)
    _compare_state(nt, th)


def test_random_unstructured_statistics():
    m = numtorch.nn.Linear(40, 50)
    numtorch.nn.utils.prune.random_unstructured(m, "weight", 0.3)
    mask = m.weight_mask.numpy()
    assert mask.sum() == 2000 - 600 and set(np.unique(mask)) == {0.0, 1.0}
    # the zeros are spread over the tensor, not clustered at one end
    assert 0.2 < 1 - mask[:, :20].mean() < 0.4 and 0.2 < 1 - mask[:, 20:].mean() < 0.4
    numtorch.manual_seed(0)
    a = numtorch.nn.utils.prune.RandomUnstructured(5).compute_mask(
        numtorch.ones(4, 4), numtorch.ones(4, 4))
    numtorch.manual_seed(0)
    b = numtorch.nn.utils.prune.RandomUnstructured(5).compute_mask(
        numtorch.ones(4, 4), numtorch.ones(4, 4))
    assert np.array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("dim", [0, 1])
def test_random_structured_statistics(dim):
    m = numtorch.nn.Conv2d(6, 8, 3)
    numtorch.nn.utils.prune.random_structured(m, "weight", 3, dim)
    mask = m.weight_mask.numpy()
    other = tuple(d for d in range(4) if d != dim)
    per_channel = mask.sum(axis=other)
    full = mask.size // mask.shape[dim]
    assert sorted(set(per_channel.tolist())) == [0.0, float(full)]
    assert (per_channel == 0).sum() == 3
    # pruning again removes further whole channels, only among the ones still alive
    numtorch.nn.utils.prune.random_structured(m, "weight", 2, dim)
    per_channel2 = m.weight_mask.numpy().sum(axis=other)
    assert (per_channel2 == 0).sum() == 5 and np.all(per_channel2[per_channel == 0] == 0)


def test_prune_method_on_plain_tensor_and_identity():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 5))
    a = numtorch.nn.utils.prune.L1Unstructured(6).prune(numtorch.from_numpy(x.copy()))
    b = torch.nn.utils.prune.L1Unstructured(6).prune(torch.from_numpy(x.copy()))
    assert_same(a, b, **TOL)
    nt, th = _lib_call(lambda t, m: t.nn.utils.prune.identity(m, "bias"))
    _compare_state(nt, th)
