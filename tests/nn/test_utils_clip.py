"""numtorch.nn.utils gradient clipping and parameter vectors against torch."""

import math
import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import assert_same

SHAPES = [(3, 4), (5,), (), (2, 0)]


def _params(lib, dtype="float32", scale=1.0, with_none=True, seed=0, empty=True):
    """Parameters with random gradients (one without a gradient) in library ``lib``."""
    rng = np.random.default_rng(seed)
    ps = []
    for s in SHAPES if empty else SHAPES[:-1]:
        p = lib.nn.Parameter(lib.from_numpy(np.asarray(rng.standard_normal(s), dtype)))
        p.grad = lib.from_numpy(np.asarray(rng.standard_normal(s) * scale, dtype))
        ps.append(p)
    if with_none:
        ps.append(lib.nn.Parameter(lib.from_numpy(np.ones(2, dtype))))
    return ps


def _both(fn, **kw):
    out = []
    for lib in (numtorch, torch):
        ps = _params(lib, **kw)
        out.append((fn(lib, ps), ps))
    return out


def _check_grads(a, b, tol):
    for pa, pb in zip(a, b):
        if pb.grad is None:
            assert pa.grad is None
        else:
            assert_same(pa.grad, pb.grad, what="grad", **tol)


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, -math.inf, 0.0, "inf"])
@pytest.mark.parametrize("max_norm,scale", [(1.0, 1.0), (100.0, 1.0), (0.5, 1e-3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, scale, dtype):
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    # the infinity norms have no value on an empty gradient (tested below)
    empty = not math.isinf(float(norm_type))
    (ta, pa), (tb, pb) = _both(lambda t, ps: t.nn.utils.clip_grad_norm_(ps, max_norm, norm_type),
                               dtype=dtype, scale=scale, empty=empty)
    assert_same(ta, tb, what="total norm", **tol)
    _check_grads(pa, pb, tol)


def test_clip_grad_norm_single_tensor_and_empty():
    (ta, pa), (tb, pb) = _both(lambda t, ps: t.nn.utils.clip_grad_norm_(ps[0], 0.1))
    assert_same(ta, tb, rtol=1e-5, atol=1e-6)
    _check_grads(pa, pb, dict(rtol=1e-5, atol=1e-6))
    assert_same(numtorch.nn.utils.clip_grad_norm_([], 1.0),
                torch.nn.utils.clip_grad_norm_([], 1.0), rtol=0, atol=0)


@pytest.mark.parametrize("norm_type", [math.inf, -math.inf])
def test_infinity_norm_of_empty_gradient_raises(norm_type):
    for lib in (numtorch, torch):
        with pytest.raises(RuntimeError):
            lib.nn.utils.clip_grad_norm_(_params(lib), 1.0, norm_type)


def test_get_total_norm_and_clip_grads_with_norm():
    def fn(t, ps):
        grads = [p.grad for p in ps if p.grad is not None]
        total = t.nn.utils.get_total_norm(grads, 3.0)
        t.nn.utils.clip_grads_with_norm_(ps, 0.7, total)
        return total
    (ta, pa), (tb, pb) = _both(fn)
    assert_same(ta, tb, rtol=1e-5, atol=1e-6)
    _check_grads(pa, pb, dict(rtol=1e-5, atol=1e-6))


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_nonfinite_total_norm(bad):
    msgs = []
    for lib in (numtorch, torch):
        ps = _params(lib)
        ps[0].grad[0, 0] = bad
        with pytest.raises(RuntimeError) as info:
            lib.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
        msgs.append(str(info.value))
        # without the flag both scale by the non-finite norm
        total = lib.nn.utils.clip_grad_norm_(ps, 1.0)
        assert not math.isfinite(float(total))
    assert msgs[0] == msgs[1]


def test_deprecated_clip_grad_norm_warns():
    ws = []
    res = []
    for lib in (numtorch, torch):
        ps = _params(lib)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            res.append((lib.nn.utils.clip_grad_norm(ps, 0.3), ps))
        ws.append([(x.category, str(x.message).replace("numtorch", "torch")) for x in w])
    assert ws[0] == ws[1] and ws[0][0][0] is FutureWarning
    assert_same(res[0][0], res[1][0], rtol=1e-5, atol=1e-6)
    _check_grads(res[0][1], res[1][1], dict(rtol=1e-5, atol=1e-6))


@pytest.mark.parametrize("clip", [0.5, 2, 0.0])
def test_clip_grad_value_matches_torch(clip):
    (_, pa), (_, pb) = _both(lambda t, ps: t.nn.utils.clip_grad_value_(ps, clip))
    _check_grads(pa, pb, dict(rtol=0, atol=0))


def test_clipping_records_no_graph_and_keeps_dtype():
    ps = _params(numtorch, dtype="float32")
    total = numtorch.nn.utils.clip_grad_norm_(ps, 0.1)
    assert total.dtype == numtorch.float32 and not total.requires_grad
    assert all(p.grad.grad_fn is None and p.grad.dtype == numtorch.float32
               for p in ps if p.grad is not None)


def test_parameters_to_vector_and_back():
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) for s in [(3, 4), (5,), (2, 1, 2)]]
    outs = []
    for lib in (numtorch, torch):
        ps = [lib.nn.Parameter(lib.from_numpy(a.copy())) for a in arrays]
        vec = lib.nn.utils.parameters_to_vector(ps)
        u = lib.from_numpy(np.arange(vec.numel(), dtype=np.float64))
        g = lib.autograd.grad(vec, ps, u)
        lib.nn.utils.vector_to_parameters(vec * 2 + 1, ps)
        outs.append((vec, g, ps))
    (va, ga, pa), (vb, gb, pb) = outs
    assert_same(va, vb, rtol=0, atol=0)
    for x, y in zip(ga, gb):
        assert_same(x, y, rtol=0, atol=0)
    for x, y in zip(pa, pb):
        assert_same(x, y, rtol=0, atol=0)
        assert isinstance(x, numtorch.nn.Parameter) and x.requires_grad


def test_vector_to_parameters_errors_match_torch():
    errs = []
    for lib in (numtorch, torch):
        p = lib.nn.Parameter(lib.ones(3))
        with pytest.raises(Exception) as info:
            lib.nn.utils.vector_to_parameters([1.0, 2.0, 3.0], [p])
        errs.append(info.value)
        with pytest.raises(RuntimeError):
            lib.nn.utils.vector_to_parameters(lib.ones(2), [p])
    assert type(errs[0]) is type(errs[1])
    assert str(errs[0]) == str(errs[1])
