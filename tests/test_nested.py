"""torch.nested against torch 2.13: construction, the tensor's queries, ops and gradients.

Every case builds the same components in both libraries from one NumPy draw and compares
values, shapes, dtypes, gradients (random cotangents through ``to_padded_tensor``), exception
classes and messages, and printed forms.
"""

import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import numtorch
import numtorch.nested

LAYOUTS = ["strided", "jagged"]
SHAPES = [(2, 3), (4, 3), (1, 3)]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _draw(shapes, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def _pair(arrays, layout, requires_grad=False):
    """The same nested tensor in numtorch and torch (leaves with no history)."""
    n = numtorch.nested.nested_tensor([numtorch.tensor(a) for a in arrays],
                                      layout=getattr(numtorch, layout),
                                      requires_grad=requires_grad)
    t = torch.nested.nested_tensor([torch.tensor(a) for a in arrays],
                                   layout=getattr(torch, layout), requires_grad=requires_grad)
    return n, t


def _leaves(arrays):
    """Component leaves in both libraries and nested tensors built on them (with history)."""
    nl = [numtorch.tensor(a, requires_grad=True) for a in arrays]
    tl = [torch.tensor(a, requires_grad=True) for a in arrays]
    return nl, tl


def _nest(nl, tl, layout):
    return (numtorch.nested.as_nested_tensor(nl, layout=getattr(numtorch, layout)),
            torch.nested.as_nested_tensor(tl, layout=getattr(torch, layout)))


def _same(n, t, rtol=1e-5, atol=1e-6):
    assert n.is_nested == t.is_nested
    if t.is_nested:
        assert str(n.layout) == str(t.layout)
        nc, tc = n.unbind(), t.unbind()
        assert len(nc) == len(tc)
        for a, b in zip(nc, tc):
            _same(a, b, rtol, atol)
        return
    assert str(n.dtype) == str(t.dtype)
    assert tuple(n.shape) == tuple(t.shape)
    np.testing.assert_allclose(n.detach().numpy(), t.detach().numpy(force=True), rtol=rtol,
                               atol=atol)


def _raises_same(fn_n, fn_t):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(Exception) as en:
        fn_n()
    assert type(en.value) is type(et.value)
    tm, nm = str(et.value), str(en.value)
    if isinstance(et.value, NotImplementedError) and "Could not run" in tm:
        # torch goes on to list every backend the operator has
        assert tm.startswith(nm)
    else:
        assert nm == tm


def _sym(text):
    """Ragged sizes are numbered per process (j1, j7, ...): compare them as ``j*``."""
    return re.sub(r"j\d+", "j*", re.sub(r" object at 0x[0-9a-f]+", "", text))


# -- construction ------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_nested_tensor_values_and_dtype(layout, dtype):
    arrays = _draw(SHAPES, dtype=np.float64)
    arrays = [(a * 10).astype(dtype) for a in arrays]
    n, t = _pair(arrays, layout)
    _same(n, t)
    assert str(n.dtype) == str(t.dtype)
    n2 = numtorch.nested.nested_tensor([numtorch.tensor(a) for a in arrays],
                                       dtype=numtorch.float64, layout=getattr(numtorch, layout))
    t2 = torch.nested.nested_tensor([torch.tensor(a) for a in arrays], dtype=torch.float64,
                                    layout=getattr(torch, layout))
    _same(n2, t2)


def test_strided_layout_warns_with_torchs_text():
    # torch warns once per process: its text comes from a fresh one
    code = ("import warnings, torch; warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    torch.nested.nested_tensor([torch.ones(2)])\n"
            "    torch.nested.nested_tensor([torch.ones(2)])\n"
            "print(len(w), w[0].category.__name__); print(w[0].message)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == "1 UserWarning"
    numtorch.nested._warned[0] = False
    with warnings.catch_warnings(record=True) as wn:
        warnings.simplefilter("always")
        numtorch.nested.nested_tensor([numtorch.ones(2)])
        numtorch.nested.nested_tensor([numtorch.ones(2)])  # once per process, as torch
    assert len(wn) == 1 and wn[0].category is UserWarning
    assert out[1].startswith(str(wn[0].message) + " (Triggered internally at ")
    assert wn[0].filename == __file__
    with warnings.catch_warnings(record=True) as wj:
        warnings.simplefilter("always")
        numtorch.nested.nested_tensor([numtorch.ones(2)], layout=numtorch.jagged)
    assert not wj


def test_nested_tensor_from_lists_and_rank_error():
    n = numtorch.nested.nested_tensor([[1, 2], [3]])
    t = torch.nested.nested_tensor([[1, 2], [3]])
    _same(n, t)
    _raises_same(lambda: numtorch.nested.nested_tensor([numtorch.ones(2, 3), numtorch.ones(3)]),
                 lambda: torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(3)]))
    _raises_same(lambda: numtorch.nested.nested_tensor(
        [numtorch.tensor(1.), numtorch.tensor(2.)], layout=numtorch.jagged),
        lambda: torch.nested.nested_tensor([torch.tensor(1.), torch.tensor(2.)],
                                           layout=torch.jagged))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_nested_tensor_copies_and_is_leaf(layout):
    arrays = _draw(SHAPES)
    src = [numtorch.tensor(a, requires_grad=True) for a in arrays]
    n = numtorch.nested.nested_tensor(src, layout=getattr(numtorch, layout))
    t = torch.nested.nested_tensor([torch.tensor(a, requires_grad=True) for a in arrays],
                                   layout=getattr(torch, layout))
    assert n.requires_grad == t.requires_grad and n.is_leaf == t.is_leaf
    src[0].detach().mul_(0)
    _same(n, t)  # a copy
    n, t = _pair(arrays, layout, requires_grad=True)
    assert n.requires_grad and n.is_leaf and n.grad_fn is None
    assert t.requires_grad and t.is_leaf


