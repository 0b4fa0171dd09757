"""Session 46 (programs): gaps found running public PyTorch programs under numtorch, each
reduced to a few lines and checked against torch at test time."""

import numpy as np
import pytest
import torch

import numtorch


def _both(fn):
    """``fn(lib)`` run with torch and with numtorch."""
    return fn(torch), fn(numtorch)


def _cat_permuted(L):
    # Transformer-XL's relative shift: a permuted einsum result joined to a row-major zero
    # column, then viewed (numtorch's cat kept a channels-last order NumPy picked: view failed)
    g = np.random.default_rng(0)
    q = L.tensor(g.standard_normal((6, 2, 2, 8)).astype(np.float32))
    k = L.tensor(g.standard_normal((9, 2, 8)).astype(np.float32))
    b = L.einsum("ibhd,jhd->ijbh", q, k)
    c = L.cat([b, b.new_zeros(6, 1, 2, 2)], dim=1)
    return c.stride(), c.view(10, 6, 2, 2)[:-1].reshape(-1).numpy()


def test_cat_of_permuted_and_row_major_is_row_major():
    (ts, tv), (ns, nv) = _both(_cat_permuted)
    assert ns == ts
    np.testing.assert_allclose(nv, tv, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", ["stack_cl_rm", "stack_rm_cl", "stack_cl_cl", "cat_cl_rm",
                                  "cat_cl_cl"])
def test_join_channels_last_only_when_all_inputs_are(case):
    def run(L):
        a = L.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=L.channels_last)
        b = L.arange(120.).reshape(2, 3, 4, 5)
        fn, first, second = case.split("_")
        args = [a if first == "cl" else b, a if second == "cl" else b]
        r = getattr(L, fn)(args, 1)
        return r.stride(), r.reshape(-1).numpy()
    (ts, tv), (ns, nv) = _both(run)
    assert ns == ts
    np.testing.assert_array_equal(nv, tv)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
@pytest.mark.parametrize("bounds", [(-1, 1), (-0.1767767, 0.1767767), (-3.3, 0.7), (2, 5)])
def test_half_uniform_bounds_and_top(dtype, bounds):
    # a bfloat16 Llama (LLMs-from-scratch) got other Linear weights than torch: torch keeps
    # the bounds in float32 and turns a draw that rounds up to `to` into `from`
    def run(L):
        L.manual_seed(0)
        return L.empty(3000, dtype=getattr(L, dtype)).uniform_(*bounds).float().numpy()
    t, n = _both(run)
    np.testing.assert_array_equal(n, t)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_linear_init(dtype):
    def run(L):
        L.manual_seed(0)
        m = L.nn.Linear(32, 24, dtype=getattr(L, dtype))
        return m.weight.float().detach().numpy(), m.bias.float().detach().numpy()
    (tw, tb), (nw, nb) = _both(run)
    np.testing.assert_array_equal(nw, tw)
    np.testing.assert_array_equal(nb, tb)
