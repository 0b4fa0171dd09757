"""The float8 dtypes (ml_dtypes holds the bits): conversions, views, structure, printing,
promotion errors and checkpoints, compared with torch at test time."""

import io

import numpy as np
import pytest
import torch as real

import numtorch as nt

pytest.importorskip("ml_dtypes")

NAMES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
EDGES = [0.0, -0.0, 1e-40, 2.0 ** -127, 2.0 ** -128, 0.1, 1.4, -1.4, 1.5, 300.0, 448.0, 464.0,
         480.0, 1000.0, 6e4, 7e4, 1e6, -1e6, float("inf"), -float("inf"), float("nan"),
         -float("nan"), 2.0 ** -10 * 0.7, 3 * 2.0 ** -10, 2.0 ** -9, -2.25]


def _values(seed):
    g = np.random.default_rng(seed)
    return np.concatenate([np.array(EDGES, np.float32),
                           (g.standard_normal(500) * 10.0 ** g.integers(-6, 6, 500))
                           .astype(np.float32)])


@pytest.mark.parametrize("src", ["float32", "float64", "float16", "bfloat16", "int64", "bool"])
@pytest.mark.parametrize("name", NAMES)
def test_conversion_bits_match_torch(name, src):
    a = _values(len(name))
    want = real.tensor(a).to(getattr(real, src)).to(getattr(real, name))
    got = nt.tensor(a).to(getattr(nt, src)).to(getattr(nt, name))
    assert got.dtype is getattr(nt, name) and got.shape == tuple(want.shape)
    w, g = want.view(real.uint8).numpy(), got.view(nt.uint8).numpy()
    if src == "bfloat16":  # torch's float32 -> bfloat16 writes NaN as 0xFFFF (sign set),
        # numtorch as 0x7FC0: a NaN's sign then differs, nothing else
        nan = np.isnan(a)
        w, g = w[~nan], g[~nan]
    np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "bfloat16", "int32", "bool"])
@pytest.mark.parametrize("name", NAMES)
def test_every_bit_pattern_decodes_as_torch(name, dst):
    want = real.arange(256, dtype=real.uint8).view(getattr(real, name))
    got = nt.arange(256, dtype=nt.uint8).view(getattr(nt, name))
    if dst in ("int32", "bool"):  # (NaN and inf have no integer value: finite ones only)
        keep = real.isfinite(want.float())
        want, got = want[keep], got[nt.tensor(keep.numpy())]
    w, g = want.to(getattr(real, dst)).float(), got.to(getattr(nt, dst)).float()
    np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("name", NAMES)
def test_structure_ops_keep_the_bits(name):
    a = _values(3)[:24].reshape(4, 6)
    rt, nn_ = real.tensor(a).to(getattr(real, name)), nt.tensor(a).to(getattr(nt, name))
    cases = [lambda t, m: t.t().contiguous(), lambda t, m: t[1:3, ::2], lambda t, m: t.clone(),
             lambda t, m: m.cat([t, t], 1), lambda t, m: m.stack([t[0], t[1]]),
             lambda t, m: t.reshape(3, 8), lambda t, m: t.flatten(), lambda t, m: t.flip(0),
             lambda t, m: m.zeros(2, 3, dtype=t.dtype), lambda t, m: m.empty(0, dtype=t.dtype),
             lambda t, m: t.new_zeros(3), lambda t, m: t.detach().clone().t()]
    for f in cases:
        w, g = f(rt, real), f(nn_, nt)
        assert str(g.dtype) == str(w.dtype) and tuple(g.shape) == tuple(w.shape)
        assert g.contiguous().view(nt.uint8).tolist() == w.contiguous().view(real.uint8).tolist()
    assert (nn_ == nn_).tolist() == (rt == rt).tolist()


@pytest.mark.parametrize("name", NAMES[:4])
def test_print_matches_torch(name):
    a = np.array([0.1, 1.5, 300.0, -2.25, 1e-3, np.nan, np.inf, -1e6], np.float32)
    assert repr(nt.tensor(a).to(getattr(nt, name))) == repr(real.tensor(a).to(getattr(real, name)))
    assert repr(nt.tensor([1.0, 2.0]).to(getattr(nt, name))) == \
        repr(real.tensor([1.0, 2.0]).to(getattr(real, name)))


