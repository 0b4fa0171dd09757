"""torch's top-level extras against torch: igamma/igammac, histogramdd, svd_lowrank /
pca_lowrank / lobpcg, cond / while_loop, the device error classes, GradScaler, the dtypes
NumPy cannot hold, and DLPack exchange."""

import importlib.util
import pickle

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, same

rng = np.random.default_rng(1)


def _arr(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape)


# -- igamma ---------------------------------------------------------------------------------

def test_igamma_values_gradients_errors():
    a, x = _arr(3, 4, low=0.3, high=3.0), _arr(3, 4, low=0.1, high=4.0)
    for name in ("igamma", "igammac"):
        check_op(lambda t, x: getattr(t, name)(t.from_numpy(a), x), [x], second_order=False)
        same(lambda t: getattr(t, name)(t.from_numpy(a).float(), t.from_numpy(x).float()),
             rtol=1e-5)
        same(lambda t: getattr(t, name)(t.tensor([1, 2]), t.tensor([1, 2])))
        same(lambda t: getattr(t, name)(t.tensor([1.0, 2.0]), 1.0))
        same(lambda t: getattr(t, name)(1.0, t.tensor([1.0, 2.0])))

        def no_input_grad(t):
            y = getattr(t, name)(t.tensor([0.5, 2.0], requires_grad=True), t.tensor([1.0, 3.0]))
            y.sum().backward()

        same(no_input_grad)


# -- histogramdd ----------------------------------------------------------------------------

def test_histogramdd():
    pts = _arr(50, 2)
    w = _arr(50, low=0.0, high=1.0)
    cases = [
        lambda t, p: t.histogramdd(p, bins=[3, 4]),
        lambda t, p: t.histogramdd(p, 5),
        lambda t, p: t.histogramdd(p, [2, 3], range=[-1.0, 1.0, 0.0, 2.0]),
        lambda t, p: t.histogramdd(p, [3, 3], weight=t.from_numpy(w), density=True),
        lambda t, p: t.histogramdd(p, [t.tensor([-2.0, 0.0, 0.5, 2.0], dtype=t.float64),
                                       t.tensor([-2.0, 2.0], dtype=t.float64)]),
        lambda t, p: t.histogramdd(p.reshape(5, 10, 2), [2, 2]),
        lambda t, p: t.histogramdd(t.ones(3, 2), 2),
        lambda t, p: t.histogramdd(p.float(), 3),
    ]
    for case in cases:
        same(lambda t: case(t, t.from_numpy(pts)), rtol=1e-6, atol=1e-9)
    same(lambda t: type(t.histogramdd(t.from_numpy(pts), 2)).__name__)
    same(lambda t: t.histogramdd(t.from_numpy(pts), 2).bin_edges[1])
    for bad in [lambda t, p: t.histogramdd(p, bins=[2]),
                lambda t, p: t.histogramdd(p.long(), 2),
                lambda t, p: t.histogramdd(p, 2, range=[0.0, 1.0]),
                lambda t, p: t.histogramdd(p, 2, range=[1.0, 0.0, 0.0, 1.0]),
                lambda t, p: t.histogramdd(p[:, 0], 2),
                lambda t, p: t.histogramdd(p, 2, weight=t.ones(50)),
                lambda t, p: t.histogramdd(p, [0, 2])]:
        same(lambda t: bad(t, t.from_numpy(pts)))


# -- low-rank decompositions ----------------------------------------------------------------

def _low_rank(m, n, r, batch=()):
    return _arr(*batch, m, r) @ _arr(*batch, r, n)


@pytest.mark.parametrize("shape", [(12, 7, 3), (6, 11, 2)])
def test_svd_lowrank_exact_on_low_rank(shape):
    m, n, r = shape
    A = _low_rank(m, n, r)
    U, S, V = numtorch.svd_lowrank(numtorch.from_numpy(A), q=r + 2)
    Ut, St, Vt = torch.svd_lowrank(torch.from_numpy(A), q=r + 2)
    assert U.shape == Ut.shape and S.shape == St.shape and V.shape == Vt.shape
    assert U.dtype == numtorch.float64
    np.testing.assert_allclose(S.numpy()[:r], St.numpy()[:r], rtol=1e-8)
    rec = (U[:, :r] * S[:r]) @ V[:, :r].T
    np.testing.assert_allclose(rec.numpy(), A, atol=1e-8)
    np.testing.assert_allclose((U.T @ U).numpy(), np.eye(U.shape[1]), atol=1e-8)


