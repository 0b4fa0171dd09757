"""torch.fft, stft/istft and the window functions against real torch: values, dtypes,
gradients for random complex cotangents (first and second order) and errors."""

import warnings

import numpy as np
import pytest
import torch

import numtorch

RNG = np.random.default_rng(7)
C2C = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"]
C2R = ["irfft", "irfft2", "irfftn", "hfft", "hfft2", "hfftn"]
R2C = ["rfft", "rfft2", "rfftn", "ihfft", "ihfft2", "ihfftn"]


def _arr(shape, cplx, dtype=np.float64):
    a = RNG.standard_normal(shape)
    if cplx:
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype if not cplx else np.result_type(dtype, np.complex64))


def _same(a, b, tol):
    assert isinstance(a, numtorch.Tensor)
    b = b.resolve_conj()
    assert tuple(a.shape) == tuple(b.shape), (tuple(a.shape), tuple(b.shape))
    assert str(a.dtype) == str(b.dtype), (a.dtype, b.dtype)
    # (numpy() refuses a conjugate-bit tensor, as torch's does: ihfft's results carry it)
    np.testing.assert_allclose(a.detach().resolve_conj().numpy(), b.detach().numpy(), rtol=tol,
                               atol=tol)


def _both(name, a, mod="fft", **kw):
    fa = getattr(getattr(numtorch, mod) if mod else numtorch, name)
    fb = getattr(getattr(torch, mod) if mod else torch, name)
    return fa(numtorch.tensor(a), **kw), fb(torch.tensor(a), **kw)


@pytest.mark.parametrize("name", C2C + C2R + R2C)
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_values_and_dtypes(name, norm):
    for dt in (np.float32, np.float64):
        for cplx in ((False,) if name in R2C else (False, True)):
            a = _arr((3, 4, 6), cplx, dt)
            x, y = _both(name, a, norm=norm)
            _same(x, y, 2e-5 if dt == np.float32 else 1e-10)


@pytest.mark.parametrize("name,kw", [
    ("fft", dict(n=7)), ("fft", dict(n=2, dim=0)), ("ifft", dict(n=9, dim=1)),
    ("rfft", dict(n=9)), ("rfft", dict(n=3, dim=-2)), ("irfft", dict(n=5)),
    ("irfft", dict(n=11, dim=1)), ("hfft", dict(n=3)), ("ihfft", dict(n=8, dim=0)),
    ("fftn", dict(s=(2, -1))), ("fftn", dict(s=(5, 3), dim=(2, 0))), ("fftn", dict(dim=1)),
    ("ifftn", dict(dim=(0, 2))), ("rfftn", dict(s=(2, 7))), ("rfftn", dict(dim=(2, 0))),
    ("irfftn", dict(s=(2, 7))), ("irfftn", dict(dim=(0,))), ("irfftn", dict(s=(-1, -1))),
    ("hfftn", dict(s=(-1, 8))), ("ihfftn", dict(dim=1)), ("fft2", dict(s=(2, 9))),
    ("irfft2", dict(dim=(0, 1))), ("hfft2", dict(s=(3, 3), norm="ortho")),
    ("ihfft2", dict(dim=(2, 1), norm="forward")),
])
def test_sizes_and_dims(name, kw):
    x, y = _both(name, _arr((3, 4, 5), name not in R2C), **kw)
    _same(x, y, 1e-10)


def test_dtype_promotion():
    for dt in (np.int64, np.int32, np.bool_):
        a = (RNG.standard_normal((2, 6)) > 0).astype(dt)
        for name in ("fft", "rfft", "irfft", "hfft", "ihfft", "fftn"):
            x, y = _both(name, a)
            _same(x, y, 1e-5)
    numtorch.set_default_dtype(numtorch.float64)
    torch.set_default_dtype(torch.float64)
    try:
        x, y = _both("fft", np.arange(4))
        _same(x, y, 1e-12)
    finally:
        torch.set_default_dtype(torch.float32)
    # zero-dim input: nothing to transform, only the cast to complex
    x, y = _both("fftn", np.array(2.0, dtype=np.float32))
    _same(x, y, 0)