@pytest.mark.parametrize("other", ["float32", "float16", "int64", "bool", "float8_e5m2"])
def test_promotion_is_refused_as_in_torch(other):
    def outcome(lib):
        try:
            return "ok", str(lib.promote_types(lib.float8_e4m3fn, getattr(lib, other)))
        except RuntimeError as e:
            return "RuntimeError", str(e)

    assert outcome(nt) == outcome(real)
    x = nt.ones(2, dtype=nt.float8_e4m3fn)
    assert nt.result_type(x, nt.tensor(2.0)) is nt.float8_e4m3fn
    assert nt.result_type(x, 2.0) is nt.float8_e4m3fn


def test_finfo_matches_torch():
    for name in NAMES:
        w, g = real.finfo(getattr(real, name)), nt.finfo(getattr(nt, name))
        assert (g.bits, g.eps, g.max, g.min, g.tiny) == (w.bits, w.eps, w.max, w.min, w.tiny)


def test_checkpoints_both_ways():
    a = _values(9)[:40]
    mine = {n: nt.tensor(a).to(getattr(nt, n)) for n in NAMES}
    buf = io.BytesIO()
    nt.save(mine, buf)
    buf.seek(0)
    theirs = real.load(buf, weights_only=True)
    for n in NAMES:
        assert theirs[n].dtype is getattr(real, n)
        assert theirs[n].view(real.uint8).tolist() == mine[n].view(nt.uint8).tolist()
    buf = io.BytesIO()
    real.save(theirs, buf)
    buf.seek(0)
    back = nt.load(buf, weights_only=True)
    for n in NAMES:
        assert back[n].dtype is getattr(nt, n)
        assert back[n].view(nt.uint8).tolist() == mine[n].view(nt.uint8).tolist()


def test_scaled_weight_quantisation_round_trip():
    """What fp8 weight loading does: scale into range, cast, cast back, rescale."""
    a = np.random.default_rng(0).standard_normal((16, 16)).astype(np.float32)
    out = []
    for lib in (real, nt):
        w = lib.tensor(a)
        scale = w.abs().max() / 448.0
        q = (w / scale).to(lib.float8_e4m3fn)
        out.append((q.to(lib.bfloat16).float() * scale).numpy())
    np.testing.assert_array_equal(out[0], out[1])


@pytest.mark.parametrize("name", NAMES)
def test_data_copies_and_products_convert_as_torch(name):
    v = [1000.0, float("inf"), float("nan"), 0.1, -3.0, 0.0]

    def story(lib):
        dt = getattr(lib, name)
        made = lib.tensor(v, dtype=dt)
        copied = lib.zeros(6, dtype=dt).copy_(lib.tensor(v))
        a = lib.tensor([[1.0, 2.0], [0.5, -1.0]]).to(dt)
        try:
            prod = a @ a
            got = [str(prod.dtype), prod.view(lib.uint8).tolist()]
        except NotImplementedError as e:
            got = [str(e)]
        return [made.view(lib.uint8).tolist(), copied.view(lib.uint8).tolist()] + got

    assert story(nt) == story(real)


@pytest.mark.parametrize("name", NAMES)
def test_numbers_and_tensors_written_in_place_convert_as_torch(name):
    def story(lib):
        dt, out = getattr(lib, name), []
        for v in (448.0, 450.0, 1000.0, float("inf"), float("nan"), -1000.0, 1e-30, 300, 2 ** 20,
                  -1.0, 0.0):
            one = lib.zeros(1, dtype=dt).fill_(v)
            x = lib.zeros(2, dtype=dt)
            x[0] = v
            y = lib.zeros(3, dtype=dt)
            y[1:] = lib.tensor([v, 2.0])
            out.append([t.view(lib.uint8).tolist() for t in (one, x, y)])
        return out

    assert story(nt) == story(real)
