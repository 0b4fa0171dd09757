"""autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp), Variable, anomaly mode."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import assert_same


def _pair(seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((3,)), rng.standard_normal((3,))
    return (numtorch.tensor(a), numtorch.tensor(b)), (torch.tensor(a), torch.tensor(b))


def f2(t_or_lib):
    def f(x, y):
        return (x.sin() * y.exp()).sum() + (x * x * y).sum()
    return f


def fvec(x, y):
    return x.tanh() * y, (x * y).sum()


def _cmp(a, b):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _cmp(x, y)
    else:
        assert_same(a, b, 1e-7, 1e-9)


def test_vjp_matches_torch():
    (na, nb), (ta, tb) = _pair()
    v = np.array([0.5, -1.0, 2.0])
    nv = (numtorch.tensor(v), numtorch.tensor(1.5))
    tv = (torch.tensor(v), torch.tensor(1.5))
    _cmp(numtorch.autograd.functional.vjp(fvec, (na, nb), nv),
         torch.autograd.functional.vjp(fvec, (ta, tb), tv))


def test_jvp_matches_torch():
    (na, nb), (ta, tb) = _pair(1)
    v = (np.array([1.0, 0.0, -1.0]), np.array([0.3, 0.2, 0.1]))
    _cmp(numtorch.autograd.functional.jvp(fvec, (na, nb), tuple(map(numtorch.tensor, v))),
         torch.autograd.functional.jvp(fvec, (ta, tb), tuple(map(torch.tensor, v))))


def test_jacobian_matches_torch():
    (na, nb), (ta, tb) = _pair(2)
    _cmp(numtorch.autograd.functional.jacobian(fvec, (na, nb)),
         torch.autograd.functional.jacobian(fvec, (ta, tb)))
    _cmp(numtorch.autograd.functional.jacobian(lambda x: x.exp() * 2, na),
         torch.autograd.functional.jacobian(lambda x: x.exp() * 2, ta))


def test_hessian_vhp_hvp_match_torch():
    (na, nb), (ta, tb) = _pair(3)
    _cmp(numtorch.autograd.functional.hessian(f2(numtorch), (na, nb)),
         torch.autograd.functional.hessian(f2(torch), (ta, tb)))
    _cmp(numtorch.autograd.functional.hessian(lambda x: (x ** 3).sum(), na),
         torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), ta))
    v = (np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.0, -0.5]))
    for name in ("vhp", "hvp"):
        _cmp(getattr(numtorch.autograd.functional, name)(f2(numtorch), (na, nb),
                                                         tuple(map(numtorch.tensor, v))),
             getattr(torch.autograd.functional, name)(f2(torch), (ta, tb),
                                                      tuple(map(torch.tensor, v))))


def test_strict_mode_raises_for_independent_input():
    for lib in (numtorch, torch):
        x, y = lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64)
        with pytest.raises(RuntimeError):
            lib.autograd.functional.jacobian(lambda a, b: a * 2, (x, y), strict=True)


def test_variable_shim_and_volatile():
    from numtorch.autograd import Variable

    x = numtorch.ones(3)
    v = Variable(x, requires_grad=True)
    assert isinstance(v, numtorch.Tensor) and isinstance(x, Variable)
    (v * 2).sum().backward()
    assert v.grad.tolist() == [2.0, 2.0, 2.0]
    x[0] = 5.0  # Variable(x) shares x's memory
    assert v[0].item() == 5.0
    for lib in (numtorch, torch):  # volatile has no effect since torch 0.4
        w = lib.nn.Parameter(lib.ones(3))
        with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
            vol = lib.autograd.Variable(lib.ones(3), volatile=True)
        y = (vol * w).sum()
        assert y.requires_grad and y.grad_fn is not None
        with pytest.warns(UserWarning):
            assert not vol.volatile
        with pytest.warns(UserWarning), pytest.raises(ValueError, match="at the same time"):
            lib.autograd.Variable(lib.ones(3), volatile=True, requires_grad=True)
    z = v * 2
    assert z.creator is z.grad_fn
    with pytest.raises(RuntimeError, match="reinforce"):
        Variable.reinforce(v, 1.0)


def test_detect_anomaly_names_the_op():
    for lib in (numtorch, torch):
        with pytest.warns(UserWarning):
            with lib.autograd.detect_anomaly():
                x = lib.tensor([0.0, 1.0], requires_grad=True)
                y = (x.sqrt() * 0).sum()
                with pytest.raises(RuntimeError, match="returned nan values"):
                    y.backward()
    assert not numtorch.autograd.is_anomaly_enabled()
    numtorch.autograd.set_detect_anomaly(True)
    assert numtorch.autograd.is_anomaly_enabled()
    numtorch.autograd.set_detect_anomaly(False)
