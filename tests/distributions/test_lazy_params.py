"""Lazily derived distribution parameters (``Categorical(probs).logits`` and friends) against
torch: first read under grad mode and under ``no_grad`` (the graph is kept either way), and
the clamp of probabilities at 0 and 1 in each float dtype."""

import numpy as np
import pytest
import torch

import numtorch


@pytest.mark.parametrize("grad_mode", [True, False])
def test_logits_derived_from_probs_keep_their_graph(grad_mode):
    def run(t):
        x = t.tensor([[0.3, -1.2, 2.0]], requires_grad=True)
        m = t.distributions.Categorical(t.softmax(x, -1))
        with t.set_grad_enabled(grad_mode):
            logits = m.logits
        lp = m.log_prob(t.tensor([2]))
        lp.sum().backward()
        values = np.round(logits.detach().numpy(), 6).tolist()
        return (logits.requires_grad, type(logits.grad_fn).__name__, values,
                np.round(x.grad.numpy(), 6).tolist())

    assert run(numtorch) == run(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_log_prob_of_certain_and_impossible_categories_is_clamped_as_torch(dtype):
    def run(t):
        probs = t.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=getattr(t, dtype))
        m = t.distributions.Categorical(probs=probs)
        lp = m.log_prob(t.tensor([0, 0]))
        return lp.tolist(), str(lp.dtype).split(".")[-1], m.logits.tolist()

    assert run(numtorch) == run(torch)