def _grad_check(name, shape, cplx, kw, second=True):
    a = _arr(shape, cplx)
    xa = numtorch.tensor(a, requires_grad=True)
    xb = torch.tensor(a, requires_grad=True)
    fa = getattr(numtorch.fft, name)
    fb = getattr(torch.fft, name)
    # a nonlinear map in front, so the transform's gradient is also differentiated
    ya, yb = fa(xa * xa, **kw), fb(xb * xb, **kw)
    _same(ya, yb, 1e-10)
    u = _arr(tuple(yb.shape), yb.is_complex())
    ua = numtorch.tensor(u, requires_grad=True)
    ub = torch.tensor(u, requires_grad=True)
    (ga,) = numtorch.autograd.grad(ya, xa, ua, create_graph=second)
    (gb,) = torch.autograd.grad(yb, xb, ub, create_graph=second)
    _same(ga, gb, 1e-9)
    if not second:
        return
    v = _arr(tuple(gb.shape), gb.is_complex())
    sa = (ga * numtorch.tensor(v)).sum()
    sb = (gb * torch.tensor(v)).sum()
    if sb.is_complex():
        sa, sb = sa.real, sb.real
    gga = numtorch.autograd.grad(sa, [xa, ua])
    ggb = torch.autograd.grad(sb, [xb, ub])
    for p, q in zip(gga, ggb):
        _same(p, q, 1e-8)


@pytest.mark.parametrize("name", C2C + C2R)
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_gradients_complex_input(name, norm):
    _grad_check(name, (3, 4), True, dict(norm=norm))


@pytest.mark.parametrize("name", C2C + C2R + R2C)
def test_gradients_real_input(name):
    _grad_check(name, (3, 5), False, {})


@pytest.mark.parametrize("name,shape,cplx,kw", [
    ("irfft", (3, 4), True, dict(n=5)), ("irfft", (3, 4), True, dict(n=9)),
    ("irfft", (3, 4), True, dict(n=2)), ("hfft", (2, 5), True, dict(n=7)),
    ("rfft", (3, 5), False, dict(n=8)), ("ihfft", (3, 4), False, dict(n=7)),
    ("rfftn", (3, 4, 5), False, dict(s=(2, 7))),
    ("irfftn", (3, 4, 5), True, dict(s=(2, 7), dim=(0, 2), norm="ortho")),
    ("hfftn", (3, 4, 5), True, dict(s=(5, 3))), ("ihfftn", (3, 4, 5), False, dict(dim=(1, 0))),
    ("fftn", (3, 4, 5), True, dict(s=(5, -1), dim=(2, 0))),
])
def test_gradients_resized(name, shape, cplx, kw):
    _grad_check(name, shape, cplx, kw)


def test_float32_stays_single():
    a = _arr((4, 8), False, np.float32)
    x = numtorch.tensor(a, requires_grad=True)
    y = numtorch.fft.rfft(x)
    assert y.dtype is numtorch.complex64
    (g,) = numtorch.autograd.grad(y.abs().sum(), x)
    assert g.dtype is numtorch.float32
    assert numtorch.fft.irfft(y).dtype is numtorch.float32


def _raises(fn, match=None):
    with pytest.raises(Exception) as eb:
        fn(torch)
    with pytest.raises(type(eb.value)) as ea:
        fn(numtorch)
    want = str(eb.value) if match is None else match
    assert want in str(ea.value), (str(ea.value), str(eb.value))


def test_errors():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)

    def t(lib):
        return lib.tensor(x)

    _raises(lambda L: L.fft.fft(t(L), n=0))
    _raises(lambda L: L.fft.fft(t(L), n=-1))
    _raises(lambda L: L.fft.fft(t(L), norm="bad"))
    _raises(lambda L: L.fft.fft(t(L), dim=2))
    _raises(lambda L: L.fft.fft(L.tensor(1.0)))
    _raises(lambda L: L.fft.fftn(t(L), dim=(0, 0)))
    _raises(lambda L: L.fft.fftn(t(L), s=(2,), dim=(0, 1)))
    _raises(lambda L: L.fft.fftn(t(L), s=(2, 3, 4)))
    _raises(lambda L: L.fft.fftn(t(L), s=(2, 0)))
    _raises(lambda L: L.fft.rfft(t(L).to(L.complex64)))
    _raises(lambda L: L.fft.ihfft(t(L).to(L.complex64)))
    _raises(lambda L: L.fft.fft(t(L).to(L.float16)))
    _raises(lambda L: L.fft.irfft(L.ones(1, dtype=L.complex64)))
    _raises(lambda L: L.fft.rfftn(t(L), dim=()))
    _raises(lambda L: L.fft.fft([1.0, 2.0]), "must be Tensor, not list")
    _raises(lambda L: L.fft.fft(t(L), n=True), "argument 'n' must be int, not bool")
    _raises(lambda L: L.fft.fft(t(L), norm=3), "argument 'norm' must be str, not int")
    _raises(lambda L: L.fft.fft(t(L), out=L.empty(0)))
    _raises(lambda L: L.fft.fft(t(L).requires_grad_(), out=L.empty(0, dtype=L.complex64)),
            "don't support automatic differentiation")
    _raises(lambda L: L.fft.fftfreq(5, dtype=L.int64))
    _raises(lambda L: L.fft.fftfreq(-1))
    _raises(lambda L: L.fft.fftfreq(5.0))