@pytest.mark.parametrize("layout", LAYOUTS)
def test_as_nested_tensor_keeps_history(layout):
    arrays = _draw(SHAPES, 1)
    nl, tl = _leaves(arrays)
    n, t = _nest(nl, tl, layout)
    assert n.requires_grad and not n.is_leaf and n.grad_fn is not None
    assert t.requires_grad and not t.is_leaf
    _same(n, t)
    pn = numtorch.nested.to_padded_tensor(n * 2.0, 0.0)
    pt = torch.nested.to_padded_tensor(t * 2.0, 0.0)
    cot = np.random.default_rng(5).standard_normal(tuple(pt.shape)).astype(np.float32)
    gn = numtorch.autograd.grad(pn, nl, numtorch.tensor(cot))
    gt = torch.autograd.grad(pt, tl, torch.tensor(cot))
    for a, b in zip(gn, gt):
        _same(a, b)


def test_as_nested_tensor_from_dense_rows():
    x = _draw([(3, 4, 2)], 2)[0]
    n = numtorch.nested.as_nested_tensor(numtorch.tensor(x), layout=numtorch.jagged)
    t = torch.nested.as_nested_tensor(torch.tensor(x), layout=torch.jagged)
    _same(n, t)
    assert _sym(str(n.shape)) == _sym(str(t.shape))


def test_nested_tensor_from_jagged():
    v = _draw([(7, 3)], 3)[0]
    off = [0, 2, 2, 7]
    ov = numtorch.tensor(off)
    n = numtorch.nested.nested_tensor_from_jagged(numtorch.tensor(v), ov)
    t = torch.nested.nested_tensor_from_jagged(torch.tensor(v), torch.tensor(off))
    _same(n, t)
    assert n.offsets() is ov and n.lengths() is None and t.lengths() is None
    _same(n.values(), t.values())
    n2 = numtorch.nested.nested_tensor_from_jagged(numtorch.tensor(v) * 2, ov)
    assert str(n2.shape) == str(n.shape)  # one ragged size per offsets tensor
    _same(n + n2, t + t * 2)
    nl = numtorch.nested.nested_tensor_from_jagged(numtorch.tensor(v),
                                                   lengths=numtorch.tensor([2, 0, 5]))
    tlen = torch.nested.nested_tensor_from_jagged(torch.tensor(v), lengths=torch.tensor([2, 0, 5]))
    _same(nl, tlen)
    _raises_same(lambda: numtorch.nested.nested_tensor_from_jagged(numtorch.tensor(v)),
                 lambda: torch.nested.nested_tensor_from_jagged(torch.tensor(v)))


def test_from_jagged_pads_to_declared_length():
    v = _draw([(5, 3)], 4)[0]
    for kw in ({}, {"max_seqlen": 4}):
        n = numtorch.nested.nested_tensor_from_jagged(numtorch.tensor(v),
                                                      numtorch.tensor([0, 2, 5]), **kw)
        t = torch.nested.nested_tensor_from_jagged(torch.tensor(v), torch.tensor([0, 2, 5]), **kw)
        _same(numtorch.nested.to_padded_tensor(n.sin() * 2, 0.0),
              torch.nested.to_padded_tensor(t.sin() * 2, 0.0))


def test_nested_tensor_from_jagged_gradient_reaches_values():
    v = _draw([(5, 3)], 4)[0]
    vn, vt = numtorch.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    n = numtorch.nested.nested_tensor_from_jagged(vn, numtorch.tensor([0, 2, 5]))
    t = torch.nested.nested_tensor_from_jagged(vt, torch.tensor([0, 2, 5]))
    pn = numtorch.nested.to_padded_tensor(n.sin(), 0.0)
    pt = torch.nested.to_padded_tensor(t.sin(), 0.0)
    cot = np.random.default_rng(1).standard_normal(tuple(pt.shape)).astype(np.float32)
    _same(numtorch.autograd.grad(pn, vn, numtorch.tensor(cot))[0],
          torch.autograd.grad(pt, vt, torch.tensor(cot))[0])


