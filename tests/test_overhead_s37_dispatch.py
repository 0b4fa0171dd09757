"""Session 37 (Overhead): the direct paths of scaled_dot_product_attention, view, reshape and
permute give what the general paths give, checked against torch: values, gradients (random
cotangents), dtypes, node names, strides, and the errors of calls that leave the direct path."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.nn.functional import attention as nt_attention

RNG = np.random.default_rng(37)


def _pair(shape, dtype=np.float32, grad=True):
    a = RNG.standard_normal(shape).astype(dtype)
    n = numtorch.from_numpy(a.copy()).requires_grad_(grad)
    t = torch.from_numpy(a.copy()).requires_grad_(grad)
    return n, t


def _heads(lib_x, b, t, h, d):
    """nanoGPT's head views: a (B, T, 3C) projection split, viewed and transposed."""
    q, k, v = lib_x.split(h * d, dim=2)
    return [z.view(b, t, h, d).transpose(1, 2) for z in (q, k, v)]


SDPA_CASES = [
    # (shape of q/k/v or a packed projection, is_causal, scale, dtype)
    ((2, 3, 5, 4), True, None, np.float32),
    ((2, 3, 5, 4), False, 0.3, np.float32),
    ((2, 3, 5, 4), True, 2, np.float64),
    ((5, 4), True, None, np.float32),
    ((3, 5, 4), False, None, np.float64),
    ((2, 2, 3, 6, 4), True, None, np.float32),
    ((1, 1, 1, 2), True, None, np.float32),
]


@pytest.mark.parametrize("shape,causal,scale,dtype", SDPA_CASES)
def test_sdpa_direct_path_matches_torch(shape, causal, scale, dtype):
    (nq, tq), (nk, tk), (nv, tv) = (_pair(shape, dtype) for _ in range(3))
    out = numtorch.nn.functional.scaled_dot_product_attention(nq, nk, nv, is_causal=causal,
                                                              scale=scale)
    ref = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal,
                                                           scale=scale)
    assert out.dtype.name == str(ref.dtype).split(".")[-1]
    assert type(out.grad_fn).__name__ == type(ref.grad_fn).__name__
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)
    g = RNG.standard_normal(tuple(ref.shape)).astype(dtype)
    gn = numtorch.autograd.grad(out, (nq, nk, nv), numtorch.from_numpy(g.copy()))
    gt = torch.autograd.grad(ref, (tq, tk, tv), torch.from_numpy(g.copy()))
    for a, b in zip(gn, gt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=10 * tol, atol=10 * tol)


def test_sdpa_direct_path_equals_general_path_bitwise(monkeypatch):
    """Strided nanoGPT heads, forward and backward: the direct path is the same op call."""
    b, t, h, d = 2, 6, 3, 4
    a = RNG.standard_normal((b, t, 3 * h * d)).astype(np.float32)
    g = RNG.standard_normal((b, h, t, d)).astype(np.float32)
    results = []
    for direct in (True, False):
        if not direct:
            monkeypatch.setattr(nt_attention, "_plain_call", lambda *args: None)
        x = numtorch.from_numpy(a.copy()).requires_grad_()
        q, k, v = _heads(x, b, t, h, d)
        y = numtorch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        y.backward(numtorch.from_numpy(g.copy()))
        results.append((y.detach().numpy().copy(), y.stride(), x.grad.numpy().copy(),
                        type(y.grad_fn).__name__))
    (y1, s1, g1, n1), (y2, s2, g2, n2) = results
    np.testing.assert_array_equal(y1, y2)
    np.testing.assert_array_equal(g1, g2)
    assert s1 == s2 and n1 == n2 == "ScaledDotProductFlashAttentionForCpuBackward0"


