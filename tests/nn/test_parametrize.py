"""nn.utils.parametrize, nn.utils.parametrizations and nn.utils.stateless against torch:
values, gradients, state-dict keys loading both ways, the module surgery and torch's errors."""

import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import numtorch


def _sym(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()
    return Symmetric()


def _split(lib):
    class Split(lib.nn.Module):
        def forward(self, a, b):
            return a + 2 * b

        def right_inverse(self, X):
            return X / 2, X / 4
    return Split()


def _to_nt(sd):
    return {k: numtorch.from_numpy(v.detach().numpy().copy()) for k, v in sd.items()}


def _to_th(sd):
    return {k: torch.from_numpy(v.detach().numpy().copy()) for k, v in sd.items()}


def _assert_close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


def _pair(make):
    """The same parametrized module in both libraries, with torch's state loaded into
    numtorch's (the keys must agree)."""
    th = make(torch)
    nt = make(numtorch)
    assert list(nt.state_dict()) == list(th.state_dict())
    nt.load_state_dict(_to_nt(th.state_dict()))
    return nt, th


def _check_forward_and_grads(nt, th, shape, rtol=1e-5, atol=1e-6):
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    u = None
    outs = []
    for lib, m in ((numtorch, nt), (torch, th)):
        y = m(lib.from_numpy(x.copy()))
        if u is None:
            u = np.random.default_rng(2).standard_normal(tuple(y.shape)).astype("float32")
        params = [p for _, p in m.named_parameters()]
        grads = lib.autograd.grad((y * lib.from_numpy(u.copy())).sum(), params)
        outs.append((y, grads))
    _assert_close(outs[0][0], outs[1][0], rtol, atol)
    for a, b in zip(outs[0][1], outs[1][1]):
        _assert_close(a, b, rtol, atol)


def test_register_parametrization_matches_torch():
    def make(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _sym(lib))
        return m
    nt, th = _pair(make)
    assert type(nt).__name__ == "ParametrizedLinear" == type(th).__name__
    assert isinstance(nt, numtorch.nn.Linear)
    assert repr(nt) == repr(th)
    assert [n for n, _ in nt.named_parameters()] == [n for n, _ in th.named_parameters()]
    _assert_close(nt.weight, th.weight)
    assert bool((nt.weight == nt.weight.T).all())
    _check_forward_and_grads(nt, th, (4, 3))
    # the other way: numtorch's state into torch
    th2 = make(torch)
    th2.load_state_dict(_to_th(nt.state_dict()))
    _assert_close(nt.weight, th2.weight)


def test_original_keeps_the_parameter_object_and_assignment_uses_right_inverse():
    for lib in (numtorch, torch):
        m = lib.nn.Linear(3, 3)
        w = m.weight
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _sym(lib))
        assert m.parametrizations.weight.original is w
        target = lib.arange(9.0).reshape(3, 3)
        target = target + target.T
        m.weight = target
        assert m.parametrizations.weight.original is w
        assert m.weight.tolist() == target.tolist()


def test_sequence_right_inverse_gives_original0_original1():
    def make(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _split(lib))
        return m
    nt, th = _pair(make)
    assert "parametrizations.weight.original1" in nt.state_dict()
    assert nt.parametrizations.weight.ntensors == 2 and not nt.parametrizations.weight.is_tensor
    _check_forward_and_grads(nt, th, (5, 3))


def test_chained_parametrizations_and_unsafe():
    class Double(numtorch.nn.Module):
        def forward(self, X):
            return X.double()

    class Scale(numtorch.nn.Module):
        def forward(self, X):
            return X * 3

    m = numtorch.nn.Linear(2, 2)
    P = numtorch.nn.utils.parametrize
    P.register_parametrization(m, "weight", _sym(numtorch))
    P.register_parametrization(m, "weight", Scale())
    assert len(m.parametrizations.weight) == 2
    orig = m.parametrizations.weight.original
    _assert_close(m.weight, (orig.triu() + orig.triu(1).T) * 3)
    P.register_parametrization(m, "bias", Double(), unsafe=True)
    assert m.bias.dtype is numtorch.float64


def test_cached_computes_each_tensor_once():
    calls = [0]

    class Count(numtorch.nn.Module):
        def forward(self, X):
            calls[0] += 1
            return X * 1

    m = numtorch.nn.Linear(2, 2)
    numtorch.nn.utils.parametrize.register_parametrization(m, "weight", Count())
    calls[0] = 0
    with numtorch.nn.utils.parametrize.cached():
        a, b = m.weight, m.weight
        with numtorch.nn.utils.parametrize.cached():
            c = m.weight
    assert a is b is c and calls[0] == 1
    m.weight
    assert calls[0] == 2


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_matches_torch(leave):
    res = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 3)
        m.weight.data = lib.from_numpy(np.arange(9.0, dtype="float32").reshape(3, 3))
        w = m.weight
        P = lib.nn.utils.parametrize
        P.register_parametrization(m, "weight", _sym(lib))
        P.remove_parametrizations(m, "weight", leave_parametrized=leave)
        assert type(m) is lib.nn.Linear and not P.is_parametrized(m)
        assert not hasattr(m, "parametrizations")
        assert m.weight is w and isinstance(m.weight, lib.nn.Parameter)
        res.append((m.weight.detach().numpy().copy(), list(m.state_dict())))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    assert res[0][1] == res[1][1]


