"""Defects found by session 35's second user-style sweep (printing, indexing, dtype arithmetic),
checked against torch.

The programs ``tests/parity_users/programs/s35b_*.py`` print values, dtypes and error texts;
each is run under real torch and under numtorch and the outputs must be the same. The tests
below them check the fixed defects directly, one library beside the other.
"""

import os
import random

import numpy as np
import pytest
import torch

import numtorch
from tests.parity_users.compare import diff

PROGRAMS = os.path.join(os.path.dirname(__file__), "parity_users", "programs")
S35B = sorted(n[:-3] for n in os.listdir(PROGRAMS) if n.startswith("s35b_") and n.endswith(".py"))


def test_s35b_programs_print_what_torch_prints():
    # every program in one child process per library: two interpreter starts in all
    # (one pair per program made these wrappers minutes of CI time)
    count, bad = diff(S35B)
    assert count >= 2 * len(S35B)
    report = "".join(f"==== {k}\n--- torch\n{w}--- numtorch\n{g}" for k, w, g in bad[:5])
    assert not bad, f"{len(bad)} of {count} cells differ:\n{report}"


# -- float16/bfloat16 addmm, baddbmm, addbmm, addmv: one rounding of the float32 sum ---------
HALF_BLAS = {
    "addmm": ([(5, 7), (7, 6), (5, 6)], lambda L, a, b, c: L.addmm(c, a, b)),
    "addmm_scaled": ([(5, 7), (7, 6), (6,)], lambda L, a, b, c: L.addmm(c, a, b, beta=0.5,
                                                                        alpha=1.5)),
    "baddbmm": ([(2, 5, 7), (2, 7, 6), (5, 6)], lambda L, a, b, c: L.baddbmm(c, a, b, alpha=0.3)),
    "baddbmm_": ([(2, 5, 7), (2, 7, 6), (2, 5, 6)], lambda L, a, b, c: c.clone().baddbmm_(a, b)),
    "addbmm": ([(3, 5, 7), (3, 7, 6), (5, 6)], lambda L, a, b, c: L.addbmm(c, a, b, beta=0.5,
                                                                          alpha=1.5)),
    "addmv": ([(5, 7), (7,), (5,)], lambda L, a, b, c: L.addmv(c, a, b)),
}


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(HALF_BLAS))
def test_half_blas_rounds_once_as_torch(name, dt):
    # numtorch rounded the product to the half type before adding input: ~1 value in 10 was
    # one ulp off torch's
    shapes, call = HALF_BLAS[name]
    rng = np.random.default_rng(5)
    bad = 0
    for _ in range(30):
        arrs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        outs = []
        for lib in (torch, numtorch):
            ts = [lib.tensor(x).to(getattr(lib, dt)) for x in arrs]
            r = call(lib, *ts)
            assert r.dtype == getattr(lib, dt)
            outs.append(r.float().numpy())
        bad += int((outs[0] != outs[1]).sum())
    # (torch's float16 GEMM sums some scaled cases in an order of its own: ~4 values in 9000
    # differ by an ulp from any float32 or float64 order tried; before the fix, ~1 in 10)
    assert bad <= 2, bad


@pytest.mark.parametrize("dt", ["float32", "float16"])
def test_half_blas_gradients_and_node_names(dt):
    got = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        d = getattr(lib, dt)
        c = lib.randn(3, 2).to(d).requires_grad_()
        a = lib.randn(2, 3, 4).to(d).requires_grad_()
        b = lib.randn(2, 4, 2).to(d).requires_grad_()
        outs = [lib.addmm(c, a[0], b[0], alpha=2), lib.baddbmm(c, a, b), lib.addbmm(c, a, b),
                lib.addmv(c[:, 0], a[0], b[0, :, 0])]
        names = [o.grad_fn.name() for o in outs]
        sum(o.float().sum() for o in outs).backward()
        got.append((names, [t.grad.float().numpy() for t in (a, b, c)]))
    assert got[0][0] == got[1][0]
    for g, w in zip(got[0][1], got[1][1]):
        np.testing.assert_allclose(g, w, rtol=2e-3, atol=2e-3)


# -- advanced-index results laid out as torch lays them out --------------------------------
def _strided(lib, seed):
    rnd = random.Random(seed)
    nd = rnd.randint(2, 4)
    shape = [rnd.choice([2, 3, 4]) for _ in range(nd)]
    t = lib.arange(float(np.prod(shape))).reshape(shape)
    perm = list(range(nd))
    rnd.shuffle(perm)
    return t.permute(perm), rnd


def _index_for(lib, t, rnd):
    out = []
    for n in t.shape:
        r = rnd.random()
        if r < 0.4:
            out.append(slice(None))
        elif r < 0.7:
            out.append([rnd.randrange(n) for _ in range(rnd.choice([1, 2, 3]))])
        elif r < 0.8:
            out.append(slice(0, n, 2))
        else:
            out.append(lib.tensor([rnd.randrange(n) for _ in range(rnd.choice([2, 3]))]))
    return tuple(out)


def test_advanced_index_result_strides_of_permuted_inputs():
    # numtorch returned every advanced-index result row-major; torch keeps a permuted input's
    # dim order (is_contiguous() and .view differ). Dims longer than 1, 1-D index tensors.
    checked = 0
    for seed in range(400):
        (a, ra), (b, rb) = _strided(numtorch, seed), _strided(torch, seed)
        ia, ib = _index_for(numtorch, a, ra), _index_for(torch, b, rb)
        try:
            want = b[ib]
        except (IndexError, RuntimeError):
            continue
        got = a[ia]
        assert got.tolist() == want.tolist()
        if 1 in want.shape:
            continue  # (size-1 dims rank in an order of torch's own: not covered yet)
        long = [i for i, n in enumerate(want.shape) if n > 1]
        assert [got.stride()[i] for i in long] == [want.stride()[i] for i in long], \
            (tuple(b.shape), b.stride(), ib)
        checked += 1
    assert checked > 200


# -- in-place view ops: node names -------------------------------------------------------
@pytest.mark.parametrize("op", ["transpose_", "swapdims_", "squeeze_", "squeeze_dim",
                                "squeeze_dims", "unsqueeze_", "t_", "as_strided_"])
def test_inplace_view_op_node_names(op):
    # numtorch gave the out-of-place names (TBackward0, SqueezeBackward1...); torch's in-place
    # variants have nodes of their own (TBackward1, SqueezeBackward4...)
    calls = {"transpose_": lambda y: y.transpose_(0, 2), "swapdims_": lambda y: y.swapdims_(0, 1),
             "squeeze_": lambda y: y.squeeze_(), "squeeze_dim": lambda y: y.squeeze_(1),
             "squeeze_dims": lambda y: y.squeeze_((1,)), "unsqueeze_": lambda y: y.unsqueeze_(0),
             "t_": lambda y: y[:, 0].t_(), "as_strided_": lambda y: y.as_strided_((2,), (1,))}
    names = []
    for lib in (numtorch, torch):
        y = lib.ones(2, 1, 2, requires_grad=True) * 1
        names.append(calls[op](y).grad_fn.name())
    assert names[0] == names[1]