def test_sdpa_nanogpt_heads_match_torch():
    b, t, h, d = 2, 6, 3, 4
    nx, tx = _pair((b, t, 3 * h * d))
    yn = numtorch.nn.functional.scaled_dot_product_attention(*_heads(nx, b, t, h, d),
                                                             is_causal=True)
    yt = torch.nn.functional.scaled_dot_product_attention(*_heads(tx, b, t, h, d),
                                                          is_causal=True)
    assert yn.stride() == yt.stride()
    g = RNG.standard_normal((b, h, t, d)).astype(np.float32)
    yn.backward(numtorch.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_sdpa_no_grad_has_no_node():
    nq, _ = _pair((2, 3, 4), grad=False)
    out = numtorch.nn.functional.scaled_dot_product_attention(nq, nq, nq)
    assert out.grad_fn is None and not out.requires_grad


def _both_raise(fn_nt, fn_t):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(type(et.value)) as en:
        fn_nt()
    return str(en.value), str(et.value)


@pytest.mark.parametrize("case", ["dtype", "width", "value_len", "dropout_big", "rank1"])
def test_sdpa_calls_off_the_direct_path_raise_as_torch(case):
    shapes = {"dtype": ((2, 5, 4), (2, 5, 4), (2, 5, 4)), "width": ((2, 5, 4), (2, 5, 3),
                                                                    (2, 5, 4)),
              "value_len": ((2, 5, 4), (2, 5, 4), (2, 6, 4)),
              "dropout_big": ((2, 5, 4),) * 3, "rank1": ((4,), (4,), (4,))}[case]
    nts, ts = zip(*(_pair(s) for s in shapes))
    if case == "dtype":
        nts = (nts[0], nts[1].double(), nts[2])
        ts = (ts[0], ts[1].double(), ts[2])
    kw = {"dropout_p": 1.5} if case == "dropout_big" else {}
    msg_n, msg_t = _both_raise(
        lambda: numtorch.nn.functional.scaled_dot_product_attention(*nts, **kw),
        lambda: torch.nn.functional.scaled_dot_product_attention(*ts, **kw))
    if case in ("dtype", "width", "dropout_big"):
        assert msg_n == msg_t


def test_sdpa_non_tensor_argument_raises_type_error():
    nq, _ = _pair((2, 3, 4))
    with pytest.raises(TypeError, match="argument 'key' must be Tensor, not list"):
        numtorch.nn.functional.scaled_dot_product_attention(nq, [1.0], nq)


def test_sdpa_backends_disabled_still_raise():
    nq, _ = _pair((2, 3, 4))
    with numtorch.nn.attention.sdpa_kernel([numtorch.nn.attention.SDPBackend.EFFICIENT_ATTENTION]):
        with pytest.raises(RuntimeError, match="No viable backend"):
            numtorch.nn.functional.scaled_dot_product_attention(nq, nq, nq)


# ----------------------------------------------------------------- view / reshape / permute

VIEW_CASES = [
    ((2, 3, 4), (6, 4)),
    ((2, 3, 4), ((4, 6),)),
    ((2, 3, 4), ([24],)),
    ((2, 3, 4), (2, 1, 3, 1, 4)),
    ((1, 4, 8), (1, 4, 4, 2)),
    ((0, 3), (3, 0)),
    ((1,), ((),)),
]


@pytest.mark.parametrize("shape,args", VIEW_CASES)
@pytest.mark.parametrize("method", ["view", "reshape"])
def test_plain_shapes_match_torch(shape, args, method):
    nx, tx = _pair(shape)
    yn, yt = getattr(nx, method)(*args), getattr(tx, method)(*args)
    assert tuple(yn.shape) == tuple(yt.shape)
    assert yn.stride() == yt.stride()
    assert type(yn.grad_fn).__name__ == type(yt.grad_fn).__name__
    g = RNG.standard_normal(tuple(yt.shape)).astype(np.float32)
    yn.backward(numtorch.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    np.testing.assert_array_equal(nx.grad.numpy(), tx.grad.numpy())


def test_view_and_reshape_of_a_size_match_torch():
    nx, tx = _pair((2, 3, 4))
    assert nx.view(nx.shape).stride() == tx.view(tx.shape).stride()
    assert tuple(nx.reshape(numtorch.Size([4, 6])).shape) == (4, 6)


def test_plain_shape_on_a_strided_tensor_views_or_copies_as_torch():
    nx, tx = _pair((4, 6))
    nt_t, t_t = nx.t(), tx.t()
    assert nt_t.reshape(24).stride() == t_t.reshape(24).stride()
    msg_n, msg_t = _both_raise(lambda: nt_t.view(24), lambda: t_t.view(24))
    assert msg_n == msg_t


@pytest.mark.parametrize("args", [(5, 5), (2, -1, 5), (-2, 12), (2.0, 12), (True, 24), (7,)])
def test_shapes_off_the_plain_path_raise_or_infer_as_torch(args):
    nx, tx = _pair((2, 3, 4))
    for method in ("view", "reshape"):
        try:
            yt = getattr(tx, method)(*args)
        except Exception as e:  # noqa: BLE001 - the exception class is what is compared
            with pytest.raises(type(e)) as en:
                getattr(nx, method)(*args)
            if isinstance(e, RuntimeError):
                assert str(en.value) == str(e)
        else:
            assert tuple(getattr(nx, method)(*args).shape) == tuple(yt.shape)


@pytest.mark.parametrize("dims", [(2, 0, 1), (0, 1, 2), (1, 0, 2), (-1, 0, 1), (2, 0, 0),
                                  (0, 1), (0, 1, 3)])
def test_permute_matches_torch(dims):
    nx, tx = _pair((2, 3, 4))
    try:
        yt = tx.permute(*dims)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            nx.permute(*dims)
        return
    yn = nx.permute(*dims)
    assert tuple(yn.shape) == tuple(yt.shape) and yn.stride() == yt.stride()
    assert type(yn.grad_fn).__name__ == type(yt.grad_fn).__name__
    g = RNG.standard_normal(tuple(yt.shape)).astype(np.float32)
    yn.backward(numtorch.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    np.testing.assert_array_equal(nx.grad.numpy(), tx.grad.numpy())


def test_permute_of_a_scalar_and_keyword_dims():
    s, ts = numtorch.tensor(3.0), torch.tensor(3.0)
    assert s.permute(()).shape == ts.permute(()).shape == ()
    with pytest.raises(TypeError) as want:
        ts.permute()
    with pytest.raises(TypeError) as got:
        s.permute()
    assert str(got.value) == str(want.value)  # torch's: missing "dims"
    nx, tx = _pair((2, 3))
    assert nx.permute(dims=(1, 0)).stride() == tx.permute(dims=(1, 0)).stride()


def test_transpose_backward_through_permute_matches_torch():
    nx, tx = _pair((2, 3, 4))
    yn = nx.transpose(0, 2).contiguous().view(4, 6)
    yt = tx.transpose(0, 2).contiguous().view(4, 6)
    g = RNG.standard_normal((4, 6)).astype(np.float32)
    yn.backward(numtorch.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    np.testing.assert_array_equal(nx.grad.numpy(), tx.grad.numpy())