# -- the tensor's queries ----------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
def test_queries(layout):
    n, t = _pair(_draw(SHAPES), layout)
    assert n.is_nested and t.is_nested
    assert n.dim() == t.dim() and n.ndim == t.ndim
    assert str(n.dtype) == str(t.dtype) and str(n.device) == str(t.device)
    assert n.numel() == t.numel()
    assert n.is_contiguous() == t.is_contiguous()
    for d in (0, 2, -1, -3):
        assert n.size(d) == t.size(d)
    for d in (3, -4):
        _raises_same(lambda d=d: n.size(d), lambda d=d: t.size(d))
    if layout == "strided":
        for f in (lambda x: x.size(), lambda x: x.shape, lambda x: len(x), lambda x: x.size(1),
                  lambda x: x.stride()):
            _raises_same(lambda f=f: f(n), lambda f=f: f(t))
    else:
        assert _sym(str(n.shape)) == _sym(str(t.shape)) == "torch.Size([2*, j*, 3])".replace(
            "2*", "3")
        assert _sym(str(n.size(1))) == _sym(str(t.size(1)))
        assert len(n) == len(t)
        assert _sym(str(n.stride())) == _sym(str(t.stride()))
        assert n.offsets().tolist() == t.offsets().tolist()
        assert str(n.offsets().dtype) == str(t.offsets().dtype)
        _same(n.values(), t.values())


def test_strided_values_is_the_flat_buffer():
    n, t = _pair(_draw(SHAPES), "strided")
    _same(n.values(), t.values())


def test_strided_irregular_dims():
    arrays = _draw([(2, 3), (4, 5)])
    n, t = _pair(arrays, "strided")
    _same(n, t)
    _raises_same(lambda: n.size(2), lambda: t.size(2))
    _same(n.to_padded_tensor(1.5), t.to_padded_tensor(1.5))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_unbind_iteration_and_indexing(layout):
    n, t = _pair(_draw(SHAPES, 6), layout)
    for a, b in zip(n.unbind(), t.unbind()):
        _same(a, b)
    for a, b in zip(list(n), list(t)) if layout == "jagged" else []:
        _same(a, b)
    for i in (0, 1, -1):
        _same(n[i], t[i])
    _same(n[1, 2], t[1, 2])
    _same(n[0, :, 1], t[0, :, 1])
    for bad in (3, -4):
        _raises_same(lambda bad=bad: n[bad], lambda bad=bad: t[bad])
    _raises_same(lambda: n[:, 1], lambda: t[:, 1])
    _raises_same(lambda: n.unbind(1), lambda: t.unbind(1)) if layout == "jagged" else None


@pytest.mark.parametrize("layout", LAYOUTS)
def test_unbind_gradient(layout):
    nl, tl = _leaves(_draw(SHAPES, 7))
    n, t = _nest(nl, tl, layout)
    cot = [np.random.default_rng(i).standard_normal(s).astype(np.float32)
           for i, s in enumerate(SHAPES)]
    on = sum((c * numtorch.tensor(g)).sum() for c, g in zip(n.unbind(), cot))
    ot = sum((c * torch.tensor(g)).sum() for c, g in zip(t.unbind(), cot))
    for a, b in zip(numtorch.autograd.grad(on, nl), torch.autograd.grad(ot, tl)):
        _same(a, b)


@pytest.mark.parametrize("padding", [0.0, -1.0, 2.5])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_padded_tensor(layout, padding):
    n, t = _pair(_draw(SHAPES, 8), layout)
    _same(numtorch.nested.to_padded_tensor(n, padding), torch.nested.to_padded_tensor(t, padding))
    _same(n.to_padded_tensor(padding, (3, 6, 4)), t.to_padded_tensor(padding, (3, 6, 4)))
    for size in ((3, 2, 3), (2, 4, 3), (3, 4, 2)):
        if layout == "strided":
            _raises_same(lambda size=size: n.to_padded_tensor(0.0, size),
                         lambda size=size: t.to_padded_tensor(0.0, size))
        else:  # jagged: only the ragged length is read, and a shorter one truncates
            _same(n.to_padded_tensor(padding, size), t.to_padded_tensor(padding, size))
    if layout == "strided":
        _raises_same(lambda: n.to_padded_tensor(0.0, (3, 6)),
                     lambda: t.to_padded_tensor(0.0, (3, 6)))
    else:
        _same(n.to_padded_tensor(padding, (3, 6)), t.to_padded_tensor(padding, (3, 6)))
        _raises_same(lambda: n.to_padded_tensor(0.0, (5,)), lambda: t.to_padded_tensor(0.0, (5,)))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_padded_tensor_backward_into_nested_leaf(layout):
    arrays = _draw(SHAPES, 9)
    n, t = _pair(arrays, layout, requires_grad=True)
    pn, pt = n.to_padded_tensor(0.0, (3, 5, 3)), t.to_padded_tensor(0.0, (3, 5, 3))
    cot = np.random.default_rng(2).standard_normal((3, 5, 3)).astype(np.float32)
    pn.backward(numtorch.tensor(cot))
    pt.backward(torch.tensor(cot))
    assert n.grad.is_nested
    _same(n.grad, t.grad)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_detach_clone_requires_grad(layout):
    n, t = _pair(_draw(SHAPES, 10), layout)
    _same(n.to(numtorch.float64), t.to(torch.float64))
    _same(n.clone(), t.clone())
    _same(n.detach(), t.detach())
    rn, rt = n.requires_grad_(), t.requires_grad_()
    assert rn is n and rn.requires_grad and rt.requires_grad
    dn = n.detach()
    assert not dn.requires_grad and dn.is_nested