def test_module_surgery_helpers_match_torch():
    for lib in (numtorch, torch):
        P = lib.nn.utils.parametrize
        m = lib.nn.Linear(3, 3)
        assert not P.is_parametrized(m) and P.type_before_parametrizations(m) is lib.nn.Linear
        P.register_parametrization(m, "weight", _sym(lib))
        assert P.is_parametrized(m) and P.is_parametrized(m, "weight")
        assert not P.is_parametrized(m, "bias")
        assert P.type_before_parametrizations(m) is lib.nn.Linear
        with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only"):
            pickle.dumps(m)
        m2 = copy.deepcopy(m)
        assert type(m2).__name__ == "ParametrizedLinear"
        assert m2.parametrizations.weight.original is not m.parametrizations.weight.original
        other = lib.nn.Linear(3, 3)
        P.transfer_parametrizations_and_params(m, other)
        assert P.is_parametrized(other, "weight")
        assert other.weight.tolist() == m.weight.tolist()


def test_parametrize_errors_match_torch():
    class Shrink:
        pass

    for lib in (numtorch, torch):
        P = lib.nn.utils.parametrize

        class Bad(lib.nn.Module):
            def forward(self, X):
                return X[:2]

        class ToDouble(lib.nn.Module):
            def forward(self, X):
                return X.double()

        class NoInverse(lib.nn.Module):
            def forward(self, X):
                return X * 2

        with pytest.raises(ValueError, match="may not change the shape of the tensor, unless "
                                             "`unsafe` flag is enabled.\nunparametrized shape"):
            P.register_parametrization(lib.nn.Linear(3, 3), "weight", Bad())
        with pytest.raises(ValueError, match="may not change the dtype"):
            P.register_parametrization(lib.nn.Linear(3, 3), "weight", ToDouble())
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a "
                                             "parametrized element with name 'foo'"):
            P.register_parametrization(lib.nn.Linear(3, 3), "foo", NoInverse())
        m = lib.nn.Linear(3, 3)
        P.register_parametrization(m, "weight", NoInverse())
        with pytest.raises(RuntimeError, match="parametrization NoInverse does not implement "
                                               "right_inverse."):
            m.weight = lib.ones(3, 3)
        with pytest.raises(ValueError, match="the `unsafe` flag is enabled.\nmodule.weight"):
            P.register_parametrization(m, "weight", Bad())
        with pytest.raises(ValueError, match="does not have a parametrization on bias"):
            P.remove_parametrizations(m, "bias")
        m2 = lib.nn.Linear(3, 3)
        P.register_parametrization(m2, "weight", _split(lib))
        with pytest.raises(ValueError, match="Cannot leave unparametrized"):
            P.remove_parametrizations(m2, "weight", leave_parametrized=False)
    assert Shrink


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)], ids=["square", "tall", "wide"])
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("trivial", [True, False])
def test_orthogonal_matches_torch(shape, omap, trivial):
    def make(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(shape[1], shape[0])
        return lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap,
                                                         use_trivialization=trivial)
    nt, th = _pair(make)
    w = nt.weight
    small = min(shape)
    gram = w @ w.T if shape[0] < shape[1] else w.T @ w
    np.testing.assert_allclose(gram.detach().numpy(), np.eye(small), atol=1e-5)
    _check_forward_and_grads(nt, th, (2, shape[1]), rtol=1e-4, atol=1e-5)
    th2 = make(torch)
    th2.load_state_dict(_to_th(nt.state_dict()))
    _assert_close(nt.weight, th2.weight, 1e-4, 1e-5)


def test_orthogonal_assignment_and_errors_match_torch():
    for lib in (numtorch, torch):
        PZ = lib.nn.utils.parametrizations
        m = PZ.orthogonal(lib.nn.Linear(3, 3))
        q, _ = lib.linalg.qr(lib.randn(3, 3))
        m.weight = q
        np.testing.assert_allclose(m.weight.detach().numpy(), q.numpy(), atol=1e-5)
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a "
                                             "tensor of 1 dimensions."):
            PZ.orthogonal(lib.nn.Linear(3, 3), "bias")
        with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp"'):
            PZ.orthogonal(lib.nn.Linear(3, 3), orthogonal_map="qr")
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'foo'"):
            PZ.orthogonal(lib.nn.Linear(3, 3), "foo")
        m = PZ.orthogonal(lib.nn.Linear(3, 3), orthogonal_map="cayley",
                          use_trivialization=False)
        with pytest.raises(NotImplementedError, match="It is not possible to assign"):
            m.weight = q


