"""Recurrent layers under CPU autocast against torch where torch steps through a composite.

A projected ``nn.LSTM`` (no oneDNN kernel for it): its gate products and the projection come
out in bfloat16 while the cell state keeps the dtype it started in (float32 unless ``c_0`` is
bfloat16). An Elman ``nn.RNN``: two bfloat16 ``linear`` results added per step. Values, dtypes
and gradients (random cotangents on the output and the final states) are compared with
torch's."""

import numpy as np
import pytest
import torch

import numtorch

CASES = [({}, "none"), ({"num_layers": 2}, "float32"), ({"bidirectional": True}, "bf16_c"),
         ({"batch_first": True}, "bf16_h"), ({"num_layers": 2, "bidirectional": True}, "packed")]


def _run(lib, kw, state, src, d):
    m = lib.nn.LSTM(4, 5, proj_size=3, **kw)
    with lib.no_grad():
        for p, q in zip(m.parameters(), src.parameters()):
            p.copy_(lib.tensor(q.detach().numpy()))
    x = lib.tensor(d["x"].transpose(1, 0, 2).copy() if m.batch_first else d["x"],
                   requires_grad=True)
    h0 = lib.tensor(d["h0"][: m.num_layers * (2 if m.bidirectional else 1)], requires_grad=True)
    c0 = lib.tensor(d["c0"][: h0.shape[0]], requires_grad=True)
    hx = None
    if state != "none":
        hx = (h0.bfloat16() if state == "bf16_h" else h0,
              c0.bfloat16() if state == "bf16_c" else c0)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        if state == "packed":
            packed = lib.nn.utils.rnn.pack_padded_sequence(x, [6, 5, 2], enforce_sorted=False)
            out, (h, c) = m(packed, hx)
            out = lib.nn.utils.rnn.pad_packed_sequence(out)[0]
        else:
            out, (h, c) = m(x, hx)
    dtypes = [str(t.dtype).replace("numtorch", "torch") for t in (out, h, c)]
    cot = [lib.tensor(d[k][tuple(slice(0, s) for s in t.shape)])
           for k, t in zip(("gout", "gh", "gc"), (out, h, c))]
    sum((t.float() * g).sum() for t, g in zip((out, h, c), cot)).backward()
    grads = [x.grad] + ([h0.grad, c0.grad] if state != "none" else [])
    grads += [p.grad for p in m.parameters()]
    vals = [t.detach().float().numpy() for t in (out, h, c)]
    return dtypes, vals, [g.float().numpy() for g in grads]


@pytest.mark.parametrize("kw,state", CASES, ids=str)
def test_projected_lstm_under_cpu_autocast_matches_torch(kw, state):
    rng = np.random.default_rng(3)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    d = {"x": f(6, 3, 4), "h0": f(4, 3, 3), "c0": f(4, 3, 5), "gout": f(6, 6, 6),
         "gh": f(4, 3, 3), "gc": f(4, 3, 5)}
    torch.manual_seed(0)
    src = torch.nn.LSTM(4, 5, proj_size=3, **kw)
    want = _run(torch, kw, state, src, d)
    got = _run(numtorch, kw, state, src, d)
    assert got[0] == want[0]
    # bfloat16 sums of per-step weight gradients: a few ulps of the largest entries
    for g, w in zip(got[1] + got[2], want[1] + want[2]):
        np.testing.assert_allclose(g, w, rtol=2e-2, atol=1e-2 * max(1, np.abs(w).max()))


def _elman(lib, kw, src, d):
    m = getattr(lib.nn, type(src).__name__)(4, 5, **kw)
    with lib.no_grad():
        for p, q in zip(m.parameters(), src.parameters()):
            p.copy_(lib.tensor(q.detach().numpy()))
    x = lib.tensor(d["x"], requires_grad=True)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        out, h = m(x)
    (out.float() * lib.tensor(d["gout"][..., :out.shape[-1]])).sum().backward()
    return ([t.detach().float().numpy() for t in (out, h)],
            [t.grad.float().numpy() for t in [x] + list(m.parameters())])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind,kw", [("RNN", {"num_layers": 2, "nonlinearity": "relu"}),
                                     ("RNN", {"bidirectional": True}),
                                     ("GRU", {"num_layers": 2, "bidirectional": True})],
                         ids=str)
def test_elman_and_gru_layers_under_cpu_autocast_round_as_torch(kind, kw, seed):
    """torch's CPU Elman and GRU layers step through composites of bfloat16 ``linear``
    results (each product and bias summed in float32 and rounded once) and bfloat16 gates
    (a GRU's state update promotes with its float32 state); rounded otherwise, a ReLU flips on
    ulp differences and gradients differ by whole units. Same rounding: equal values."""
    rng = np.random.default_rng(seed)
    d = {"x": rng.standard_normal((6, 3, 4)).astype(np.float32),
         "gout": rng.standard_normal((6, 3, 10)).astype(np.float32)}
    torch.manual_seed(seed)
    src = getattr(torch.nn, kind)(4, 5, **kw)
    (t_vals, t_grads), (n_vals, n_grads) = _elman(torch, kw, src, d), _elman(numtorch, kw, src, d)
    for g, w in zip(n_vals, t_vals):
        np.testing.assert_array_equal(g, w)
    for g, w in zip(n_grads, t_grads):
        np.testing.assert_allclose(g, w, rtol=1e-2, atol=1e-2)