def test_out():
    a = _arr((3, 4), True)
    oa = numtorch.empty(0, dtype=numtorch.complex128)
    ob = torch.empty(0, dtype=torch.complex128)
    ra = numtorch.fft.fft(numtorch.tensor(a), out=oa)
    rb = torch.fft.fft(torch.tensor(a), out=ob)
    assert ra is oa and rb is ob
    _same(oa, ob, 1e-12)


def test_freqs_and_shifts():
    for n in (0, 1, 5, 6):
        for d in (1.0, 0.1, 3):
            for fn in ("fftfreq", "rfftfreq"):
                _same(getattr(numtorch.fft, fn)(n, d), getattr(torch.fft, fn)(n, d), 1e-6)
    _same(numtorch.fft.fftfreq(5, dtype=numtorch.float64),
          torch.fft.fftfreq(5, dtype=torch.float64), 0)
    assert numtorch.fft.rfftfreq(4, requires_grad=True).requires_grad
    a = np.arange(30.0).reshape(5, 6)
    for dim in (None, 0, 1, (0, 1), (-1,), (1, 0)):
        for fn in ("fftshift", "ifftshift"):
            x, y = _both(fn, a, dim=dim)
            _same(x, y, 0)
    x = numtorch.tensor(a, requires_grad=True)
    (g,) = numtorch.autograd.grad(numtorch.fft.fftshift(x)[0].sum(), x)
    xb = torch.tensor(a, requires_grad=True)
    (gb,) = torch.autograd.grad(torch.fft.fftshift(xb)[0].sum(), xb)
    _same(g, gb, 0)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
def test_windows(name):
    fa, fb = getattr(numtorch, name), getattr(torch, name)
    for n in (0, 1, 2, 5, 8):
        for periodic in (True, False):
            _same(fa(n, periodic), fb(n, periodic), 1e-6)
    _same(fa(7, dtype=numtorch.float64), fb(7, dtype=torch.float64), 1e-12)
    assert fa(4, requires_grad=True).requires_grad
    _raises(lambda L: getattr(L, name)(-1))
    _raises(lambda L: getattr(L, name)(5, dtype=L.int64), "expects floating point dtypes")
    _raises(lambda L: getattr(L, name)(5.0), "must be int, not float")
    _same(numtorch.hamming_window(6, False, 0.5, 0.4), torch.hamming_window(6, False, 0.5, 0.4),
          1e-6)
    _same(numtorch.kaiser_window(6, False, 3.0), torch.kaiser_window(6, False, 3.0), 1e-6)


def test_signal_windows():
    wa, wb = numtorch.signal.windows, torch.signal.windows
    assert sorted(wa.__all__) == sorted(wb.__all__)
    for name in wb.__all__:
        kw = {"a": [0.4, 0.3, 0.3]} if name == "general_cosine" else {}
        for m in (0, 1, 2, 5, 6):
            for sym in (True, False):
                _same(getattr(wa, name)(m, sym=sym, **kw), getattr(wb, name)(m, sym=sym, **kw),
                      1e-6)
        _raises(lambda L: getattr(L.signal.windows, name)(-2, **kw))
        _raises(lambda L: getattr(L.signal.windows, name)(3, dtype=L.int32, **kw))
    _same(wa.exponential(5, center=1.0, sym=False), wb.exponential(5, center=1.0, sym=False),
          1e-6)
    _same(wa.gaussian(6, std=2.0, dtype=numtorch.float64),
          wb.gaussian(6, std=2.0, dtype=torch.float64), 1e-12)
    _same(wa.kaiser(6, beta=3.0, sym=False), wb.kaiser(6, beta=3.0, sym=False), 1e-6)
    _raises(lambda L: L.signal.windows.exponential(5, center=1.0))
    _raises(lambda L: L.signal.windows.gaussian(5, std=0))
    _raises(lambda L: L.signal.windows.general_cosine(5, a=1.0))


