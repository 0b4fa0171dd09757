"""Constraints, transforms and the constraint registry against torch."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op

_rng = np.random.default_rng(7)


def real(*shape, lo=-2.0, hi=2.0):
    return _rng.uniform(lo, hi, shape)


def T(lib):
    return lib.distributions.transforms


def C(lib):
    return lib.distributions.constraints


# (id, factory(lib) -> Transform, input array)
TRANSFORMS = [
    ("exp", lambda lib: T(lib).ExpTransform(), real(2, 3)),
    ("affine-tensor", lambda lib: T(lib).AffineTransform(lib.tensor([1.0, -2.0, 0.5],
                                                                    dtype=lib.float64),
                                                         lib.tensor([2.0, -0.5, 3.0],
                                                                    dtype=lib.float64)),
     real(2, 3)),
    ("affine-number", lambda lib: T(lib).AffineTransform(1.5, -3.0), real(4)),
    ("affine-event", lambda lib: T(lib).AffineTransform(
        0.5, lib.tensor([2.0, 3.0, 0.5], dtype=lib.float64), event_dim=1), real(2, 3)),
    ("sigmoid", lambda lib: T(lib).SigmoidTransform(), real(5, lo=-6, hi=6)),
    ("tanh", lambda lib: T(lib).TanhTransform(), real(5, lo=-3, hi=3)),
    ("softplus", lambda lib: T(lib).SoftplusTransform(), real(5, lo=-5, hi=5)),
    ("abs", lambda lib: T(lib).AbsTransform(), real(5)),
    ("power", lambda lib: T(lib).PowerTransform(lib.tensor([0.5, 2.0, -1.5],
                                                           dtype=lib.float64)),
     real(2, 3, lo=0.2, hi=3)),
    ("softmax", lambda lib: T(lib).SoftmaxTransform(), real(2, 4)),
    ("stick-breaking", lambda lib: T(lib).StickBreakingTransform(), real(2, 3)),
    ("lower-cholesky", lambda lib: T(lib).LowerCholeskyTransform(), real(2, 3, 3)),
    ("positive-definite", lambda lib: T(lib).PositiveDefiniteTransform(), real(2, 3, 3)),
    ("corr-cholesky", lambda lib: T(lib).CorrCholeskyTransform(), real(2, 6)),
    ("compose", lambda lib: T(lib).ComposeTransform(
        [T(lib).ExpTransform(), T(lib).AffineTransform(1.0, -2.0)]), real(3)),
    ("compose-event", lambda lib: T(lib).ComposeTransform(
        [T(lib).AffineTransform(0.5, 2.0), T(lib).StickBreakingTransform(),
         T(lib).PowerTransform(lib.tensor(2.0, dtype=lib.float64))]), real(2, 3)),
    ("identity", lambda lib: T(lib).identity_transform, real(3)),
    ("independent", lambda lib: T(lib).IndependentTransform(T(lib).SigmoidTransform(), 1),
     real(2, 3)),
    ("reshape", lambda lib: T(lib).ReshapeTransform((2, 3), (6,)), real(4, 2, 3)),
    ("cat", lambda lib: T(lib).CatTransform(
        [T(lib).ExpTransform(), T(lib).AffineTransform(1.0, 3.0)], dim=-1, lengths=[2, 1]),
     real(2, 3)),
    ("cat-dim0", lambda lib: T(lib).CatTransform(
        [T(lib).ExpTransform(), T(lib).SigmoidTransform()], dim=0), real(2, 3)),
    ("stack", lambda lib: T(lib).StackTransform(
        [T(lib).ExpTransform(), T(lib).TanhTransform()], dim=-1), real(3, 2)),
    ("cdf", lambda lib: T(lib).CumulativeDistributionTransform(
        lib.distributions.Normal(lib.tensor(0.5, dtype=lib.float64),
                                 lib.tensor(2.0, dtype=lib.float64))), real(4)),
    ("exp-inv", lambda lib: T(lib).ExpTransform().inv, real(4, lo=0.2, hi=3)),
    ("sigmoid-inv", lambda lib: T(lib).SigmoidTransform().inv, real(4, lo=0.05, hi=0.95)),
]
IDS = [t[0] for t in TRANSFORMS]


def _torch_ok(fn):
    try:
        fn()
        return True
    except NotImplementedError:
        return False


@pytest.mark.parametrize("name,make,x", TRANSFORMS, ids=IDS)
def test_transform_against_torch(name, make, x):
    th = make(torch)
    nt = make(numtorch)
    y = th(torch.from_numpy(x)).numpy()
    check_op(lambda lib, a: make(lib)(a), [x])
    # the inverse at torch's forward values; back to x where the map is injective
    check_op(lambda lib, b: make(lib).inv(b), [y])
    if th.bijective:
        np.testing.assert_allclose(nt.inv(numtorch.from_numpy(y)).numpy(), x, rtol=1e-7,
                                   atol=1e-7)
    if _torch_ok(lambda: th.log_abs_det_jacobian(torch.from_numpy(x), torch.from_numpy(y))):
        def ladj(lib, a):
            t = make(lib)
            return t.log_abs_det_jacobian(a, t(a))
        check_op(ladj, [x])
        check_op(lambda lib, b: make(lib).inv.log_abs_det_jacobian(b, make(lib).inv(b)), [y])
    else:
        with pytest.raises(NotImplementedError):
            nt.log_abs_det_jacobian(numtorch.from_numpy(x), numtorch.from_numpy(y))
    assert repr(nt) == repr(th)
    assert repr(nt.inv) == repr(th.inv)
    assert nt.bijective == th.bijective
    for a, b in ((nt.domain, th.domain), (nt.codomain, th.codomain)):
        assert repr(a) == repr(b) and a.event_dim == b.event_dim
    assert tuple(nt.forward_shape(x.shape)) == tuple(th.forward_shape(x.shape))
    assert tuple(nt.inverse_shape(y.shape)) == tuple(th.inverse_shape(y.shape))
    if _torch_ok(lambda: th.sign):
        a, b = nt.sign, th.sign
        if isinstance(b, torch.Tensor):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        else:
            assert a == b
    else:
        with pytest.raises(NotImplementedError):
            nt.sign
    assert nt.inv.inv is nt or name in ("identity",)
    assert nt == make(numtorch) if th == make(torch) else nt != make(numtorch)


def test_transform_cache_and_errors():
    for lib in (torch, numtorch):
        t = T(lib).ExpTransform(cache_size=1)
        x = lib.zeros(2)
        y = t(x)
        assert t(x) is y and t.inv(y) is x
        assert T(lib).ExpTransform()(x) is not T(lib).ExpTransform()(x)
        with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
            T(lib).ExpTransform(cache_size=2)
        assert T(lib).ExpTransform().with_cache(1)._cache_size == 1
        assert T(lib).AffineTransform(0.0, 2.0).with_cache(1)._cache_size == 1
        assert T(lib).ComposeTransform([T(lib).ExpTransform()]).with_cache(1).parts[
            0]._cache_size == 1
        with pytest.raises(NotImplementedError):
            T(lib).Transform().sign
        with pytest.raises(ValueError, match="Please use either"):
            T(lib).ComposeTransform([T(lib).ReshapeTransform((2, 3), (6,))]).event_dim
        with pytest.raises(ValueError, match="different numbers of elements"):
            T(lib).ReshapeTransform((2, 3), (5,))
        r = T(lib).ReshapeTransform((2, 3), (6,))
        for shape, match in (((3,), "Too few"), ((3, 3), "Shape mismatch")):
            with pytest.raises(ValueError, match=match):
                r.forward_shape(shape)
        with pytest.raises(ValueError, match="Too few dimensions"):
            T(lib).IndependentTransform(T(lib).ExpTransform(), 2)(lib.zeros(3))
        with pytest.raises(ValueError, match="flattened lower-diagonal"):
            T(lib).CorrCholeskyTransform().forward_shape((4,))
        with pytest.raises(ValueError, match="not square"):
            T(lib).CorrCholeskyTransform().inverse_shape((4, 3))
        with pytest.raises(AssertionError, match="must equal len"):
            T(lib).StackTransform([T(lib).ExpTransform()] * 2)(lib.zeros(3))
        with pytest.raises(AssertionError, match="must equal length"):
            T(lib).CatTransform([T(lib).ExpTransform()] * 2)(lib.zeros(3))
        with pytest.raises(AssertionError, match="must match transforms"):
            T(lib).CatTransform([T(lib).ExpTransform()] * 2, lengths=[1])
        with pytest.raises(AssertionError, match="Transform instances"):
            T(lib).CatTransform([T(lib).ExpTransform(), 3])


CONSTRAINTS = [
    ("real", lambda lib: C(lib).real), ("positive", lambda lib: C(lib).positive),
    ("nonnegative", lambda lib: C(lib).nonnegative), ("boolean", lambda lib: C(lib).boolean),
    ("unit_interval", lambda lib: C(lib).unit_interval),
    ("interval", lambda lib: C(lib).interval(-1.0, 0.5)),
    ("half_open", lambda lib: C(lib).half_open_interval(0.0, 1.0)),
    ("greater_than", lambda lib: C(lib).greater_than(0.5)),
    ("greater_than_eq", lambda lib: C(lib).greater_than_eq(0.5)),
    ("less_than", lambda lib: C(lib).less_than(1.0)),
    ("integer_interval", lambda lib: C(lib).integer_interval(0, 2)),
    ("nonnegative_integer", lambda lib: C(lib).nonnegative_integer),
    ("positive_integer", lambda lib: C(lib).positive_integer),
    ("real_vector", lambda lib: C(lib).real_vector), ("simplex", lambda lib: C(lib).simplex),
    ("one_hot", lambda lib: C(lib).one_hot), ("multinomial", lambda lib: C(lib).multinomial(3)),
    ("lower_triangular", lambda lib: C(lib).lower_triangular),
    ("lower_cholesky", lambda lib: C(lib).lower_cholesky),
    ("corr_cholesky", lambda lib: C(lib).corr_cholesky), ("square", lambda lib: C(lib).square),
    ("symmetric", lambda lib: C(lib).symmetric),
    ("positive_semidefinite", lambda lib: C(lib).positive_semidefinite),
    ("positive_definite", lambda lib: C(lib).positive_definite),
    ("independent", lambda lib: C(lib).independent(C(lib).positive, 2)),
    ("cat", lambda lib: C(lib).cat([C(lib).real, C(lib).positive], dim=-1, lengths=[2, 1])),
    ("stack", lambda lib: C(lib).stack([C(lib).positive, C(lib).unit_interval,
                                        C(lib).real], dim=-1)),
    ("mixture", lambda lib: C(lib).MixtureSameFamilyConstraint(C(lib).simplex)),
]


def _probe_values():
    """Matrices and vectors hitting the edges of every constraint above."""
    eye = np.eye(3)
    corr = np.linalg.cholesky(np.array([[1.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.0]]))
    return [
        np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5], [1.0, 2.0, 0.5]]),
        np.array([[-1.0, 0.5, 2.0], [np.nan, 1.0, 3.0], [0.0, 0.0, 1.0]]),
        eye, corr, eye * -1, np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 0.0]]),
        np.stack([eye, corr, np.tril(np.ones((3, 3)))]),
    ]


@pytest.mark.parametrize("name,make", CONSTRAINTS, ids=[c[0] for c in CONSTRAINTS])
def test_constraint_against_torch(name, make):
    a, b = make(numtorch), make(torch)
    assert repr(a) == repr(b)
    assert a.event_dim == b.event_dim and a.is_discrete == b.is_discrete
    for v in _probe_values():
        ra = rb = None
        try:
            rb = b.check(torch.from_numpy(v.copy()))
        except Exception as e:
            with pytest.raises(type(e)):
                a.check(numtorch.from_numpy(v.copy()))
            continue
        ra = a.check(numtorch.from_numpy(v.copy()))
        assert ra.dtype == numtorch.bool
        np.testing.assert_array_equal(ra.numpy(), rb.numpy())


def test_dependent_constraints():
    for lib in (torch, numtorch):
        c = C(lib)
        assert c.is_dependent(c.dependent) and not c.is_dependent(c.real)
        with pytest.raises(NotImplementedError, match="cannot be determined statically"):
            c.dependent.event_dim
        with pytest.raises(NotImplementedError, match="cannot be determined statically"):
            c.dependent.is_discrete
        with pytest.raises(ValueError, match="Cannot determine validity"):
            c.dependent.check(lib.zeros(1))
        d = c.dependent(is_discrete=True, event_dim=1)
        assert d.is_discrete and d.event_dim == 1
        prop = c.dependent_property(is_discrete=True, event_dim=2)(lambda self: c.real)
        assert isinstance(prop, property) and prop.event_dim == 2
        assert c.is_dependent(lib.distributions.Uniform.support)
        with pytest.raises(AssertionError, match="must be a Constraint"):
            c.independent(3, 1)
        with pytest.raises(AssertionError, match="must be >= 0"):
            c.independent(c.real, -1)
        with pytest.raises(ValueError, match="Expected value.dim"):
            c.independent(c.real, 2).check(lib.zeros(2))
        with pytest.raises(AssertionError, match="out of range"):
            c.cat([c.real], dim=3).check(lib.zeros(2))


REGISTRY = [
    ("real", lambda lib: C(lib).real, (2, 3)),
    ("positive", lambda lib: C(lib).positive, (2, 3)),
    ("nonnegative", lambda lib: C(lib).nonnegative, (3,)),
    ("greater_than", lambda lib: C(lib).greater_than(1.5), (3,)),
    ("greater_than_eq", lambda lib: C(lib).greater_than_eq(-1.0), (3,)),
    ("less_than", lambda lib: C(lib).less_than(2.0), (3,)),
    ("unit_interval", lambda lib: C(lib).unit_interval, (3,)),
    ("interval", lambda lib: C(lib).interval(-2.0, 3.0), (3,)),
    ("interval-tensor", lambda lib: C(lib).interval(lib.zeros(3, dtype=lib.float64),
                                                     lib.ones(3, dtype=lib.float64)), (3,)),
    ("half_open", lambda lib: C(lib).half_open_interval(1.0, 4.0), (3,)),
    ("simplex", lambda lib: C(lib).simplex, (2, 3)),
    ("lower_cholesky", lambda lib: C(lib).lower_cholesky, (2, 3, 3)),
    ("positive_definite", lambda lib: C(lib).positive_definite, (3, 3)),
    ("positive_semidefinite", lambda lib: C(lib).positive_semidefinite, (3, 3)),
    ("corr_cholesky", lambda lib: C(lib).corr_cholesky, (2, 3)),
    ("independent", lambda lib: C(lib).independent(C(lib).positive, 1), (2, 3)),
    ("cat", lambda lib: C(lib).cat([C(lib).real, C(lib).positive], dim=-1, lengths=[2, 1]),
     (2, 3)),
    ("stack", lambda lib: C(lib).stack([C(lib).unit_interval, C(lib).positive], dim=-1),
     (3, 2)),
]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name,make,shape", REGISTRY, ids=[r[0] for r in REGISTRY])
def test_constraint_registry(registry, name, make, shape):
    def get(lib):
        return getattr(lib.distributions, registry)(make(lib))
    try:
        th = get(torch)
    except NotImplementedError as e:
        with pytest.raises(NotImplementedError, match=str(e)):
            get(numtorch)
        return
    nt = get(numtorch)
    assert repr(nt) == repr(th)
    x = real(*shape)
    check_op(lambda lib, a: get(lib)(a), [x])
    y = nt(numtorch.from_numpy(x))
    assert bool(make(numtorch).check(y).all())
    if th.bijective:
        check_op(lambda lib, a: get(lib).log_abs_det_jacobian(a, get(lib)(a)), [x])


def test_registry_register():
    for lib in (torch, numtorch):
        reg = lib.distributions.constraint_registry.ConstraintRegistry()
        with pytest.raises(NotImplementedError, match="Cannot transform _Real constraints"):
            reg(C(lib).real)
        with pytest.raises(TypeError, match="Expected constraint to be either"):
            reg.register(3, lambda c: None)
        reg.register(C(lib).real)(lambda c: T(lib).ExpTransform())
        assert isinstance(reg(C(lib).real), T(lib).ExpTransform)