# -- printing ----------------------------------------------------------------------------------
def test_repr_strided():
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(9.).reshape(3, 3)]
    n, t = _pair(arrays, "strided")
    assert repr(n) == repr(t)
    n, t = _pair(arrays, "strided", requires_grad=True)
    assert repr(n) == repr(t)
    n, t = _pair([np.array([1, 2]), np.array([3])], "strided")
    assert repr(n) == repr(t)
    n, t = _pair([np.zeros((0, 3), np.float32)], "strided")
    assert repr(n) == repr(t)


def test_repr_jagged():
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3),
              np.arange(9, dtype=np.float32).reshape(3, 3)]
    n, t = _pair(arrays, "jagged")
    assert _sym(repr(n)) == _sym(repr(t))
    n, t = _pair(arrays, "jagged", requires_grad=True)
    assert _sym(repr(n)) == _sym(repr(t))


# -- elementwise -------------------------------------------------------------------------------
UNARY = ["relu", "gelu", "silu", "sin", "cos", "neg", "abs", "tanh", "sgn"]
UNARY_JAGGED = ["exp", "sigmoid", "square", "floor", "erf", "expm1", "reciprocal"]


def _fn(lib, name):
    return getattr(lib, name, None) or getattr(lib.nn.functional, name)


def _dense_grads(tl, dense, cot):
    """The reference gradient from dense torch, one component at a time: ``dense(c)`` of each
    component against its corner of the padded cotangent."""
    total = 0
    for i, c in enumerate(tl[:len(cot)]):
        out = dense(c)
        corner = cot[i][tuple(slice(0, s) for s in out.shape)]
        total = total + (out * torch.tensor(np.ascontiguousarray(corner))).sum()
    return torch.autograd.grad(total, tl, allow_unused=True)