def test_svd_lowrank_mean_batch_and_q_larger_than_rank():
    A = _low_rank(8, 5, 5, batch=(2,))
    M = A.mean(-2, keepdims=True)
    for q in (6, 3):
        got = numtorch.svd_lowrank(numtorch.from_numpy(A), q=q, M=numtorch.from_numpy(M))
        want = torch.svd_lowrank(torch.from_numpy(A), q=q, M=torch.from_numpy(M))
        assert [tuple(g.shape) for g in got] == [tuple(w.shape) for w in want]
    U, S, V = numtorch.svd_lowrank(numtorch.from_numpy(A))
    np.testing.assert_allclose(S.numpy(), torch.linalg.svdvals(torch.from_numpy(A)).numpy(),
                               rtol=1e-8)


def test_pca_lowrank():
    A = _low_rank(20, 6, 3) + 5.0
    U, S, V = numtorch.pca_lowrank(numtorch.from_numpy(A), q=4)
    Ut, St, Vt = torch.pca_lowrank(torch.from_numpy(A), q=4)
    np.testing.assert_allclose(S.numpy()[:2], St.numpy()[:2], rtol=1e-8)
    # the principal directions agree up to sign
    np.testing.assert_allclose(np.abs(V.numpy()[:, :2].T @ Vt.numpy()[:, :2]), np.eye(2),
                               atol=1e-8)
    same(lambda t: [x.shape for x in t.pca_lowrank(t.from_numpy(_arr(5, 8)))])
    same(lambda t: t.pca_lowrank(t.ones(8, 5), q=9))
    same(lambda t: t.pca_lowrank(t.ones(8, 5), niter=-1))


def test_svd_lowrank_gradient_of_singular_values():
    A = _low_rank(9, 6, 6)
    for lib in (numtorch, torch):
        x = lib.from_numpy(A.copy()).requires_grad_()
        lib.svd_lowrank(x, q=6)[1].sum().backward()
        if lib is numtorch:
            g_nt = x.grad.numpy()
        else:
            g_th = x.grad.numpy()
    np.testing.assert_allclose(g_nt, g_th, atol=1e-7)


def test_lobpcg():
    A = _arr(12, 12)
    A = A @ A.T
    B = np.diag(rng.uniform(1.0, 2.0, 12))
    for kw in ({"k": 2}, {"k": 3, "largest": False}, {"k": 1, "B": B}, {"n": 3},
               {"k": 2, "B": B, "largest": False}):
        def fn(t):
            args = {k: (t.from_numpy(v) if isinstance(v, np.ndarray) else v)
                    for k, v in kw.items()}
            E, X = t.lobpcg(t.from_numpy(A), **args)
            # eigenvectors are defined up to sign: compare |X| and the eigenvalues
            return E, X.abs()

        same(fn, rtol=1e-6, atol=1e-6)
    same(lambda t: t.lobpcg(t.from_numpy(A), k=5))
    same(lambda t: t.lobpcg(t.from_numpy(A[:5, :5]), k=2))
    same(lambda t: t.lobpcg(t.from_numpy(A), X=t.from_numpy(_arr(12, 2)))[0], rtol=1e-6)
    same(lambda t: t.lobpcg(t.from_numpy(A).float(), k=1)[0].dtype)


# -- control flow ---------------------------------------------------------------------------

def test_cond():
    a = _arr(3)
    for pred in (True, False, 1, 0, "sum"):
        def fn(t):
            x = t.from_numpy(a)
            p = x.sum() > 0 if pred == "sum" else pred
            return t.cond(p, lambda v: v + 1, lambda v: v - 1, (x,))

        same(fn)
    same(lambda t: t.cond(True, lambda v, w: (v * w, v), lambda v, w: (v, w),
                          [t.ones(2), t.full((2,), 3.0)]))
    same(lambda t: t.cond(t.tensor([True, False]), lambda v: v, lambda v: v, (t.ones(2),)))
    check_op(lambda t, x: t.cond(True, lambda v: v.sin() * 2, lambda v: v, (x,)), [a])


