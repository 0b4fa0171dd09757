"""Paths of real GPU programs that made a tensor on the CPU in the middle of a cuda
computation (a factory call without ``device=``): padding and packing sequences, attention
masks. Each runs on the CuPy stand-in against torch on the CPU."""

import numpy as np
import pytest
import torch

import numtorch
from tests.cuda import standin


@pytest.fixture
def cuda():
    with standin.active():
        yield


def _close(a, b, **kw):
    np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), **kw)


def _seqs(lib, device):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((n, 3)).astype("float32") for n in (2, 5, 3)]
    return [lib.from_numpy(a).to(device) for a in arrays]


def test_pad_sequence_on_cuda(cuda):
    for side in ("right", "left"):
        got = numtorch.nn.utils.rnn.pad_sequence(_seqs(numtorch, "cuda"), batch_first=True,
                                                 padding_value=-1.0, padding_side=side)
        want = torch.nn.utils.rnn.pad_sequence(_seqs(torch, "cpu"), batch_first=True,
                                               padding_value=-1.0, padding_side=side)
        assert got.device.type == "cuda"
        _close(got, want)


def test_packed_lstm_round_trip_on_cuda(cuda):
    torch.manual_seed(0)
    lstm_th = torch.nn.LSTM(3, 4, batch_first=True)
    lstm_nt = numtorch.nn.LSTM(3, 4, batch_first=True)
    lstm_nt.load_state_dict({k: numtorch.from_numpy(v.numpy().copy())
                             for k, v in lstm_th.state_dict().items()})
    lstm_nt = lstm_nt.cuda()
    results = []
    for lib, lstm, device in ((numtorch, lstm_nt, "cuda"), (torch, lstm_th, "cpu")):
        packed = lib.nn.utils.rnn.pack_sequence(_seqs(lib, device), enforce_sorted=False)
        out, (h, _) = lstm(packed)
        padded, lengths = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=True,
                                                               padding_value=9.0)
        results.append((packed, padded, lengths, h))
    (p_nt, pad_nt, len_nt, h_nt), (p_th, pad_th, len_th, h_th) = results
    assert p_nt.data.device.type == "cuda" and p_nt.sorted_indices.device.type == "cuda"
    assert p_nt.batch_sizes.device.type == "cpu" and len_nt.device.type == "cpu"
    assert p_nt.cpu().unsorted_indices.device.type == "cpu"
    assert p_nt.cpu().cuda().sorted_indices.device.type == "cuda"
    assert len_nt.tolist() == len_th.tolist()
    assert p_nt.batch_sizes.tolist() == p_th.batch_sizes.tolist()
    _close(pad_nt, pad_th, rtol=1e-5, atol=1e-6)
    _close(h_nt, h_th, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("add_zero_attn", [False, True])
def test_attention_with_a_padding_mask_on_cuda(cuda, add_zero_attn):
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 4, 8)).astype("float32")
    pad = np.array([[False, False, True, True], [False] * 4])
    torch.manual_seed(0)
    th = torch.nn.MultiheadAttention(8, 2, batch_first=True, add_zero_attn=add_zero_attn)
    nt = numtorch.nn.MultiheadAttention(8, 2, batch_first=True, add_zero_attn=add_zero_attn)
    nt.load_state_dict({k: numtorch.from_numpy(v.numpy().copy())
                        for k, v in th.state_dict().items()})
    nt = nt.cuda()
    qn = numtorch.from_numpy(q).cuda()
    out, w = nt(qn, qn, qn, key_padding_mask=numtorch.from_numpy(pad).cuda())
    qt = torch.from_numpy(q)
    want, want_w = th(qt, qt, qt, key_padding_mask=torch.from_numpy(pad))
    assert out.device.type == "cuda"
    _close(out, want, rtol=1e-5, atol=1e-6)
    _close(w, want_w, rtol=1e-5, atol=1e-6)


