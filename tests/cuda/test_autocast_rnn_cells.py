"""Autocast of the recurrent cells against torch: values, dtypes and gradients.

CPU (``autocast("cpu", bfloat16)``): torch itself is the oracle. CUDA (``autocast("cuda",
float16)``, on the CuPy stand-in): torch's CUDA list puts ``lstm_cell``, ``gru_cell`` and the
Elman cells in float16, so the oracle is torch on the CPU running the same cell on float16
copies of every input, state, weight and bias (cast with gradients flowing back to the
float32 leaves, as autocast's casts do).
"""

import numpy as np
import pytest
import torch

import numtorch
from tests.cuda import standin

CELLS = [("LSTMCell", {}), ("GRUCell", {}), ("RNNCell", {}),
         ("RNNCell", {"nonlinearity": "relu"})]
FUNCTIONS = {"LSTMCell": "lstm_cell", "GRUCell": "gru_cell", "RNNCell": "rnn_tanh_cell"}


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((3, 5)).astype(np.float32),
            "h": rng.standard_normal((3, 4)).astype(np.float32),
            "c": rng.standard_normal((3, 4)).astype(np.float32),
            "g": rng.standard_normal((3, 4)).astype(np.float32)}


def _params(lib, cell, src=None):
    if src is not None:
        with lib.no_grad():
            for p, q in zip(cell.parameters(), src.parameters()):
                p.copy_(lib.tensor(q.detach().numpy()))
    return cell


def _run(lib, name, kw, device, autocast, d, functional=False, src=None):
    """Forward and backward of one step; returns outputs, their dtypes and the gradients of
    the input, the states and the weights."""
    cell = _params(lib, getattr(lib.nn, name)(5, 4, **kw), src)
    if device != "cpu":
        cell = cell.to(device)
    x = lib.tensor(d["x"], device=device, requires_grad=True)
    h = lib.tensor(d["h"], device=device, requires_grad=True)
    c = lib.tensor(d["c"], device=device, requires_grad=True)
    lstm = name == "LSTMCell"
    with autocast(lib):
        if functional:
            fn = getattr(lib, "rnn_relu_cell" if kw else FUNCTIONS[name])
            out = fn(x, (h, c) if lstm else h, cell.weight_ih, cell.weight_hh, cell.bias_ih,
                     cell.bias_hh)
        else:
            out = cell(x, (h, c) if lstm else h)
    outs = out if lstm else (out,)
    g = lib.tensor(d["g"], device=device)
    sum((o.float() * g).sum() for o in outs).backward()
    grads = [x.grad, h.grad] + ([c.grad] if lstm else []) + [p.grad for p in cell.parameters()]
    return ([o.dtype for o in outs], [o.detach().float().cpu().numpy() for o in outs],
            [t.float().cpu().numpy() for t in grads], cell)


def _torch_half(name, kw, d, src, functional=False):
    """torch on the CPU with every floating input of the step cast to float16."""
    cell = getattr(torch.nn, name)(5, 4, **kw)
    _params(torch, cell, src)
    x, h, c = (torch.tensor(d[k], requires_grad=True) for k in "xhc")
    w = [p.half() for p in cell.parameters()]
    lstm = name == "LSTMCell"
    fn = getattr(torch, "rnn_relu_cell" if kw else FUNCTIONS[name])
    out = fn(x.half(), (h.half(), c.half()) if lstm else h.half(), *w)
    outs = out if lstm else (out,)
    g = torch.tensor(d["g"])
    sum((o.float() * g).sum() for o in outs).backward()
    grads = [x.grad, h.grad] + ([c.grad] if lstm else []) + [p.grad for p in cell.parameters()]
    return ([o.dtype for o in outs], [o.detach().float().numpy() for o in outs],
            [t.float().numpy() for t in grads])


def _close(got, want, tol):
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("functional", [False, True], ids=["module", "function"])
@pytest.mark.parametrize("name,kw", CELLS, ids=["lstm", "gru", "rnn_tanh", "rnn_relu"])
def test_cpu_autocast_of_cells_matches_torch(name, kw, functional):
    d = _data()
    def region(lib):
        return lib.autocast("cpu", dtype=lib.bfloat16)
    t_dt, t_out, t_grads, src = _run(torch, name, kw, "cpu", region, d, functional)
    n_dt, n_out, n_grads, _ = _run(numtorch, name, kw, "cpu", region, d, functional, src)
    assert [str(t) for t in n_dt] == [str(t) for t in t_dt]
    _close(n_out, t_out, 2e-2)
    _close(n_grads, t_grads, 5e-2)


