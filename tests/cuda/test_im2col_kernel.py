"""The im2col and col2im kernels of device convolutions (backend/_cupy_conv.py) on the CuPy
stand-in: the forward's and the weight gradient's columns come from one launch reading the
unpadded input, a strided convolution's input gradient from one launch summing its taps,
with the xp code's values exactly (torch, the oracle, within float tolerance), for 1-3
spatial dims, strides, dilations, groups and asymmetric ('same') padding."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _cupy_kernels
from tests.cuda import standin

CASES = [
    (1, (2, 4, 9), (6, 2, 3), {"padding": 2, "stride": 2, "groups": 2}),
    (2, (2, 4, 7, 6), (6, 4, 3, 3), {"padding": 1}),
    (2, (2, 4, 7, 6), (4, 2, 3, 2), {"padding": (2, 1), "stride": (2, 1), "dilation": (1, 2),
                                     "groups": 2}),
    (2, (1, 3, 6, 6), (5, 3, 4, 4), {"padding": "same"}),  # asymmetric: (1, 2) per dim
    (2, (2, 3, 5, 5), (4, 3, 1, 1), {"stride": 2}),  # no padding
    (3, (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), {"padding": 1, "stride": (1, 2, 1)}),
]




def _conv(lib, nd, xs, ws, kw, device):
    rng = np.random.default_rng(nd)
    x = lib.tensor(rng.standard_normal(xs), device=device, requires_grad=True)
    w = lib.tensor(rng.standard_normal(ws), device=device, requires_grad=True)
    y = getattr(lib.nn.functional, f"conv{nd}d")(x, w, **kw)
    gy = lib.tensor(np.random.default_rng(9).standard_normal(tuple(y.shape)), device=device)
    y.backward(gy)
    return [t.detach().cpu().numpy() for t in (y, x.grad, w.grad)]


@pytest.mark.parametrize("nd,xs,ws,kw", CASES, ids=str)
def test_columns_from_one_kernel_with_the_xp_values(cuda, nd, xs, ws, kw):
    standin.reset_stats()
    got = _conv(numtorch, nd, xs, ws, kw, "cuda")
    fused = standin.STATS.get("fused", [])
    # the forward's and the weight gradient's columns (one layout), and a stride-1 input
    # gradient's (a convolution of gy)
    strided = kw.get("stride", 1) != 1  # the input gradient through col2im
    assert fused.count(f"numtorch_im2col{nd}") == 2 + (not strided)
    assert fused.count("numtorch_col2im") == int(strided)
    launches = standin.STATS["kernels"]
    _cupy_kernels.ENABLED[0] = False
    standin.reset_stats()
    plain = _conv(numtorch, nd, xs, ws, kw, "cuda")
    padded = kw.get("padding", 0) not in (0, (0, 0))
    assert launches < standin.STATS["kernels"] or not padded
    for a, b, c in zip(got, plain, _conv(torch, nd, xs, ws, kw, "cpu")):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, c, rtol=1e-10, atol=1e-10)


def _c_to_python(src, name):
    """A kernel body (one statement per line, loops and blocks indented by four) as a Python
    function ``name(i, env)`` that runs it for thread ``i``: C's integer casts dropped,
    divisions floored (every value divided here is non-negative), ``?:`` as a conditional,
    array stores and loads on the NumPy arrays in ``env``."""
    import re

    out = [f"def {name}(i, env):", "    globals().update(env)"]
    for line in src.splitlines():
        ind = len(line) - len(line.lstrip())
        stmt = line.strip().rstrip(";").rstrip()
        if stmt == "}":
            continue
        m = re.fullmatch(r"for \(int (\w+) = 0; \1 < (\w+); \+\+\1\) \{", stmt)
        if m:
            stmt = f"for {m[1]} in range({m[2]}):"
        else:
            stmt = re.sub(r"^(const )?(unsigned int|int|ptrdiff_t|bool|T) ", "", stmt)
            stmt = re.sub(r"\((unsigned int|int|ptrdiff_t|T)\)", "", stmt)
            stmt = stmt.replace(" /= ", " //= ").replace(" / ", " // ").replace("&&", "and")
            m = re.fullmatch(r"(.*) = (\w+) \? (.*) : 0", stmt)
            if m:
                stmt = f"{m[1]} = ({m[3]}) if {m[2]} else 0"
        out.append("    " + " " * ind + stmt)
    ns = {}
    exec("\n".join(out), ns)  # noqa: S102 (our own kernel source, translated)
    return ns[name]


def _geometry(nd, xs, ws, kw):
    k = ws[2:]
    norm = lambda v: (v,) * nd if isinstance(v, int) else tuple(v)
    st, dl = norm(kw.get("stride", 1)), norm(kw.get("dilation", 1))
    pd = kw.get("padding", 0)
    if pd == "same":
        pd = tuple((d * (kk - 1) // 2) for kk, d in zip(k, dl))
    pd = norm(pd)
    out = tuple((s + 2 * p - d * (kk - 1) - 1) // t + 1
                for s, p, d, kk, t in zip(xs[2:], pd, dl, k, st))
    return k, st, pd, dl, out


@pytest.mark.parametrize("nd,xs,ws,kw", CASES, ids=str)
def test_the_kernel_source_computes_the_columns(nd, xs, ws, kw):
    """The im2col body run thread by thread on the host against the window view's columns
    (a check of the CUDA source itself, which the stand-in's reference does not read)."""
    from numtorch.backend import _cupy_conv
    from tests.cuda.standin._references import _im2col

    x = np.random.default_rng(0).standard_normal(xs)
    k, st, pd, dl, out = _geometry(nd, xs, ws, kw)
    n, c = xs[:2]
    want = _im2col(x, k, st, pd, dl, out)
    length = int(np.prod(out))
    env = {"x": x.reshape(-1), "C": c, "NL": n * length, "L": length, "KK": int(np.prod(k))}
    for j, vals in enumerate(zip(xs[2:], k, out, st, pd, dl)):
        env.update({f"{a}{j}": v for a, v in zip(("S", "K", "O", "st", "pd", "dl"), vals)})
    env["col"] = got = np.full(want.size, np.nan)
    body = _c_to_python(_cupy_conv._source(nd), "body")
    for i in range(c * n * length):
        body(i, env)
    np.testing.assert_array_equal(got.reshape(want.shape), want)


def _python_of(src):
    """The col2im kernel body (one statement per line, loops indented) as a Python function
    of ``i`` and the kernel's parameters, for a check of the CUDA source on the host."""
    import re

    out = ["def body(i, cols, env):", "    globals().update(env)"]
    for line in src.splitlines():
        ind = len(line) - len(line.lstrip())
        stmt = line.strip().rstrip(";")
        if stmt == "}":
            continue
        m = re.fullmatch(r"for \(int (\w+) = 0; \1 < (\w+); \+\+\1\) \{", stmt)
        if m:
            stmt = f"for {m[1]} in range({m[2]}):"
        elif stmt.startswith("if ("):
            m = re.fullmatch(r"if \((.*)\) continue", stmt)
            stmt = f"if {m[1].replace('||', 'or')}: continue"
        else:
            stmt = re.sub(r"^(const )?(unsigned int|int|T) ", "", stmt)
            stmt = re.sub(r"\((unsigned int|int|ptrdiff_t)\)", "", stmt)
            stmt = stmt.replace(" /= ", " //= ").replace(" / ", " // ")
            if stmt.startswith("dx = "):
                stmt = "return " + stmt[5:]
        out.append("    " + " " * ind + stmt)
    ns = {}
    exec("\n".join(out), ns)  # noqa: S102 (our own kernel source, translated)
    return ns["body"]


@pytest.mark.parametrize("nd,xs,ws,kw", [c for c in CASES if c[3].get("stride", 1) != 1],
                         ids=str)
def test_the_col2im_source_sums_the_taps(nd, xs, ws, kw):
    from numtorch.backend import _cupy_conv
    from tests.cuda.standin._references import col2im

    k = ws[2:]
    groups = kw.get("groups", 1)
    norm = lambda v, d: (v,) * nd if isinstance(v, int) else v
    st, dl, pd = norm(kw.get("stride", 1), nd), norm(kw.get("dilation", 1), nd), \
        norm(kw.get("padding", 0), nd)
    size = xs[2:]
    out = tuple((s + 2 * p - d * (kk - 1) - 1) // t + 1
                for s, p, d, kk, t in zip(size, pd, dl, k, st))
    n, c = xs[0], ws[1] * groups
    cols = np.random.default_rng(1).standard_normal((c,) + tuple(k) + (n,) + out)
    dims, env = [], {"N": n, "C": c}
    for j, vals in enumerate(zip(size, k, out, st, pd, dl)):
        env.update({f"{a}{j}": v for a, v in zip(("S", "K", "O", "st", "pd", "dl"), vals)})
        dims += list(vals)
    want = np.empty((n, c) + tuple(size))
    col2im(cols, n, c, *dims, want)
    body = _python_of(_cupy_conv._col2im_source(nd))
    flat = cols.reshape(-1)
    got = np.array([body(i, flat, env) for i in range(want.size)])
    np.testing.assert_array_equal(got.reshape(want.shape), want)


def test_channels_last_input_takes_the_kernel_after_one_copy(cuda):
    """A channels-last input is made contiguous once for the kernel (the xp code would take
    a zero fill and two copies); the values are the contiguous input's."""
    rng = np.random.default_rng(3)
    xa, wa = rng.standard_normal((2, 4, 6, 5)), rng.standard_normal((3, 4, 3, 3))
    outs = []
    for cl in (False, True):
        x = numtorch.tensor(xa, device="cuda", requires_grad=True)
        w = numtorch.tensor(wa, device="cuda", requires_grad=True)
        xin = x.to(memory_format=numtorch.channels_last) if cl else x
        standin.reset_stats()
        y = numtorch.nn.functional.conv2d(xin, w, padding=1)
        assert standin.STATS["fused"].count("numtorch_im2col2") == 1
        y.backward(numtorch.ones_like(y))
        outs.append([t.detach().cpu().numpy() for t in (y, x.grad, w.grad)])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