def test_distributions_on_cuda(cuda):
    # Exponential.rsample built its draw with Tensor.new (a CPU tensor); the gamma family's
    # host math (cdf, sample gradients) reached CuPy's helpers with NumPy arrays
    rate = numtorch.tensor([0.5, 2.0], device="cuda")
    assert rate.new(3).device.type == "cuda" and rate.new([1.0]).device.type == "cuda"
    draw = numtorch.distributions.Exponential(rate).rsample((4,))
    assert draw.device.type == "cuda" and tuple(draw.shape) == (4, 2)
    conc = np.array([0.7, 3.0])
    x = np.array([0.4, 2.5])
    a = numtorch.tensor(conc, device="cuda", requires_grad=True)
    xn = numtorch.tensor(x, device="cuda", requires_grad=True)
    got = numtorch.distributions.Gamma(a.detach(), 1.0).cdf(xn)
    got.sum().backward()
    xt = torch.tensor(x, requires_grad=True)
    want = torch.distributions.Gamma(torch.tensor(conc), 1.0).cdf(xt)
    want.sum().backward()
    _close(got, want, rtol=1e-10)
    _close(xn.grad, xt.grad, rtol=1e-10)
    with pytest.raises(NotImplementedError, match="igamma: input"):  # as torch's
        numtorch.distributions.Gamma(a, 1.0).cdf(xn).sum().backward()
    a.grad = None
    s = numtorch.distributions.Gamma(a, 1.0).rsample((3,))
    s.sum().backward()
    assert s.device.type == "cuda" and a.grad.device.type == "cuda"


def test_share_memory_of_cuda_tensors_is_a_no_op(cuda):
    # hogwild-style programs call model.share_memory() on a cuda model (torch: a no-op)
    m = numtorch.nn.Linear(3, 2).cuda()
    w = m.weight._array
    assert m.share_memory() is m and m.weight._array is w and m.weight.is_shared()
    assert not numtorch.ones(2).is_shared()


def test_roi_pool_second_order_on_cuda(cuda):
    # the scatter's backward rebuilt its argmax from a device array through NumPy
    from numtorchvision.ops import roi_pool

    rng = np.random.default_rng(2)
    x = numtorch.tensor(rng.standard_normal((1, 2, 6, 6)), device="cuda", requires_grad=True)
    boxes = numtorch.tensor([[0, 0.0, 0.0, 4.0, 4.0], [0, 1.0, 2.0, 5.0, 5.0]], device="cuda",
                            dtype=numtorch.float64)
    y = roi_pool(x, boxes, output_size=2)
    (g,) = numtorch.autograd.grad(y.pow(2).sum(), x, create_graph=True)
    g.sum().backward()
    assert x.grad.device.type == "cuda" and g.device.type == "cuda"
    assert numtorch.autograd.gradgradcheck(lambda t: roi_pool(t, boxes, output_size=2), (x,))


def test_fused_kernels_are_forgotten_when_the_cupy_module_changes():
    # a kernel built by the stand-in refused a real GPU's arrays later in the same process
    # ("Output arguments must be cupy.ndarray" in the LSTM step on an H200)
    from numtorch.backend import _cupy_kernels

    with standin.active():
        lstm = numtorch.nn.LSTM(3, 4).cuda()
        lstm(numtorch.ones(5, 2, 3, device="cuda"))[0].sum().backward()
        assert _cupy_kernels._KERNELS
    assert not _cupy_kernels._KERNELS and not _cupy_kernels.FAILED


def test_messages_and_warnings_torch_gives_on_cuda(cuda):
    # as torch 2.x on an H200: an elementwise op's device error ends at "!", and the legacy
    # torch.cuda.*Tensor constructors warn (once per process)
    from numtorch import _legacy_types

    with pytest.raises(RuntimeError) as e:
        numtorch.ones(2, device="cuda") + numtorch.ones(2)
    assert str(e.value) == ("Expected all tensors to be on the same device, but found at least "
                            "two devices, cuda:0 and cpu!")
    _legacy_types._WARNED[0] = False
    with pytest.warns(UserWarning, match=r"torch.cuda.\*DtypeTensor constructors are no longer"):
        t = numtorch.cuda.FloatTensor([1.0, 2.0])
    assert t.is_cuda and t.type() == "torch.cuda.FloatTensor"