@pytest.mark.parametrize("functional", [False, True], ids=["module", "function"])
@pytest.mark.parametrize("name,kw", CELLS, ids=["lstm", "gru", "rnn_tanh", "rnn_relu"])
def test_cuda_autocast_runs_cells_in_float16_as_torch_lists(name, kw, functional):
    d = _data(1)
    src = getattr(torch.nn, name)(5, 4, **kw)
    t_dt, t_out, t_grads = _torch_half(name, kw, d, src)
    assert all(t == torch.float16 for t in t_dt)
    with standin.active():
        n_dt, n_out, n_grads, cell = _run(
            numtorch, name, kw, "cuda", lambda lib: lib.autocast("cuda", dtype=lib.float16),
            d, functional, src)
        assert all(p.grad.dtype is numtorch.float32 for p in cell.parameters())
        # outside the region the cell runs in float32 again
        x = numtorch.tensor(d["x"], device="cuda")
        out = cell(x)
        assert (out[0] if isinstance(out, tuple) else out).dtype is numtorch.float32
    assert [str(t) for t in n_dt] == [str(t) for t in t_dt]
    _close(n_out, t_out, 2e-3)
    _close(n_grads, t_grads, 1e-2)


def test_cuda_autocast_of_an_unbatched_lstm_cell_without_state():
    src = torch.nn.LSTMCell(5, 4)
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    t_h, t_c = torch.lstm_cell(torch.tensor(x[None]).half(), (torch.zeros(1, 4).half(),) * 2,
                               *[p.half() for p in src.parameters()])
    with standin.active():
        cell = _params(numtorch, numtorch.nn.LSTMCell(5, 4), src).to("cuda")
        with numtorch.autocast("cuda", dtype=numtorch.float16):
            h, c = cell(numtorch.tensor(x, device="cuda"))
        assert h.shape == (4,) and h.dtype is numtorch.float16 and c.dtype is numtorch.float16
        for got, want in ((h, t_h), (c, t_c)):
            np.testing.assert_allclose(got.detach().float().cpu().numpy(),
                                       want[0].detach().float().numpy(), atol=2e-3)


LAYERS = [("LSTM", {}), ("LSTM", {"num_layers": 2}), ("GRU", {"bidirectional": True}),
          ("RNN", {}), ("RNN", {"num_layers": 2, "nonlinearity": "relu"})]


def _layer(lib, name, kw, device, region, src, x0):
    m = _params(lib, getattr(lib.nn, name)(4, 3, **kw), src)
    if device != "cpu":
        m = m.to(device)
    with region(lib):
        out, h = m(lib.tensor(x0, device=device))
    out.float().sum().backward()
    hs = h if isinstance(h, tuple) else (h,)
    return ([out.dtype] + [t.dtype for t in hs], out.detach().float().cpu().numpy(),
            m.weight_ih_l0.grad.float().cpu().numpy())


@pytest.mark.parametrize("name,kw", LAYERS, ids=str)
def test_recurrent_layers_under_autocast_match_torch(name, kw):
    """CPU: torch's own autocast (LSTM and Elman layers in bfloat16, GRU float32). CUDA (the
    stand-in): torch's cuDNN autocast runs the whole layer in float16, so the oracle is the
    same layer converted to float16 on torch's CPU."""
    x0 = np.random.default_rng(2).standard_normal((5, 2, 4)).astype(np.float32)
    src = getattr(torch.nn, name)(4, 3, **kw)
    want = _layer(torch, name, kw, "cpu", lambda lib: lib.autocast("cpu", dtype=lib.bfloat16),
                  src, x0)
    got = _layer(numtorch, name, kw, "cpu", lambda lib: lib.autocast("cpu", dtype=lib.bfloat16),
                 src, x0)
    assert [str(t) for t in got[0]] == [str(t) for t in want[0]]
    _close(got[1:], want[1:], 6e-2)
    half = getattr(torch.nn, name)(4, 3, **kw)
    half.load_state_dict(src.state_dict())
    half = half.half()
    t_out, t_h = half(torch.tensor(x0).half())
    t_out.float().sum().backward()
    with standin.active():
        got = _layer(numtorch, name, kw, "cuda",
                     lambda lib: lib.autocast("cuda", dtype=lib.float16), src, x0)
    assert all(str(t) == "torch.float16" for t in got[0])
    _close([got[1]], [t_out.detach().float().numpy()], 3e-3)
    _close([got[2]], [half.weight_ih_l0.grad.float().numpy()], 2e-2)