def _grad_pair(nl, tl, on, ot, seed=3, dense=None):
    """Gradients through ``to_padded_tensor`` with a random cotangent, against torch's nested
    backward, or (where torch has none, or ``dense`` is preferred) the dense reference."""
    pn = numtorch.nested.to_padded_tensor(on, 0.0)
    pt = torch.nested.to_padded_tensor(ot.contiguous(), 0.0)
    _same(pn, pt, rtol=1e-4, atol=1e-5)
    cot = np.random.default_rng(seed).standard_normal(tuple(pt.shape)).astype(np.float32)
    gn = numtorch.autograd.grad(pn, nl, numtorch.tensor(cot), allow_unused=True,
                                retain_graph=True)
    try:
        gt = torch.autograd.grad(pt, tl, torch.tensor(cot), allow_unused=True,
                                 retain_graph=True)
    except (NotImplementedError, RuntimeError, IndexError):
        if dense is None:
            raise
        gt = _dense_grads(tl, dense, cot)
    for a, b in zip(gn, gt):
        if b is None:
            assert a is None or not a.abs().sum().item()
        else:
            _same(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", UNARY + UNARY_JAGGED)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_unary(layout, name):
    nl, tl = _leaves(_draw(SHAPES, 11))
    n, t = _nest(nl, tl, layout)
    if layout == "strided" and name in UNARY_JAGGED:
        _raises_same(lambda: _fn(numtorch, name)(n), lambda: _fn(torch, name)(t))
        return
    on, ot = _fn(numtorch, name)(n), _fn(torch, name)(t)
    _same(on, ot)
    # torch has no nested backward for tanh/sgn on strided tensors: the dense one is the oracle
    _grad_pair(nl, tl, on, ot, dense=_fn(torch, name))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_method_forms(layout):
    n, t = _pair(_draw(SHAPES, 12), layout)
    _same(n.relu(), t.relu())
    _same(-n, -t)
    _same(abs(n), abs(t))
    _same(numtorch.nn.functional.gelu(n, approximate="tanh"),
          torch.nn.functional.gelu(t, approximate="tanh"))
    _same(numtorch.nn.ReLU()(n), torch.nn.ReLU()(t))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_binary_nested_and_scalar(layout, op):
    arrays = _draw(SHAPES, 13)
    nl, tl = _leaves(arrays)
    n, t = _nest(nl, tl, layout)
    fn, ft = getattr(numtorch, op), getattr(torch, op)
    if layout == "strided":
        other_n, other_t = _nest(*_leaves(_draw(SHAPES, 14)), layout)
        nl2, tl2 = nl, tl
    else:  # torch combines jagged tensors that share one offsets tensor (one ragged size)
        other_n, other_t = n.cos(), t.cos()
        nl2, tl2 = nl, tl
    on, ot = fn(n, other_n), ft(t, other_t)
    _same(on, ot)
    _grad_pair(nl2, tl2, on, ot)
    on, ot = fn(n, 2.5), ft(t, 2.5)
    _same(on, ot)
    _grad_pair(nl, tl, on, ot, seed=4)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_binary_operators(layout):
    n, t = _pair(_draw(SHAPES, 15), layout)
    _same(n + 1, t + 1)
    _same(1 + n, 1 + t)
    _same(n * 3, t * 3)
    _same(n / 4, t / 4)
    _same(n - n, t - t)
    _same(numtorch.add(n, n, alpha=2), torch.add(t, t, alpha=2))
    for f in (lambda x: 1 - x, lambda x: 2 / x, lambda x: x ** 2):
        if layout == "strided":
            _raises_same(lambda f=f: f(n), lambda f=f: f(t))
        else:
            _same(f(n), f(t))


def test_binary_int_promotes():
    n = numtorch.nested.nested_tensor([numtorch.arange(3), numtorch.arange(2)])
    t = torch.nested.nested_tensor([torch.arange(3), torch.arange(2)])
    _same(n + 1.5, t + 1.5)
    _same(n * 2, t * 2)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_structure_errors(op):
    a, b = _draw([(2, 3), (4, 3)], 16), _draw([(2, 3), (2, 3)], 17)
    n1, t1 = _pair(a, "strided")
    n2, t2 = _pair(b, "strided")
    fn, ft = getattr(numtorch, op), getattr(torch, op)
    _raises_same(lambda: fn(n1, n2), lambda: ft(t1, t2))
    _raises_same(lambda: fn(n1, numtorch.ones(3)), lambda: ft(t1, torch.ones(3)))
    _raises_same(lambda: fn(numtorch.ones(3), n1), lambda: ft(torch.ones(3), t1))
    j1, u1 = _pair(a, "jagged")
    j2, u2 = _pair(a, "jagged")  # same lengths, a different offsets tensor
    with pytest.raises(RuntimeError) as en:
        fn(j1, j2)
    with pytest.raises(RuntimeError) as et:
        ft(u1, u2)
    assert _sym(str(en.value)) == _sym(str(et.value))


@pytest.mark.parametrize("dense_shape", [(3,), (1, 3), (3, 1, 3), (1, 1, 3)])
def test_jagged_with_dense_broadcast(dense_shape):
    nl, tl = _leaves(_draw(SHAPES, 18))
    n, t = _nest(nl, tl, "jagged")
    d = np.random.default_rng(9).standard_normal(dense_shape).astype(np.float32)
    dn, dt = numtorch.tensor(d, requires_grad=True), torch.tensor(d, requires_grad=True)
    on, ot = n * dn, t * dt
    _same(on, ot)
    _grad_pair(nl + [dn], tl + [dt], on, ot)
    _same(dn + n, dt + t)


# -- softmax, linear, matmul -------------------------------------------------------------------
@pytest.mark.parametrize("dim", [-1, 1, 2])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("which", ["softmax", "log_softmax"])
def test_softmax_regular_tail(layout, dim, which):
    nl, tl = _leaves(_draw(SHAPES, 19))
    n, t = _nest(nl, tl, layout)
    fn, ft = getattr(numtorch.nn.functional, which), getattr(torch.nn.functional, which)
    if which == "log_softmax" and (layout == "strided" or dim == 1):
        _raises_same(lambda: fn(n, dim=dim), lambda: ft(t, dim=dim))
        return
    on, ot = fn(n, dim=dim), ft(t, dim=dim)
    _same(on, ot)
    dense = lambda c: ft(c, dim=(dim - 1 if dim > 0 else dim))
    if layout == "jagged" and dim == 1:
        # torch 2.13's jagged backward over the ragged dim disagrees with the dense softmax
        # of each component (it is off by up to ~0.7 here); the dense one is the oracle
        cot = np.random.default_rng(3).standard_normal((3, 4, 3)).astype(np.float32)
        pn = numtorch.nested.to_padded_tensor(on, 0.0)
        gn = numtorch.autograd.grad(pn, nl, numtorch.tensor(cot))
        for a, b in zip(gn, _dense_grads(tl, dense, cot)):
            _same(a, b, rtol=1e-4, atol=1e-5)
    else:
        _grad_pair(nl, tl, on, ot, dense=dense)
    _same(getattr(n, which)(dim), getattr(t, which)(dim))
    _raises_same(lambda: getattr(n, which)(0), lambda: getattr(t, which)(0))


@pytest.mark.parametrize("dim", [-1, 1])
def test_softmax_over_ragged_rows(dim):
    # attention-score shapes: the softmax dim itself differs between components
    shapes = [(2, 2), (4, 4), (3, 3)]
    nl, tl = _leaves(_draw(shapes, 20))
    n, t = _nest(nl, tl, "strided")
    on, ot = n.softmax(dim), t.softmax(dim)
    _same(on, ot)
    _grad_pair(nl, tl, on, ot)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_linear(layout, bias):
    nl, tl = _leaves(_draw(SHAPES, 21))
    n, t = _nest(nl, tl, layout)
    w = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)
    b = np.random.default_rng(4).standard_normal(5).astype(np.float32)
    wn, wt = numtorch.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    bn = numtorch.tensor(b, requires_grad=True) if bias else None
    bt = torch.tensor(b, requires_grad=True) if bias else None
    on = numtorch.nn.functional.linear(n, wn, bn)
    ot = torch.nn.functional.linear(t, wt, bt)
    _same(on, ot, rtol=1e-4, atol=1e-5)
    extra_n, extra_t = [wn] + ([bn] if bias else []), [wt] + ([bt] if bias else [])
    _grad_pair(nl + extra_n, tl + extra_t, on, ot)


def test_linear_module_on_nested():
    numtorch.manual_seed(0)
    lin = numtorch.nn.Linear(3, 4)
    tlin = torch.nn.Linear(3, 4)
    with torch.no_grad():
        tlin.weight.copy_(torch.tensor(lin.weight.detach().numpy()))
        tlin.bias.copy_(torch.tensor(lin.bias.detach().numpy()))
    n, t = _pair(_draw(SHAPES, 22), "jagged")
    _same(lin(n), tlin(t), rtol=1e-4, atol=1e-5)


