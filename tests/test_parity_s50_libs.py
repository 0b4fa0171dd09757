"""Parity fixes of probe 50 found by running third-party libraries (transformers, timm, peft,
torchmetrics) under numtorch; each test reproduces the torch feature directly, without the
library (oracle: real torch at test time)."""

import numpy as np
import pytest

from tests.oracle import same


def _t(t, shape, seed):
    return t.from_numpy(np.random.default_rng(seed).normal(size=shape).astype("float32"))


# -- 1. add-product ops take their tensors by keyword (transformers' Bloom alibi.baddbmm) -----

_KW_CASES = {
    "baddbmm_method": lambda t: _t(t, (2, 3, 4), 0).baddbmm(
        batch1=_t(t, (2, 3, 5), 1), batch2=_t(t, (2, 5, 4), 2), beta=1.0, alpha=0.5),
    "baddbmm_func": lambda t: t.baddbmm(_t(t, (2, 3, 4), 0), batch1=_t(t, (2, 3, 5), 1),
                                        batch2=_t(t, (2, 5, 4), 2)),
    "baddbmm_mixed": lambda t: _t(t, (2, 3, 4), 0).baddbmm(_t(t, (2, 3, 5), 1),
                                                           batch2=_t(t, (2, 5, 4), 2)),
    "baddbmm_inplace": lambda t: _t(t, (2, 3, 4), 0).baddbmm_(
        batch1=_t(t, (2, 3, 5), 1), batch2=_t(t, (2, 5, 4), 2), alpha=0.5),
    "addbmm_method": lambda t: _t(t, (3, 4), 0).addbmm(batch1=_t(t, (2, 3, 5), 1),
                                                      batch2=_t(t, (2, 5, 4), 2)),
    "addmv_method": lambda t: _t(t, (3,), 0).addmv(mat=_t(t, (3, 2), 1), vec=_t(t, (2,), 2),
                                                  beta=0.5),
    "addmv_inplace": lambda t: _t(t, (3,), 0).addmv_(mat=_t(t, (3, 2), 1), vec=_t(t, (2,), 2)),
    "addr_method": lambda t: _t(t, (2, 3), 0).addr(vec1=_t(t, (2,), 1), vec2=_t(t, (3,), 2)),
    "addr_func": lambda t: t.addr(_t(t, (2, 3), 0), vec1=_t(t, (2,), 1),
                                  vec2=_t(t, (3,), 2), alpha=2),
}


@pytest.mark.parametrize("name", sorted(_KW_CASES))
def test_add_product_keyword_tensors(name):
    same(_KW_CASES[name], rtol=1e-5, atol=1e-5)


def test_baddbmm_keyword_gradients():
    def fn(t):
        x, a, b = (_t(t, s, i).requires_grad_() for i, s in
                   enumerate([(2, 1, 4), (2, 3, 5), (2, 5, 4)]))
        x.baddbmm(batch1=a, batch2=b, beta=0.5, alpha=2).pow(2).sum().backward()
        return x.grad, a.grad, b.grad

    same(fn, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bad", ["mat2", "batch3"])
def test_baddbmm_unknown_keyword_is_type_error(bad):
    def fn(t):
        try:
            _t(t, (2, 3, 4), 0).baddbmm(batch1=_t(t, (2, 3, 5), 1), **{bad: _t(t, (2, 5, 4), 2)})
        except TypeError:
            return "TypeError"
        return "no error"

    same(fn)


# -- 2. torch._higher_order_ops.associative_scan (transformers' Mamba imports it) -------------

def _scan_of(t):
    from importlib import import_module

    return import_module(f"{t.__name__}._higher_order_ops.associative_scan").associative_scan


def _linear_recurrence(a, b):
    return a[0] * b[0], a[1] * b[0] + b[1]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dim", [1, -2, 0])
def test_associative_scan_linear_recurrence(reverse, dim):
    def fn(t):
        a = t.from_numpy(np.random.default_rng(1).uniform(size=(9, 7, 4)).astype("float32"))
        b = _t(t, (9, 7, 4), 2)
        return _scan_of(t)(_linear_recurrence, (a, b), dim, reverse=reverse,
                           combine_mode="generic")

    same(fn)


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_associative_scan_sum_and_dict(n):
    def fn(t):
        x = _t(t, (3, n), n)
        scan = _scan_of(t)
        return (scan(lambda a, b: a + b, x, 1, combine_mode="generic"),
                scan(lambda a, b: {"p": a["p"] * b["p"]}, {"p": x}, -1, reverse=True,
                     combine_mode="generic")["p"])

    same(fn)


def test_associative_scan_gradients():
    def fn(t):
        a = t.from_numpy(np.random.default_rng(1).uniform(size=(2, 6, 3)).astype("float32"))
        a.requires_grad_()
        b = _t(t, (2, 6, 3), 2).requires_grad_()
        _, h = _scan_of(t)(_linear_recurrence, (a, b), 1, combine_mode="generic")
        h.pow(2).sum().backward()
        return a.grad, b.grad

    same(fn, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", ["dim_range", "mode", "empty", "pointwise_cpu"])
def test_associative_scan_errors(case):
    def fn(t):
        scan = _scan_of(t)
        x = _t(t, (3, 4), 0)
        def add(a, b):
            return a + b

        if case == "dim_range":
            return scan(add, x, 2, combine_mode="generic")
        if case == "mode":
            return scan(add, x, 0, combine_mode="foo")
        if case == "empty":
            return scan(add, t.ones(0), 0, combine_mode="generic")
        return scan(add, x, 0)

    same(fn)


# -- 3. hardsigmoid's gradient (timm's GhostNetV2/MobileNetV3 squeeze-excite gates) ----------

@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
def test_hardsigmoid_gradient_bits(dtype):
    def fn(t):
        rng = np.random.default_rng(0)
        x = t.from_numpy(rng.uniform(-4, 4, size=2000)).to(getattr(t, dtype)).requires_grad_()
        g = t.from_numpy(rng.normal(size=2000) * rng.uniform(0.1, 100, size=2000))
        t.nn.Hardsigmoid()(x).backward(g.to(getattr(t, dtype)))
        return x.grad.double()

    same(fn)
