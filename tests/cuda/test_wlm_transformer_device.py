"""pytorch/examples word_language_model's ``--model Transformer`` on the GPU path (the CuPy
stand-in, every RawKernel's memory read as the GPU addresses it), as a few SGD steps against
torch on the CPU: sequence-first inputs, the example's float causal mask ``log(tril(ones))``,
post-norm encoder layers, the example's gradient clip and update, then its eval pass (the
fused attention core's kernel) on the trained weights. With the dropout at 0 both libraries
do the same arithmetic, so the losses agree to float32 rounding; the program itself (lr 5, one
epoch) is chaotic: torch 2.13 on the CPU ends its first epoch at a valid loss of 6.99 to 8.84
over seeds 1-6 on one fabricated corpus, so a single run's loss against torch's is no check.
With a C++ compiler every RawKernel launch of the run also runs from its CUDA source on the
host (``_host_cuda.sources_beside_references``): the sources at this program's shapes."""

import contextlib
import math

import numpy as np
import pytest
import torch

import numtorch
from tests.cuda import _host_cuda, standin

NTOK, E, HEADS, FF, LAYERS, T, B = 50, 16, 2, 32, 2, 12, 8  # 96 rows: the row kernels


def _model(lib):
    lib.manual_seed(0)
    enc = lib.nn.TransformerEncoder(
        lib.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0), LAYERS,
        enable_nested_tensor=False)
    return lib.nn.ModuleDict({"emb": lib.nn.Embedding(NTOK, E), "enc": enc,
                              "dec": lib.nn.Linear(E, NTOK)})


def _pe(lib):
    pos = lib.arange(0, 64, dtype=lib.float).unsqueeze(1)
    div = lib.exp(lib.arange(0, E, 2).float() * (-math.log(10000.0) / E))
    pe = lib.zeros(64, E)
    pe[:, 0::2] = lib.sin(pos * div)
    pe[:, 1::2] = lib.cos(pos * div)
    return pe.unsqueeze(0).transpose(0, 1)  # (64, 1, E), a transposed view as the example's


def _run(lib, device, state, tokens, steps=4, lr=5.0):
    m = _model(lib)
    m.load_state_dict({k: lib.from_numpy(v.copy()) for k, v in state.items()})
    m = m.to(device)
    pe = _pe(lib).to(device)
    data = lib.from_numpy(tokens).to(device)
    mask = lib.log(lib.tril(lib.ones(T, T))).to(device)
    crit = lib.nn.NLLLoss()

    def forward(src, tgt):
        x = m["emb"](src) * math.sqrt(E) + pe[:src.size(0), :]
        y = m["dec"](m["enc"](x, mask=mask))
        return crit(lib.nn.functional.log_softmax(y, dim=-1).view(-1, NTOK), tgt.reshape(-1))

    losses = []
    m.train()
    for i in range(steps):
        src, tgt = data[i:i + T], data[i + 1:i + 1 + T]
        m.zero_grad()
        loss = forward(src, tgt)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(m.parameters(), 0.25)
        for p in m.parameters():
            p.data.add_(p.grad, alpha=-lr)
        losses.append(loss.item())
    m.eval()
    with lib.no_grad():
        losses.append(forward(data[:T], data[1:T + 1]).item())
    return np.array(losses)


@pytest.mark.parametrize("steps", [4])
def test_wlm_transformer_steps_and_eval_on_the_gpu_path_are_torchs(steps):
    tokens = np.random.default_rng(0).integers(0, NTOK, (T + steps + 1, B)).astype(np.int64)
    ref = _model(torch)
    state = {k: v.detach().numpy() for k, v in ref.state_dict().items()}
    want = _run(torch, "cpu", state, tokens, steps)
    host = _host_cuda.compiler() is not None
    with standin.active(), (_host_cuda.sources_beside_references() if host else
                            contextlib.nullcontext(([], {}))) as (mismatches, checked):
        standin.reset_stats()
        got = _run(numtorch, "cuda", state, tokens, steps)
        fused = set(standin.STATS["fused"])
    assert mismatches == []
    assert not host or set(checked) == fused
    # the layer-norm rows and the attention core's softmax rows, forward and backward
    assert {"numtorch_ln_forward", "numtorch_ln_grad_rows", "numtorch_ln_grad_cols",
            "numtorch_attn_softmax", "numtorch_attn_softmax_grad"} <= fused
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=0)
    np.testing.assert_allclose(_run(numtorch, "cpu", state, tokens, steps), want, rtol=2e-5,
                               atol=0)
