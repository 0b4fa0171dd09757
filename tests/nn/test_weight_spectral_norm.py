"""numtorch.nn.utils.weight_norm / spectral_norm against torch."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import assert_same, load_torch_state

TOL = dict(rtol=1e-9, atol=1e-11)

MODULES = {
    "linear": (lambda t: t.nn.Linear(5, 4), (3, 5)),
    "conv2d": (lambda t: t.nn.Conv2d(3, 4, 2), (2, 3, 5, 5)),
    "convT1d": (lambda t: t.nn.ConvTranspose1d(3, 2, 3), (2, 3, 6)),
}


def _fresh(kind, seed=0):
    make, shape = MODULES[kind]
    torch.manual_seed(seed)
    th = make(torch).double()
    nt = make(numtorch).double()
    load_torch_state(nt, th)
    return nt, th, shape


def _names(m):
    return ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()],
            list(m.state_dict()))


def _forward_backward(nt, th, shape, seed=1):
    """Compare outputs and gradients w.r.t. input and every parameter (random cotangent)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    xa = numtorch.from_numpy(x.copy()).requires_grad_()
    xb = torch.from_numpy(x.copy()).requires_grad_()
    oa, ob = nt(xa), th(xb)
    assert_same(oa, ob, what="output", **TOL)
    u = rng.standard_normal(tuple(ob.shape))
    names = [n for n, _ in th.named_parameters()]
    ga = numtorch.autograd.grad(oa, [xa] + [dict(nt.named_parameters())[n] for n in names],
                                numtorch.from_numpy(u.copy()))
    gb = torch.autograd.grad(ob, [xb] + [dict(th.named_parameters())[n] for n in names],
                             torch.from_numpy(u.copy()))
    for n, a, b in zip(["input"] + names, ga, gb):
        assert_same(a, b, what=f"grad of {n}", rtol=1e-8, atol=1e-10)


def _weight_norm(lib, m, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return lib.nn.utils.weight_norm(m, **kw)


@pytest.mark.parametrize("kind", list(MODULES))
@pytest.mark.parametrize("dim", [0, 1, None, -1, -2])
def test_weight_norm_matches_torch(kind, dim):
    nt, th, shape = _fresh(kind)
    _weight_norm(numtorch, nt, dim=dim)
    _weight_norm(torch, th, dim=dim)
    assert _names(nt) == _names(th)
    for k, v in th.state_dict().items():
        assert_same(nt.state_dict()[k], v, what=k, **TOL)
    _forward_backward(nt, th, shape)
    # after an update of g and v, the hook rebuilds the weight from the new values
    with numtorch.no_grad():
        nt.weight_g.mul_(2.0)
    with torch.no_grad():
        th.weight_g.mul_(2.0)
    _forward_backward(nt, th, shape, seed=2)


def test_weight_norm_warns_and_remove():
    nt, th, shape = _fresh("linear")
    for lib, m in ((numtorch, nt), (torch, th)):
        with pytest.warns(FutureWarning, match="weight_norm"):
            lib.nn.utils.weight_norm(m, name="weight")
        lib.nn.utils.remove_weight_norm(m)
    assert _names(nt) == _names(th) == (["bias", "weight"], [], ["bias", "weight"])
    assert isinstance(nt.weight, numtorch.nn.Parameter) and not nt._forward_pre_hooks
    _forward_backward(nt, th, shape)


def _errors(fn):
    errs = []
    for lib in (numtorch, torch):
        nt, th, _ = _fresh("linear")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            with pytest.raises(Exception) as info:
                fn(lib, nt if lib is numtorch else th)
        errs.append(info.value)
    assert type(errs[0]) is type(errs[1])
    assert str(errs[0]) == str(errs[1])


@pytest.mark.parametrize("fn", [
    lambda t, m: t.nn.utils.weight_norm(t.nn.utils.weight_norm(m)),
    lambda t, m: t.nn.utils.remove_weight_norm(m),
    lambda t, m: t.nn.utils.spectral_norm(t.nn.utils.spectral_norm(m)),
    lambda t, m: t.nn.utils.remove_spectral_norm(m),
    lambda t, m: t.nn.utils.spectral_norm(m, n_power_iterations=0),
], ids=["wn-twice", "wn-remove", "sn-twice", "sn-remove", "sn-iters"])
def test_errors_match_torch(fn):
    _errors(fn)


def _spectral_pair(kind, n_iter=1, dim=None, seed=0):
    """Spectral norm applied in both libraries, with torch's state (u, v) loaded."""
    nt, th, shape = _fresh(kind, seed)
    kw = {} if dim is None else {"dim": dim}
    torch.nn.utils.spectral_norm(th, n_power_iterations=n_iter, **kw)
    numtorch.nn.utils.spectral_norm(nt, n_power_iterations=n_iter, **kw)
    assert _names(nt) == _names(th)
    load_torch_state(nt, th)
    return nt, th, shape


@pytest.mark.parametrize("kind", list(MODULES))
@pytest.mark.parametrize("n_iter", [1, 3])
def test_spectral_norm_training_matches_torch(kind, n_iter):
    nt, th, shape = _spectral_pair(kind, n_iter)
    for step in range(3):
        _forward_backward(nt, th, shape, seed=step)
        # the power iteration updated the buffers in place, identically
        for k in ("weight_u", "weight_v"):
            assert_same(getattr(nt, k), getattr(th, k), what=k, **TOL)


@pytest.mark.parametrize("kind", ["linear", "conv2d"])
def test_spectral_norm_eval_uses_loaded_vectors(kind):
    nt, th, shape = _spectral_pair(kind, dim=1)
    th.train()
    th(torch.zeros(shape, dtype=torch.float64))  # torch refines u, v once
    load_torch_state(nt, th)
    nt.eval()
    th.eval()
    u_before = nt.weight_u.numpy().copy()
    _forward_backward(nt, th, shape)
    assert np.array_equal(nt.weight_u.numpy(), u_before)


def test_spectral_norm_weight_before_first_forward_and_remove():
    nt, th, shape = _spectral_pair("linear")
    # until a forward runs, the attribute is the raw weight (torch's behaviour)
    assert_same(nt.weight, th.weight, **TOL)
    assert not nt.weight.requires_grad
    nt.eval()
    th.eval()
    for lib, m in ((numtorch, nt), (torch, th)):
        lib.nn.utils.remove_spectral_norm(m)
    assert _names(nt) == _names(th)
    assert isinstance(nt.weight, numtorch.nn.Parameter) and not nt._forward_pre_hooks
    _forward_backward(nt, th, shape)


def test_spectral_norm_u_v_are_unit_vectors():
    m = numtorch.nn.utils.spectral_norm(numtorch.nn.Linear(7, 6))
    assert tuple(m.weight_u.shape) == (6,) and tuple(m.weight_v.shape) == (7,)
    np.testing.assert_allclose(np.linalg.norm(m.weight_u.numpy()), 1.0, rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(m.weight_v.numpy()), 1.0, rtol=1e-5)
    for _ in range(30):
        m(numtorch.zeros(1, 7))
    # after many power iterations the weight's top singular value is one
    sv = np.linalg.svd(m.weight.detach().numpy(), compute_uv=False)
    np.testing.assert_allclose(sv[0], 1.0, rtol=1e-3)
