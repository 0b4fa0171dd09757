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