def test_strided_bmm_and_matmul():
    a_shapes, b_shapes = [(2, 3), (4, 5), (1, 2)], [(3, 4), (5, 2), (2, 3)]
    nl, tl = _leaves(_draw(a_shapes, 23) + _draw(b_shapes, 24))
    na = numtorch.nested.as_nested_tensor(nl[:3])
    nb = numtorch.nested.as_nested_tensor(nl[3:])
    ta = torch.nested.as_nested_tensor(tl[:3])
    tb = torch.nested.as_nested_tensor(tl[3:])
    on, ot = na.bmm(nb), ta.bmm(tb)
    _same(on, ot, rtol=1e-4, atol=1e-5)
    _grad_pair(nl, tl, on, ot)
    _same(numtorch.matmul(na, nb), torch.matmul(ta, tb), rtol=1e-4, atol=1e-5)
    _same(na @ nb, ta @ tb, rtol=1e-4, atol=1e-5)


def test_strided_attention_scores():
    shapes = [(2, 4), (5, 4), (3, 4)]
    nl, tl = _leaves(_draw(shapes, 25))
    n, t = _nest(nl, tl, "strided")
    on = (n @ n.transpose(1, 2)).softmax(-1) @ n
    ot = (t @ t.transpose(1, 2)).softmax(-1) @ t
    _same(on, ot, rtol=1e-4, atol=1e-5)
    _grad_pair(nl, tl, on, ot)


def test_strided_matmul_errors():
    n, t = _pair(_draw([(2, 3), (4, 3)], 26), "strided")
    n2, t2 = _pair(_draw([(3, 2), (2, 2)], 27), "strided")
    _raises_same(lambda: n.bmm(n2), lambda: t.bmm(t2))
    _raises_same(lambda: n @ numtorch.ones(3, 5), lambda: t @ torch.ones(3, 5))
    v, vt = _pair(_draw([(3,), (2,)], 28), "strided")
    _raises_same(lambda: v.bmm(v), lambda: vt.bmm(vt))


@pytest.mark.parametrize("wshape", [(3, 5), (3, 3, 5)])
def test_jagged_matmul_dense(wshape):
    nl, tl = _leaves(_draw(SHAPES, 29))
    n, t = _nest(nl, tl, "jagged")
    w = np.random.default_rng(7).standard_normal(wshape).astype(np.float32)
    wn, wt = numtorch.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    on, ot = n @ wn, t @ wt
    _same(on, ot, rtol=1e-4, atol=1e-5)
    _grad_pair(nl + [wn], tl + [wt], on, ot)


# -- transpose and sum -------------------------------------------------------------------------
def test_strided_transpose():
    shapes = [(2, 3, 4), (1, 5, 2)]
    nl, tl = _leaves(_draw(shapes, 30))
    n, t = _nest(nl, tl, "strided")
    for d0, d1 in ((1, 2), (2, 3), (-1, 1)):
        on, ot = n.transpose(d0, d1), t.transpose(d0, d1)
        _same(on, ot)
        _grad_pair(nl, tl, on, ot)
    _raises_same(lambda: n.transpose(0, 1), lambda: t.transpose(0, 1))
    j, u = _pair(_draw(SHAPES, 31), "jagged")
    _raises_same(lambda: j.transpose(0, 1), lambda: u.transpose(0, 1))


def test_sum_strided():
    nl, tl = _leaves(_draw(SHAPES, 32))
    n, t = _nest(nl, tl, "strided")
    on, ot = n.sum(-1, keepdim=True), t.sum(-1, keepdim=True)
    _same(on, ot)
    _grad_pair(nl, tl, on, ot)
    for f in (lambda x: x.sum(-1), lambda x: x.sum(1), lambda x: x.sum(0), lambda x: x.sum(),
              lambda x: x.sum((1,))):
        _raises_same(lambda f=f: f(n), lambda f=f: f(t))


@pytest.mark.parametrize("dim,keepdim", [(-1, False), (2, True), (1, False), (1, True),
                                         ((0, 1), False), (None, False)])
def test_sum_jagged(dim, keepdim):
    nl, tl = _leaves(_draw(SHAPES, 33))
    n, t = _nest(nl, tl, "jagged")
    on = n.sum() if dim is None else n.sum(dim, keepdim=keepdim)
    ot = t.sum() if dim is None else t.sum(dim, keepdim=keepdim)
    _same(on, ot, rtol=1e-5, atol=1e-5)
    if ot.is_nested:
        assert _sym(str(on.shape)) == _sym(str(ot.shape))
        # torch 2.13 has no backward for a nested sum: the dense one is the oracle
        _grad_pair(nl, tl, on, ot, dense=lambda c: c.sum(dim if dim < 0 else dim - 1,
                                                         keepdim=keepdim))
    else:
        cot = np.random.default_rng(0).standard_normal(tuple(ot.shape)).astype(np.float32)
        gn = numtorch.autograd.grad(on, nl, numtorch.tensor(cot))
        # torch 2.13 has no backward for a nested sum: the dense sums are the oracle
        ct = torch.tensor(cot)
        if dim is None:
            ref = [torch.full(c.shape, float(cot)) for c in tl]
        elif dim == (0, 1):
            ref = [ct.expand(c.shape) for c in tl]
        else:
            ref = [(ct[i] if keepdim is False else ct[i, 0]).expand(c.shape)
                   for i, c in enumerate(tl)]
        for a, b in zip(gn, ref):
            _same(a, b)
    _raises_same(lambda: n.sum(0), lambda: t.sum(0))


