"""Memory layouts (``stride()``, ``is_contiguous()``) of ``torch.fft`` results for inputs with
size-1 dims (of any stride) and expanded (stride-0) dims, against torch: the batch dims
outermost ranked by stride (equal strides in torch's swap order), the transformed ones inside
in the order ``dim`` names them, a one-sided transform's last dim innermost.
tests/test_user_programs_s34.py covers permuted and sliced layouts without size-1 dims."""

import itertools
import random

import numpy as np
import pytest
import torch

import numtorch

_ONE_SIDED_INPUT_REAL = {"rfft", "rfft2", "rfftn", "ihfft", "ihfft2", "ihfftn"}
_FNS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
        "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
_SHAPES = [(1,), (1, 4), (4, 1), (3, 1, 4), (1, 1, 4), (2, 3), (2, 1, 1), (1, 5, 1), (3, 1, 1, 2)]


def _make(lib, shape, kind, cplx):
    a = lib.arange(float(np.prod(shape))).reshape(shape)
    if cplx:
        a = lib.complex(a, a + 1)
    if kind == "expand":
        a = a.expand(tuple(3 if s == 1 else s for s in shape))
    elif kind == "transpose" and len(shape) > 1:
        a = a.transpose(0, -1)
    elif kind == "permute" and len(shape) == 3:
        a = a.permute(1, 2, 0)
    return a


def _dim_args(name, ndim):
    if name.endswith("2"):
        return [{"dim": d} for d in itertools.permutations(range(ndim), 2)]
    if name.endswith("n"):
        return [{}] + [{"dim": d} for k in (1, 2) for d in itertools.permutations(range(ndim), k)]
    return [{"dim": d} for d in range(-ndim, 0)] + [{"dim": -1, "norm": "ortho"}]


def _layout(lib, name, x, kw):
    try:
        y = getattr(lib.fft, name)(x, **kw)
    except RuntimeError as e:
        return type(e).__name__
    return tuple(y.shape), tuple(y.stride()), y.is_contiguous()


@pytest.mark.parametrize("name", _FNS)
def test_result_strides_with_size_one_and_expanded_dims(name):
    checked = 0
    for shape in _SHAPES:
        for kind in ("contiguous", "expand", "transpose", "permute"):
            for cplx in (False, True):
                if cplx and name in _ONE_SIDED_INPUT_REAL:
                    continue
                a, b = _make(numtorch, shape, kind, cplx), _make(torch, shape, kind, cplx)
                for kw in _dim_args(name, len(shape)):
                    if name.endswith("2") and len(shape) < 2:
                        continue
                    got, want = _layout(numtorch, name, a, kw), _layout(torch, name, b, kw)
                    assert got == want, (shape, kind, cplx, kw)
                    checked += 1
    assert checked > 100


def _random_layouts(count, seed):
    """(shape, strides, dims) with size-1 dims of arbitrary strides over a permuted dense
    layout, and a random ordered subset of dims to transform."""
    rnd = random.Random(seed)
    out = []
    for _ in range(count):
        n = rnd.randint(2, 4)
        shape = [rnd.choice([1, 1, 2, 3]) for _ in range(n)]
        order = list(range(n))
        rnd.shuffle(order)
        strides = [0] * n
        step = 1
        for d in reversed(order):
            strides[d] = step
            step *= shape[d]
        for d in range(n):
            if shape[d] == 1 and rnd.random() < 0.5:
                strides[d] = rnd.choice([1, 2, 3, 5, 7, 12])
        out.append((shape, strides, rnd.sample(range(n), rnd.randint(1, n))))
    return out


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
def test_result_strides_of_random_layouts_with_size_one_dims(name):
    for shape, strides, dims in _random_layouts(150, 7):
        cplx = name not in _ONE_SIDED_INPUT_REAL
        base_a = numtorch.arange(1.0, 201.0)
        base_b = torch.arange(1.0, 201.0)
        if cplx:
            base_a, base_b = numtorch.complex(base_a, -base_a), torch.complex(base_b, -base_b)
        a = base_a.as_strided(shape, strides)
        b = base_b.as_strided(shape, strides)
        got = _layout(numtorch, name, a, {"dim": dims})
        want = _layout(torch, name, b, {"dim": dims})
        assert got == want, (shape, strides, dims)


def test_values_unchanged_by_the_layout():
    x = torch.arange(24.0).reshape(2, 1, 3, 4).transpose(0, 3)
    y = numtorch.arange(24.0).reshape(2, 1, 3, 4).transpose(0, 3)
    for name, kw in (("fftn", {"dim": (2, 0)}), ("rfftn", {"dim": (1, 0)}),
                     ("ihfftn", {"dim": (0, 1)}), ("fft", {"dim": 1})):
        want = getattr(torch.fft, name)(x, **kw)
        got = getattr(numtorch.fft, name)(y, **kw)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-4)
        assert got.stride() == want.stride()


def test_conj_of_a_dense_input_keeps_its_strides():
    """hfft/ihfft conjugate along the way; torch's conj keeps a dense input's strides,
    size-1 dims' included (NumPy's re-derives them)."""
    for mk in (lambda t: t.complex(t.zeros(4, 1), t.ones(4, 1)).t(),
               lambda t: t.complex(t.zeros(3, 1, 4), t.ones(3, 1, 4)).transpose(0, 2)):
        a, b = mk(numtorch), mk(torch)
        assert a.conj().stride() == b.conj().resolve_conj().stride()
        assert a.conj_physical().stride() == b.conj_physical().stride()


def test_conj_of_an_expanded_input_keeps_its_stride_zero_dims():
    """torch's lazy conjugate of an expanded tensor keeps the stride-0 dims (and refuses
    writes, as the expanded tensor does); conj_physical lays the result out densely."""
    def run(t):
        z = t.complex(t.ones(3, 1), t.arange(3.0).reshape(3, 1))
        w = z.clone().requires_grad_()
        out = []
        for e in (z.expand(3, 4), z.t().expand(4, 3), z.expand(2, 3, 4).transpose(0, 2)):
            c = e.conj()
            out.append((c.stride(), e.conj_physical().stride(), c.tolist() if
                        not c.is_conj() else c.resolve_conj().tolist()))
            try:
                c.add_(1)
            except RuntimeError as err:
                out.append(str(err))
        y = w.expand(3, 4)
        out.append((y.conj().grad_fn.name(), y.conj_physical().grad_fn.name()))
        g, = t.autograd.grad((y.conj() * t.arange(12.0).reshape(3, 4)).sum().real, w)
        out.append(g.tolist())
        return out

    assert run(numtorch) == run(torch)