STFT_CASES = [
    dict(n_fft=8), dict(n_fft=8, hop_length=3, win_length=5), dict(n_fft=8, center=False),
    dict(n_fft=8, normalized=True), dict(n_fft=8, onesided=False),
    dict(n_fft=7, hop_length=2, pad_mode="constant"), dict(n_fft=8, pad_mode="circular"),
    dict(n_fft=8, center=False, win_length=5, align_to_window=True),
]


@pytest.mark.parametrize("kw", STFT_CASES)
def test_stft_istft(kw):
    for shape, cplx in (((2, 40), False), ((40,), False), ((2, 40), True)):
        kw2 = dict(kw)
        if cplx:
            kw2["onesided"] = False
        wl = kw.get("win_length", kw["n_fft"])
        wa = numtorch.hann_window(wl, dtype=numtorch.float64)
        wb = torch.hann_window(wl, dtype=torch.float64)
        a = _arr(shape, cplx)
        xa, xb = numtorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        sa = numtorch.stft(xa, window=wa, return_complex=True, **kw2)
        sb = torch.stft(xb, window=wb, return_complex=True, **kw2)
        _same(sa, sb, 1e-10)
        u = _arr(tuple(sb.shape), True)
        _same(numtorch.autograd.grad(sa, xa, numtorch.tensor(u))[0],
              torch.autograd.grad(sb, xb, torch.tensor(u))[0], 1e-9)
        if kw.get("center") is False:
            continue
        ki = {k: v for k, v in kw2.items() if k != "pad_mode"}
        spec = _arr(tuple(sb.shape), True)
        ta, tb = numtorch.tensor(spec, requires_grad=True), torch.tensor(spec, requires_grad=True)
        for rc in ((False, True) if kw2.get("onesided") is False else (False,)):
            for length in (None, 30):
                ya = numtorch.istft(ta, window=wa, length=length, return_complex=rc, **ki)
                yb = torch.istft(tb, window=wb, length=length, return_complex=rc, **ki)
                _same(ya, yb, 1e-9)
                u = _arr(tuple(yb.shape), rc)
                _same(numtorch.autograd.grad(ya, ta, numtorch.tensor(u))[0],
                      torch.autograd.grad(yb, tb, torch.tensor(u))[0], 1e-9)


@pytest.mark.filterwarnings("ignore:A window was not provided")
def test_stft_round_trip_float32_and_errors():
    x = numtorch.randn(2, 64)
    w = numtorch.hann_window(16)
    s = numtorch.stft(x, 16, window=w, return_complex=True)
    assert s.dtype is numtorch.complex64
    y = numtorch.istft(s, 16, window=w, length=64)
    assert y.dtype is numtorch.float32
    np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = numtorch.stft(x, 16, window=w, return_complex=False)
    assert tuple(r.shape) == (2, 9, 17, 2)
    from numtorch import _warn_once

    _warn_once._DONE.discard("stft-no-window")  # torch warns once per process
    with pytest.warns(UserWarning, match="A window was not provided"):
        numtorch.stft(x, 16, return_complex=True)
    sig = np.random.default_rng(1).standard_normal((2, 40)).astype(np.float32)

    def t(L):
        return L.tensor(sig)

    _raises(lambda L: L.stft(t(L), 8, window=L.hann_window(8)))
    _raises(lambda L: L.stft(t(L), 8, window=L.hann_window(6), return_complex=True))
    _raises(lambda L: L.stft(t(L), 8, win_length=9, return_complex=True))
    _raises(lambda L: L.stft(t(L), 50, center=False, return_complex=True))
    _raises(lambda L: L.stft(t(L), 8, hop_length=0, return_complex=True))
    _raises(lambda L: L.stft(t(L).to(L.complex64), 8, onesided=True, return_complex=True))
    _raises(lambda L: L.stft(t(L), 8, pad_mode="foo", return_complex=True))
    _raises(lambda L: L.stft(t(L).long(), 8, return_complex=True))
    _raises(lambda L: L.stft(t(L), 8, return_complex=True, align_to_window=True))
    spec = numtorch.stft(numtorch.tensor(sig), 8, window=numtorch.hann_window(8),
                         return_complex=True)
    specb = torch.stft(torch.tensor(sig), 8, window=torch.hann_window(8), return_complex=True)

    def s(L):
        return spec if L is numtorch else specb

    _raises(lambda L: L.istft(s(L).real, 8, window=L.hann_window(8)))
    _raises(lambda L: L.istft(s(L), 8, window=L.hann_window(8), return_complex=True))
    _raises(lambda L: L.istft(s(L), 8, window=L.hann_window(8), onesided=False))
    _raises(lambda L: L.istft(s(L), 8, window=L.hann_window(8), center=False),
            "window overlap add min")