def test_unsupported_op_names_the_aten_operator():
    n, t = _pair(_draw(SHAPES, 34), "strided")
    for f in (lambda x: x.exp(), lambda x: x.mean(-1), lambda x: x.sum()):
        _raises_same(lambda f=f: f(n), lambda f=f: f(t))


def test_submodule_import_paths():
    import importlib

    assert importlib.import_module("numtorch.nested") is numtorch.nested
    assert callable(numtorch.nested.nested_tensor)
    assert set(torch.nested.__all__) <= set(numtorch.nested.__all__)


def test_constructor_and_padding_errors():
    _raises_same(lambda: numtorch.nested.to_padded_tensor(numtorch.ones(2, 3), 0.0),
                 lambda: torch.nested.to_padded_tensor(torch.ones(2, 3), 0.0))
    _raises_same(lambda: numtorch.nested.as_nested_tensor(5),
                 lambda: torch.nested.as_nested_tensor(5))
    _raises_same(lambda: numtorch.nested.nested_tensor([numtorch.ones(2)],
                                                       layout=numtorch.sparse_coo),
                 lambda: torch.nested.nested_tensor([torch.ones(2)], layout=torch.sparse_coo))


@pytest.mark.parametrize("shape,mshape", [((3, 4), (3, 4)), ((2, 3, 4), (2, 3, 4)),
                                          ((4,), (4,)), ((3, 4), (4,))])
def test_masked_select(shape, mshape):
    rng = np.random.default_rng(40)
    x = rng.standard_normal(shape).astype(np.float32)
    m = rng.random(mshape) < 0.5
    xn, xt = numtorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    n = numtorch.nested.masked_select(xn, numtorch.tensor(m))
    t = torch.nested.masked_select(xt, torch.tensor(m))
    _same(n, t)
    assert _sym(str(n.shape)) == _sym(str(t.shape))
    assert n.offsets().tolist() == t.offsets().tolist()
    _same(n.to_padded_tensor(-1.0), t.to_padded_tensor(-1.0))
    g = rng.standard_normal(tuple(t.values().shape)).astype(np.float32)
    _same(numtorch.autograd.grad(n.values(), xn, numtorch.tensor(g))[0],
          torch.autograd.grad(t.values(), xt, torch.tensor(g))[0])