def test_while_loop():
    same(lambda t: t.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2),
                                (t.tensor(0), t.ones(2))))
    same(lambda t: t.while_loop(lambda i: i < 3, lambda i: i + 1, (t.tensor(0),)))
    same(lambda t: t.while_loop(lambda i: i < 3, lambda i: (i + 1,), [t.tensor(0)]))
    same(lambda t: t.while_loop(lambda i: i < 0, lambda i: (i + 1,), [t.tensor(0)]))
    same(lambda t: t.while_loop(lambda i: i.sum() < 3, lambda i: (i + 1,), (t.zeros(2),)))
    same(lambda t: t.while_loop(lambda i: i < 3, lambda i: (i + 1.5,), (t.tensor(0),)),
         messages=False)
    # torch's compiled while_loop gets second derivatives wrong (it differs from its own eager
    # x.sin().sin()); numtorch runs the loop eagerly, so it is compared with torch's eager math
    check_op(lambda t, x: t.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v.sin()),
                                       (t.tensor(0), x))[1] if t is numtorch else x.sin().sin(),
             [_arr(3)])


# -- errors, GradScaler ---------------------------------------------------------------------

def test_device_error_classes():
    for name in ("OutOfMemoryError", "AcceleratorError"):
        same(lambda t: [c.__name__ for c in getattr(t, name).__mro__])
        with pytest.raises(RuntimeError):
            raise getattr(numtorch, name)("no memory")
    assert numtorch.GradScaler is numtorch.amp.GradScaler


# -- dtypes ---------------------------------------------------------------------------------

EXTRA_DTYPES = ["complex32", "chalf", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2"] + \
               [f"uint{b}" for b in range(1, 8)] + [f"int{b}" for b in range(1, 8)] + \
               ["bits8", "bits16", "bits1x8", "bits2x4", "bits4x2"]


@pytest.mark.parametrize("name", EXTRA_DTYPES)
def test_extra_dtype_objects(name):
    same(lambda t: getattr(t, name))
    for prop in ("itemsize", "is_floating_point", "is_complex", "is_signed"):
        if prop == "is_signed" and name.startswith("bits"):
            continue  # torch raises "Bits types are undefined"; numtorch answers False
        same(lambda t: getattr(getattr(t, name), prop))
    same(lambda t: str(getattr(t, name)))
    d = getattr(numtorch, name)
    assert isinstance(d, numtorch.dtype)
    assert pickle.loads(pickle.dumps(d)) is d
    if name.startswith("float8") and importlib.util.find_spec("ml_dtypes") is not None:
        return  # ml_dtypes holds float8 tensors (tests/test_float8.py)
    with pytest.raises(RuntimeError, match="NumPy has no such element type"):
        numtorch.zeros(2, dtype=d)
    with pytest.raises(RuntimeError, match="NumPy has no such element type"):
        numtorch.ones(2).to(d)


def test_complex32_pairs_with_float16():
    same(lambda t: (t.complex32.to_real(), t.complex32.to_complex(), t.chalf is t.complex32))


# -- DLPack ---------------------------------------------------------------------------------

def test_dlpack_exchange():
    a = np.arange(6.0).reshape(2, 3)
    t = numtorch.from_dlpack(a)
    t[0, 0] = 7.0
    assert a[0, 0] == 7.0 and t.dtype == numtorch.float64 and t.shape == (2, 3)
    # with torch both ways, sharing memory
    th = torch.arange(4, dtype=torch.float32)
    nt = numtorch.from_dlpack(th)
    nt.add_(1.0)
    assert th.tolist() == [1.0, 2.0, 3.0, 4.0]
    back = torch.from_dlpack(numtorch.arange(3, dtype=numtorch.int32))
    assert back.tolist() == [0, 1, 2] and back.dtype == torch.int32
    # capsules
    cap = numtorch.to_dlpack(numtorch.tensor([1.5, 2.5]))
    assert torch.from_dlpack(cap).tolist() == [1.5, 2.5]
    cap = torch.utils.dlpack.to_dlpack(torch.tensor([3, 4]))
    assert numtorch.from_dlpack(cap).tolist() == [3, 4]
    from numtorch.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack

    assert from_dlpack is numtorch.from_dlpack and to_dlpack is numtorch.to_dlpack
    assert [(k, int(v)) for k, v in DLDeviceType.__members__.items()] == \
           [(k, int(v)) for k, v in torch.utils.dlpack.DLDeviceType.__members__.items()]
    with pytest.raises(TypeError):
        numtorch.from_dlpack([1, 2])
