"""Max pooling on the CuPy stand-in through the one-kernel forward and gradient
(backend/_cupy_pool.py, ops/pool_device.py): 2 launches where the xp code takes 29-70, values,
indices and gradients bit for bit the xp code's (NaN and -inf included) and torch's (the
oracle, on the CPU); the CUDA sources themselves are run line by line on the host against the
stand-in's references, which do not read them."""

import re

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _cupy_kernels, _cupy_pool
from tests.cuda import standin
from tests.cuda.standin import _references

CASES = [
    (2, (4, 3, 8, 8), dict(kernel_size=2)),  # LeNet's
    (2, (2, 3, 9, 7), dict(kernel_size=3, stride=2, padding=1)),  # ResNet's stem, overlapping
    (2, (2, 2, 7, 7), dict(kernel_size=3, stride=1)),
    (1, (2, 3, 11), dict(kernel_size=3, stride=2, ceil_mode=True)),
    (3, (1, 2, 5, 6, 5), dict(kernel_size=2, stride=(1, 2, 2), dilation=(2, 1, 1))),
    (2, (2, 3, 10, 10), dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)),
]


def _input(shape, dtype, special):
    x = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    if special:  # torch's rules: a NaN wins (the last one is reported); -inf never beats
        x.reshape(-1)[::7] = np.nan
        x.reshape(-1)[3::11] = -np.inf
    return x


def _pool(lib, device, nd, x, kw):
    xt = lib.tensor(x, device=device, requires_grad=True)
    before = standin.STATS.get("kernels", 0), standin.STATS.get("sync", 0)
    y, i = getattr(lib.nn.functional, f"max_pool{nd}d")(xt, return_indices=True, **kw)
    g = np.random.default_rng(2).standard_normal(tuple(y.shape)).astype(x.dtype)
    y.backward(lib.tensor(g, device=device))
    counts = (standin.STATS.get("kernels", 0) - before[0],
              standin.STATS.get("sync", 0) - before[1])
    return [a.detach().cpu().numpy() for a in (y, i, xt.grad)], counts


