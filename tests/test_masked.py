"""torch.masked's reductions and normalizations against torch: values, dtypes, shapes,
first- and second-order gradients with random cotangents, exception classes and texts."""

import math
import warnings

import numpy as np
import pytest
import torch

import numtorch as nt

REDUCTIONS = ["sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median",
              "logsumexp", "var", "std"]
ALONG = ["softmax", "log_softmax", "softmin", "cumsum", "cumprod"]
MASKS = ["rows_out", "mixed", "none", "broadcast", "int_mask"]
INPUTS = ["f32", "i64", "bool", "f64", "f16", "c64"]


def _mask(lib, kind):
    rows_out = [[True, False, True], [False, False, False]]
    mixed = [[True, False, True], [False, True, False]]
    return {"rows_out": lambda: lib.tensor(rows_out), "mixed": lambda: lib.tensor(mixed),
            "none": lambda: None, "broadcast": lambda: lib.tensor([True, False, True]),
            "int_mask": lambda: lib.tensor(mixed).int()}[kind]()


def _input(lib, kind):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    return {"f32": x, "i64": x.long(), "bool": x.long() > 2, "f64": x.double(),
            "f16": x.half(), "c64": x.to(lib.complex64)}[kind]


def _outcome(lib, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(lib)
        except Exception as e:  # noqa: BLE001 - class and text are compared
            return ("raise", type(e).__name__, str(e))
    return ("ok", str(r.dtype).split(".")[-1], tuple(r.shape),
            np.asarray(r.detach().to(lib.complex128).tolist(), dtype=complex))


def _same(fn):
    a, b = _outcome(nt, fn), _outcome(torch, fn)
    assert a[:3] == b[:3], (a, b)
    if a[0] == "ok":
        tol = 2e-3 if "float16" in a[1] else 2e-6
        np.testing.assert_allclose(a[3], b[3], rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("inp", INPUTS)
@pytest.mark.parametrize("dim", [None, -1, (0, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions(name, mask, inp, dim, keepdim):
    _same(lambda lib: getattr(lib.masked, name)(_input(lib, inp), dim, keepdim=keepdim,
                                                mask=_mask(lib, mask)))


@pytest.mark.parametrize("name", ALONG)
@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("inp", INPUTS)
@pytest.mark.parametrize("dim", [None, 0, -1, (1,)])
def test_along_a_dim(name, mask, inp, dim):
    _same(lambda lib: getattr(lib.masked, name)(_input(lib, inp), dim, mask=_mask(lib, mask)))


@pytest.mark.parametrize("name", REDUCTIONS + ALONG + ["norm", "logaddexp"])
@pytest.mark.parametrize("inp", INPUTS)
@pytest.mark.parametrize("dtype", ["float64", "int32", "float32"])
@pytest.mark.parametrize("mask", ["rows_out", "none"])
def test_dtype_argument(name, inp, dtype, mask):
    def run(lib):
        x, m, dt = _input(lib, inp), _mask(lib, mask), getattr(lib, dtype)
        if name == "norm":
            return lib.masked.norm(x, 2.0, 1, dtype=dt, mask=m)
        if name == "logaddexp":
            return lib.masked.logaddexp(x, x, dtype=dt, input_mask=m, other_mask=m)
        return getattr(lib.masked, name)(x, 1, dtype=dt, mask=m)

    _same(run)


@pytest.mark.parametrize("ord", [2.0, 1, 0, math.inf, -math.inf, -1.0, 3.5])
@pytest.mark.parametrize("inp", INPUTS)
@pytest.mark.parametrize("mask", MASKS)
def test_norm_and_normalize(ord, inp, mask):
    _same(lambda lib: lib.masked.norm(_input(lib, inp), ord, 1, mask=_mask(lib, mask)))
    _same(lambda lib: lib.masked.norm(_input(lib, inp), ord, None, mask=_mask(lib, mask)))
    _same(lambda lib: lib.masked.normalize(_input(lib, inp), ord, 0, eps=4.0,
                                           mask=_mask(lib, mask)))


@pytest.mark.parametrize("case", [
    "var_both", "mask_more_dims", "mask_not_broadcastable", "dim_out_of_range",
    "dim_repeated", "argmax_tuple", "empty_sum", "empty_amax", "empty_mean", "zero_d",
    "zero_d_dim0", "nan_masked_out", "nan_kept", "sparse_mask", "var_correction_float",
    "std_unbiased_false", "var_correction_2", "logaddexp_broadcast", "median_int_rows_out",
    "median_bool", "var_bool",
])
def test_edges(case):
    def run(lib):
        m = lib.masked
        x = _input(lib, "f32")
        mk = _mask(lib, "rows_out")
        mixed = _mask(lib, "mixed")
        return {
            "var_both": lambda: m.var(x, 1, True, correction=1, mask=mk),
            "mask_more_dims": lambda: m.sum(x, 1, mask=lib.ones(4, 2, 3, dtype=lib.bool)),
            "mask_not_broadcastable": lambda: m.sum(x, 1, mask=lib.ones(3, 3, dtype=lib.bool)),
            "dim_out_of_range": lambda: m.sum(x, 2, mask=mk),
            "dim_repeated": lambda: m.sum(x, (1, -1), mask=mk),
            "argmax_tuple": lambda: m.argmax(x, (0,), mask=mk),
            "empty_sum": lambda: m.sum(lib.zeros(0, 3), 0, mask=lib.zeros(0, 3, dtype=lib.bool)),
            "empty_amax": lambda: m.amax(lib.zeros(0, 3), 0,
                                         mask=lib.zeros(0, 3, dtype=lib.bool)),
            "empty_mean": lambda: m.mean(lib.zeros(0, 3), 0),
            "zero_d": lambda: m.sum(lib.tensor(3.0), mask=lib.tensor(False)),
            "zero_d_dim0": lambda: m.amax(lib.tensor(3.0), 0, mask=lib.tensor(True)),
            "nan_masked_out": lambda: m.amax(lib.tensor([math.nan, 1.0]),
                                             mask=lib.tensor([False, True])),
            "nan_kept": lambda: m.amax(lib.tensor([math.nan, 1.0]),
                                       mask=lib.tensor([True, True])),
            "sparse_mask": lambda: m.sum(x, 1, mask=mk.to_sparse()),
            "var_correction_float": lambda: m.var(x, 1, correction=0.5, mask=mixed),
            "std_unbiased_false": lambda: m.std(x, 1, False, mask=mixed),
            "var_correction_2": lambda: m.var(x, 1, correction=2, mask=mixed),
            "logaddexp_broadcast": lambda: m.logaddexp(x, lib.tensor([1.0, 2.0, 3.0]),
                                                       input_mask=mixed),
            "median_int_rows_out": lambda: m.median(x.long(), 1, mask=mk),
            "median_bool": lambda: m.median(x > 2, 1, mask=mixed),
            "var_bool": lambda: m.var(x > 2, 1, mask=mixed),
        }[case]()

    _same(run)


def _grads(lib, name, dim, order):
    g = lib.Generator().manual_seed(0)
    x = lib.randn(4, 5, 6, generator=g, dtype=lib.float64).requires_grad_()
    mask = lib.rand(4, 5, 6, generator=g) > 0.4
    probe = lib.randn(4, 5, 6, generator=g, dtype=lib.float64)
    m = lib.masked
    if name == "norm":
        r = m.norm(x, 3.0, dim, mask=mask)
    elif name == "normalize":
        r = m.normalize(x, 2.0, dim, mask=mask)
    elif name == "logaddexp":
        r = m.logaddexp(x, x.flip(0), input_mask=mask, other_mask=mask.flip(1))
    else:
        r = getattr(m, name)(x, dim, mask=mask)
    cot = lib.randn(r.shape, generator=lib.Generator().manual_seed(1), dtype=lib.float64)
    # a slice with nothing kept is -inf or nan in both libraries; its cotangent is dropped
    finite = lib.where(lib.isfinite(r), r, lib.zeros((), dtype=r.dtype))
    (gx,) = lib.autograd.grad((finite * cot).sum(), x, create_graph=order == 2)
    out = [r.grad_fn.name(), finite.detach(), gx.detach()]
    if order == 2:
        # a gradient that does not depend on x (sum, amax, ...) has no graph in either library
        out.append(gx.requires_grad)
        if gx.requires_grad:
            (gg,) = lib.autograd.grad((gx * probe).sum(), x, allow_unused=True)
            out.append(gg)
    return out


@pytest.mark.parametrize("name", ["sum", "prod", "amax", "amin", "mean", "median", "norm",
                                  "logsumexp", "var", "std", "softmax", "log_softmax",
                                  "softmin", "normalize", "cumsum", "cumprod", "logaddexp"])
@pytest.mark.parametrize("dim", [0, 2, (0, 2)])
@pytest.mark.parametrize("order", [1, 2])
def test_gradients(name, dim, order):
    if isinstance(dim, tuple) and name in ALONG + ["median", "normalize", "logaddexp"]:
        pytest.skip("one dim only")
    if name == "logaddexp" and order == 2:
        pytest.skip("torch's second derivative is nan where an operand is -inf; ours is 0")
    a, b = _grads(nt, name, dim, order), _grads(torch, name, dim, order)
    assert a[0] == b[0]
    assert len(a) == len(b)
    for u, v in zip(a[1:], b[1:]):
        assert (u is None) == (v is None)
        if isinstance(u, bool):
            assert u == v
        elif u is not None:
            np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=1e-7, atol=1e-9)


def test_module_surface():
    assert set(nt.masked.__all__) >= {n for n in torch.masked.__all__
                                      if n not in ("MaskedTensor", "masked_tensor",
                                                   "as_masked_tensor", "is_masked_tensor")}