def test_masked_select_errors():
    x, m = np.ones((2, 3), np.float32), np.ones((2, 3), bool)
    jn, jt = _pair([x], "jagged")
    _raises_same(lambda: numtorch.nested.masked_select(jn, numtorch.tensor(m)),
                 lambda: torch.nested.masked_select(jt, torch.tensor(m)))
    _raises_same(lambda: numtorch.nested.masked_select(numtorch.tensor(x), numtorch.tensor(m).int()),
                 lambda: torch.nested.masked_select(torch.tensor(x), torch.tensor(m).int()))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_layer_norm(layout):
    nl, tl = _leaves(_draw(SHAPES, 41))
    n, t = _nest(nl, tl, layout)
    numtorch.manual_seed(0)
    ln = numtorch.nn.LayerNorm(3)
    tn = torch.nn.LayerNorm(3)
    w = np.random.default_rng(1).standard_normal(3).astype(np.float32)
    with torch.no_grad():
        tn.weight.copy_(torch.tensor(w))
    with numtorch.no_grad():
        ln.weight.copy_(numtorch.tensor(w))
    on, ot = ln(n), tn(t)
    _same(on, ot, rtol=1e-4, atol=1e-5)
    _grad_pair(nl + [ln.weight], tl + [tn.weight], on, ot)
    if layout == "strided":
        _raises_same(lambda: numtorch.nn.functional.layer_norm(n, (3,)),
                     lambda: torch.nn.functional.layer_norm(t, (3,)))
    else:
        _same(numtorch.nn.functional.layer_norm(n, (3,)), torch.nn.functional.layer_norm(t, (3,)),
              rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("keepdim", [False, True])
def test_mean(keepdim):
    nl, tl = _leaves(_draw(SHAPES, 42))
    n, t = _nest(nl, tl, "jagged")
    on, ot = n.mean(-1, keepdim=keepdim), t.mean(-1, keepdim=keepdim)
    _same(on, ot)
    assert _sym(str(on.shape)) == _sym(str(ot.shape))
    _grad_pair(nl, tl, on, ot, dense=lambda c: c.mean(-1, keepdim=keepdim))
    s, u = _pair(_draw(SHAPES, 43), "strided")
    _raises_same(lambda: s.mean(-1, keepdim=keepdim), lambda: u.mean(-1, keepdim=keepdim))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_structure_keeping_methods(layout):
    n, t = _pair(_draw(SHAPES, 44), layout)
    for f in (lambda x: x.contiguous(), lambda x: x.cpu(), lambda x: x.double(),
              lambda x: x.double().float(), lambda x: x.half(), lambda x: x.to("cpu"),
              lambda x: x.to(dtype=x.double().dtype), lambda x: x.clone(),
              lambda x: x.type_as(x.double()),
              lambda x: (torch if isinstance(x, torch.Tensor) else numtorch).zeros_like(x),
              lambda x: (torch if isinstance(x, torch.Tensor) else numtorch).ones_like(x)):
        rn, rt = f(n), f(t)
        _same(rn, rt)
    assert len(numtorch.unbind(n)) == len(torch.unbind(t))
    assert n.element_size() == t.element_size()
    for f in (lambda x: x.numpy(), lambda x: x.tolist(), lambda x: x.item(),
              lambda x: bool(x)):
        _raises_same(lambda f=f: f(n), lambda f=f: f(t))


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "ge"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_comparisons(layout, op):
    n, t = _pair(_draw(SHAPES, 45), layout)
    fn, ft = getattr(numtorch, op), getattr(torch, op)
    if layout == "strided":
        _raises_same(lambda: fn(n, n), lambda: ft(t, t))
        if op in ("eq", "ge"):
            _same(fn(n, 0.5), ft(t, 0.5))
        else:
            _raises_same(lambda: fn(n, 0.5), lambda: ft(t, 0.5))
    else:
        _same(fn(n, n.sin()), ft(t, t.sin()))
        _same(fn(n, 0.5), ft(t, 0.5))


# -- transposed jagged tensors and attention ---------------------------------------------------
HEADS = [(2, 4, 3), (5, 4, 3), (1, 4, 3)]


def test_jagged_transpose_of_the_ragged_dim():
    nl, tl = _leaves(_draw(HEADS, 50))
    n, t = _nest(nl, tl, "jagged")
    on, ot = n.transpose(1, 2), t.transpose(1, 2)
    assert _sym(str(on.shape)) == _sym(str(ot.shape))
    assert on.is_contiguous() == ot.is_contiguous() is False
    assert _sym(repr(on)) == _sym(repr(ot))
    _same(on, ot)
    _same(on.values(), ot.values())
    _same(on.to_padded_tensor(0.0), ot.to_padded_tensor(0.0))
    _same(on.to_padded_tensor(-1.0, (3, 4, 7, 3)), ot.to_padded_tensor(-1.0, (3, 4, 7, 3)))
    for f in (lambda x: x * 2, lambda x: x.sin(), lambda x: x.clone(), lambda x: x.detach(),
              lambda x: x.contiguous(), lambda x: x.transpose(1, 2), lambda x: x.sum(-1),
              lambda x: x.transpose(2, 3)):
        rn, rt = f(on), f(ot)
        _same(rn, rt)
        assert rn.is_contiguous() == rt.is_contiguous()
        assert _sym(str(rn.shape)) == _sym(str(rt.shape))
    # torch 2.13 cannot take this padded gradient back (offsets check): the dense oracle
    _grad_pair(nl, tl, on.sin(), ot.sin(), dense=lambda c: c.transpose(0, 1).sin())
    cot = np.random.default_rng(2).standard_normal(tuple(ot.values().shape)).astype(np.float32)
    for a, b in zip(numtorch.autograd.grad(on.values(), nl, numtorch.tensor(cot)),
                    torch.autograd.grad(ot.values(), tl, torch.tensor(cot))):
        _same(a, b)
    _raises_same(lambda: on.softmax(2), lambda: ot.softmax(2))
    _same(on.softmax(-1), ot.softmax(-1))
    _raises_same(lambda: numtorch.nn.functional.linear(on, numtorch.ones(5, 3)),
                 lambda: torch.nn.functional.linear(ot, torch.ones(5, 3)))
    assert n.transpose(2, 3).is_contiguous() == t.transpose(2, 3).is_contiguous()


def test_strided_transpose_is_not_contiguous():
    n, t = _pair(_draw([(2, 3, 4), (1, 3, 4)], 51), "strided")
    assert n.transpose(1, 2).is_contiguous() == t.transpose(1, 2).is_contiguous()
    assert n.transpose(1, 2).contiguous().is_contiguous() == \
        t.transpose(1, 2).contiguous().is_contiguous()


@pytest.mark.parametrize("scale", [None, 0.3])
def test_jagged_scaled_dot_product_attention(scale):
    arrays = _draw(HEADS, 52)
    nl, tl = _leaves(arrays)
    nq, tq = _nest(nl[0:3], tl[0:3], "jagged")
    # keys and values are made from the queries, so they share their ragged size
    on = numtorch.nn.functional.scaled_dot_product_attention(
        nq.transpose(1, 2), nq.transpose(1, 2).cos() * 2, nq.transpose(1, 2).sin(), scale=scale)
    ot = torch.nn.functional.scaled_dot_product_attention(
        tq.transpose(1, 2), tq.transpose(1, 2).cos() * 2, tq.transpose(1, 2).sin(), scale=scale)
    assert _sym(str(on.shape)) == _sym(str(ot.shape))
    assert on.is_contiguous() == ot.is_contiguous()
    _same(on, ot, rtol=1e-4, atol=1e-5)
    _grad_pair(nl[0:3], tl[0:3], on.transpose(1, 2), ot.transpose(1, 2))