@pytest.mark.parametrize("special", [False, True], ids=["finite", "nan_inf"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nd,shape,kw", CASES, ids=str)
def test_max_pool_in_one_kernel_each_way(nd, shape, kw, dtype, special):
    x = _input(shape, dtype, special)
    want, _ = _pool(torch, "cpu", nd, x, kw)
    with standin.active():
        standin.reset_stats()
        got, (launches, syncs) = _pool(numtorch, "cuda", nd, x, kw)
        fused = list(standin.STATS["fused"])
        _cupy_kernels.ENABLED[0] = False
        try:
            plain, (plain_launches, _) = _pool(numtorch, "cuda", nd, x, kw)
        finally:
            _cupy_kernels.ENABLED[0] = True
    assert fused == ["numtorch_max_pool", "numtorch_max_pool_grad"]
    assert launches == 2 and syncs == 0 and plain_launches > 20
    for a, b, c in zip(got, plain, want):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, c, rtol=1e-6, atol=1e-7)


def _python_of(src, result):
    """A kernel body (as _cupy_pool writes it) as a Python function of ``i``: loops, ``if``s
    and casts translated, each line's statements kept in order."""
    out = ["def body(i):"]
    for line in src.splitlines():
        ind = " " * (len(line) - len(line.lstrip()))
        s = line.strip()
        if s == "}":
            continue
        m = re.fullmatch(r"for \(ptrdiff_t (\w+) = 0; \1 < (\w+); \+\+\1\) \{", s)
        if m:
            out.append(f"    {ind}for {m[1]} in range({m[2]}):")
            continue
        m = re.fullmatch(r"for \(ptrdiff_t (\w+) = (\w+) - 1; \1 >= 0; --\1\) \{", s)
        if m:
            out.append(f"    {ind}for {m[1]} in range({m[2]} - 1, -1, -1):")
            continue
        s = re.sub(r"\b(const |ptrdiff_t |double |int |T )", "", s)
        s = s.replace("(T)(-CUDART_INF)", "T(-np.inf)")
        s = re.sub(r"\(double\)(\w+)", r"float(\1)", s)
        s = re.sub(r"if \((\w+ == 0)\) (\w+) = (\w+);", r"\2 = \3 if \1 else \2;", s)
        s = re.sub(r"\(T\)(\w+)", r"T(\1)", s).replace("++n", "n += 1")
        s = s.replace(" / ", " // ").replace(" /= ", " //= ")
        s = s.replace("||", "or").replace("&&", "and")
        s = re.sub(r"(\w+) \? ([^:]+) : (\w+)", r"(\2 if \1 else \3)", s)
        m = re.fullmatch(r"if \((.*?)\) \{ (.*) \}", s) or re.fullmatch(r"if \((.*?)\) (.*)", s)
        if m:
            s = f"if {m[1]}: {m[2].rstrip(';')}"
        out.append(f"    {ind}{s.rstrip(';')}")
    out.append(f"    return {result}")
    ns = {}
    exec("\n".join(out), ns)
    return ns


def _scalars(x_shape, nd, kw):
    k = kw["kernel_size"]
    k = (k,) * nd if isinstance(k, int) else k
    st = kw.get("stride", k)
    st = (st,) * nd if isinstance(st, int) else st
    pd = kw.get("padding", 0)
    pd = (pd,) * nd if isinstance(pd, int) else pd
    dl = kw.get("dilation", 1)
    dl = (dl,) * nd if isinstance(dl, int) else dl
    out = []
    for s, kk, t, p, d in zip(x_shape[2:], k, st, pd, dl):
        span = s + 2 * p - d * (kk - 1) - 1
        o = (-(-span // t) if kw.get("ceil_mode") else span // t) + 1
        if kw.get("ceil_mode") and (o - 1) * t >= s + p:
            o -= 1
        out.append(o)
    geo, env = [], {}
    for j, vals in enumerate(zip(x_shape[2:], k, out, st, pd, dl)):
        env.update({f"{a}{j}": v for a, v in zip(("S", "K", "O", "st", "pd", "dl"), vals)})
        geo += list(vals)
    return tuple(out), geo, env


@pytest.mark.parametrize("nd,shape,kw", CASES, ids=str)
def test_the_kernel_sources_compute_the_references(nd, shape, kw):
    x = _input(shape, np.float64, True)
    out, geo, env = _scalars(shape, nd, kw)
    oshape = shape[:2] + out
    y, idx = np.empty(oshape), np.empty(oshape, dtype=np.int64)
    _references.max_pool(x, *geo, y, idx)
    fwd = _python_of(_cupy_pool._forward_source(nd), "best, arg")
    fwd.update(env, x=x.reshape(-1), T=np.float64, isnan=np.isnan, np=np)
    got = [fwd["body"](i) for i in range(y.size)]
    np.testing.assert_array_equal(np.array([v for v, _ in got]).reshape(oshape), y)
    np.testing.assert_array_equal(np.array([a for _, a in got]).reshape(oshape), idx)
    g = np.random.default_rng(3).standard_normal(oshape)
    for overlap in (False, True):
        want = np.empty(shape)
        _references.max_pool_grad(g, idx, overlap, *geo, want)
        bwd = _python_of(_cupy_pool._grad_source(nd), "dx")
        bwd.update(env, g=g.reshape(-1), idx=idx.reshape(-1), overlap=overlap, T=np.float64)
        if not overlap and kw.get("stride", kw["kernel_size"]) != kw["kernel_size"]:
            continue  # 'one value' holds only where windows cannot overlap
        got = np.array([bwd["body"](i) for i in range(want.size)]).reshape(shape)
        np.testing.assert_array_equal(got, want)