@pytest.mark.parametrize("kind", ["linear", "conv_transpose", "bias_1d"])
def test_spectral_norm_matches_torch(kind):
    def make(lib):
        lib.manual_seed(0)
        SN = lib.nn.utils.parametrizations.spectral_norm
        if kind == "linear":
            return SN(lib.nn.Linear(5, 4), n_power_iterations=2)
        if kind == "conv_transpose":
            return SN(lib.nn.ConvTranspose2d(3, 2, 2))
        return SN(lib.nn.Linear(5, 4), "bias")
    nt, th = _pair(make)
    shape = (2, 3, 4, 4) if kind == "conv_transpose" else (3, 5)
    for train in (True, False):  # training advances the power iteration in both
        nt.train(train)
        th.train(train)
        _check_forward_and_grads(nt, th, shape, rtol=1e-4, atol=1e-5)
        for (name, a), (_, b) in zip(nt.named_buffers(), th.named_buffers()):
            _assert_close(a, b, 1e-4, 1e-5)


def test_weight_norm_matches_torch_and_loads_old_checkpoints():
    for dim in (0, 1, None):
        def make(lib):
            lib.manual_seed(0)
            return lib.nn.utils.parametrizations.weight_norm(lib.nn.Conv1d(3, 4, 2), dim=dim)
        nt, th = _pair(make)
        assert "parametrizations.weight.original0" in nt.state_dict()
        _check_forward_and_grads(nt, th, (2, 3, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))
    new = numtorch.nn.utils.parametrizations.weight_norm(numtorch.nn.Linear(3, 2))
    new.load_state_dict(_to_nt(old.state_dict()))
    _assert_close(new.weight, old.weight)


def test_stateless_functional_call_matches_torch():
    res = []
    th_m = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.BatchNorm1d(3))
    nt_m = numtorch.nn.Sequential(numtorch.nn.Linear(3, 3), numtorch.nn.BatchNorm1d(3))
    nt_m.load_state_dict(_to_nt(th_m.state_dict()))
    for lib, m in ((numtorch, nt_m), (torch, th_m)):
        w = lib.from_numpy(np.arange(9.0, dtype="float32").reshape(3, 3)).requires_grad_()
        mean = lib.zeros(3)
        with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
            y = lib.nn.utils.stateless.functional_call(
                m, {"0.weight": w, "1.running_mean": mean},
                (lib.from_numpy(np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3) ** 3),))
        (y * lib.arange(12.0).reshape(4, 3)).sum().backward()
        assert m[0].weight is not w and not m[0].weight.requires_grad is False
        res.append((y.detach().numpy(), w.grad.numpy(), mean.numpy().copy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_functional_call_ties_strictness_and_restores():
    from numtorch.nn.utils.stateless import _functional_call

    for lib, call in ((numtorch, _functional_call), (torch, torch.func.functional_call)):
        class Tied(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = lib.nn.Linear(2, 2, bias=False)
                self.b = lib.nn.Linear(2, 2, bias=False)
                self.b.weight = self.a.weight

            def forward(self, x):
                return self.b(x)
        t = Tied()
        assert call(t, {"a.weight": lib.zeros(2, 2)}, (lib.ones(1, 2),)).tolist() == [[0, 0]]
        assert call(t, {"a.weight": lib.zeros(2, 2)}, (lib.ones(1, 2),),
                    tie_weights=False).tolist() != [[0, 0]]
        with pytest.raises(ValueError, match="functional_call got multiple values for keys "
                                             "\\['a.weight', 'b.weight'\\], which are tied"):
            call(t, {"a.weight": lib.zeros(2, 2), "b.weight": lib.ones(2, 2)}, lib.ones(1, 2))
        m = lib.nn.Linear(2, 2)
        with pytest.raises(RuntimeError, match="Error\\(s\\) in reparametrizing for Linear:\n"
                                               "\tUnexpected key\\(s\\): 'foo'.\n\tMissing "
                                               "key\\(s\\): 'bias'."):
            call(m, {"weight": lib.zeros(2, 2), "foo": lib.ones(2)}, lib.ones(1, 2),
                 strict=True)
        with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
            call(m, ({"weight": lib.ones(2, 2)}, {"weight": lib.ones(2, 2)}), lib.ones(1, 2))
        w = m.weight
        with pytest.raises(TypeError):
            call(m, {"weight": lib.ones(2, 2)}, lib.ones(1, 2), {"x": 1})
        assert m.weight is w and not hasattr(m, "foo")
        out = call(m, ({"weight": lib.ones(2, 2)}, {"bias": lib.ones(2)}), lib.ones(1, 2))
        assert out.tolist() == [[3.0, 3.0]]
