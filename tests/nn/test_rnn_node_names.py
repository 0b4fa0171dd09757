"""The graph nodes of nn.LSTM / GRU / RNN outputs carry torch 2.13's CPU names: an LSTM layer
that torch runs with oneDNN is one MkldnnRnnLayerBackward0 node with torch's seven inputs
(input, w_ih, w_hh, b_ih, b_hh, hx, cx), its step-by-step forms (float64, float16, projection,
mkldnn disabled) and every GRU/Elman layer end in StackBackward0; h_n and c_n are stacks of
the layers' states; batch-first GRU/Elman outputs come from TransposeBackward1, LSTM's from
TransposeBackward0; a given hx reaches the layers through SelectBackward0. Gradients of both
biases (one op input each now) against torch's."""

import numpy as np
import pytest
import torch

import numtorch


def _names(t):
    """grad_fn's name and its next node names (None for no edge or AccumulateGrad)."""
    fn = t.grad_fn
    nxt = [None if g is None or "AccumulateGrad" in g.name() else g.name()
           for g, _ in fn.next_functions]
    return fn.name(), type(fn).__name__, nxt


def _pair(kind, dtype, **kw):
    torch.manual_seed(0)
    ref = getattr(torch.nn, kind)(4, 3, **kw).to(dtype)
    ours = getattr(numtorch.nn, kind)(4, 3, **kw).to(getattr(numtorch, str(dtype)[6:]))
    ours.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                          for k, v in ref.state_dict().items()})
    return ref, ours


def _outputs(lib, model, x, hx=None):
    out, h = model(x, hx)
    return (out,) + (tuple(h) if isinstance(h, tuple) else (h,))


CASES = [(kind, kw) for kind in ("LSTM", "GRU", "RNN")
         for kw in ({}, {"num_layers": 2}, {"bidirectional": True}, {"batch_first": True},
                    {"num_layers": 2, "bidirectional": True, "batch_first": True})]


@pytest.mark.parametrize("kind,kw", CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_output_node_names_match_torch(kind, kw, dtype):
    ref, ours = _pair(kind, dtype, **kw)
    x = np.random.default_rng(0).standard_normal((5, 2, 4))
    got_ref = _outputs(torch, ref, torch.from_numpy(x).to(dtype))
    got = _outputs(numtorch, ours, numtorch.from_numpy(x).to(getattr(numtorch,
                                                                      str(dtype)[6:])))
    # a oneDNN LSTM's whole graph is the layer nodes (and their seven inputs), cat, stack and
    # transpose; the step-by-step forms differ below the top node (torch's per-step ops)
    full = kind == "LSTM" and dtype == torch.float32
    for a, b in zip(got_ref, got):
        assert _names(a) == _names(b) if full else _names(a)[:2] == _names(b)[:2]


def test_lstm_layer_node_inputs_with_input_and_state_grads():
    ref, ours = _pair("LSTM", torch.float32)
    rng = np.random.default_rng(1)
    x, h0, c0 = (rng.standard_normal(s).astype(np.float32) for s in
                 [(5, 2, 4), (1, 2, 3), (1, 2, 3)])
    tx, th, tc = (torch.from_numpy(a).requires_grad_() for a in (x, h0, c0))
    nx, nh, nc = (numtorch.from_numpy(a).requires_grad_() for a in (x, h0, c0))
    r = _outputs(torch, ref, tx, (th, tc))
    o = _outputs(numtorch, ours, nx, (nh, nc))
    for a, b in zip(r, o):
        assert _names(a) == _names(b)
    assert len(o[0].grad_fn.next_functions) == 7
    g = [rng.standard_normal(tuple(a.shape)).astype(np.float32) for a in r]
    torch.autograd.backward(r, [torch.from_numpy(v) for v in g])
    numtorch.autograd.backward(o, [numtorch.from_numpy(v) for v in g])
    for a, b in [(tx, nx), (th, nh), (tc, nc)]:
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-5, atol=1e-6)
    for (k, p), q in zip(ref.named_parameters(), ours.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=k)
    # the two bias gradients are equal but separate arrays (accumulating one leaves the other)
    assert not np.shares_memory(ours.bias_ih_l0.grad.numpy(), ours.bias_hh_l0.grad.numpy())


@pytest.mark.parametrize("frozen", ["bias_ih_l0", "bias_hh_l0", "weight_hh_l0"])
def test_lstm_grads_with_a_frozen_parameter(frozen):
    ref, ours = _pair("LSTM", torch.float32)
    getattr(ref, frozen).requires_grad_(False)
    getattr(ours, frozen).requires_grad_(False)
    x = np.random.default_rng(2).standard_normal((6, 3, 4)).astype(np.float32)
    ref(torch.from_numpy(x))[0].pow(2).sum().backward()
    ours(numtorch.from_numpy(x))[0].pow(2).sum().backward()
    for (k, p), q in zip(ref.named_parameters(), ours.parameters()):
        if p.grad is None:
            assert q.grad is None, k
        else:
            np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=k)


@pytest.mark.filterwarnings("ignore:LSTM with projections", "ignore:TF32 acceleration")
@pytest.mark.parametrize("form", ["projection", "mkldnn disabled"])
def test_step_by_step_lstm_forms_end_in_stack(form):
    x = np.random.default_rng(3).standard_normal((5, 2, 4)).astype(np.float32)
    ref, ours = _pair("LSTM", torch.float32, **({"proj_size": 2} if form == "projection"
                                                else {}))
    off = form == "mkldnn disabled"
    with torch.backends.mkldnn.flags(enabled=not off), \
            numtorch.backends.mkldnn.flags(enabled=not off):
        r = _outputs(torch, ref, torch.from_numpy(x))
        o = _outputs(numtorch, ours, numtorch.from_numpy(x))
    assert [_names(a)[0] for a in r] == [_names(b)[0] for b in o] == ["StackBackward0"] * 3
    assert numtorch.backends.mkldnn.enabled  # the flag is back after the block


def test_unbatched_and_hx_select_names():
    ref, ours = _pair("GRU", torch.float32, num_layers=2)
    x = np.random.default_rng(4).standard_normal((5, 4)).astype(np.float32)
    h = np.zeros((2, 3), np.float32)
    th, nh = torch.from_numpy(h).requires_grad_(), numtorch.from_numpy(h).requires_grad_()
    r = _outputs(torch, ref, torch.from_numpy(x), th)
    o = _outputs(numtorch, ours, numtorch.from_numpy(x), nh)
    for a, b in zip(r, o):
        assert _names(a)[:2] == _names(b)[:2]
