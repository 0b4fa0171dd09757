"""Pieces of pytorch/tutorials' programs that printed other values than torch's."""

import pytest
import torch
import torch.nn.utils.prune  # noqa: F401  (torch does not import it with torch.nn)

import numtorch
import numtorch.nn.utils.prune  # noqa: F401


@pytest.mark.parametrize("shape,amount", [((6, 1, 3, 3), 0.3), ((10,), 3), ((4, 5), 0.5),
                                          ((7,), 0)])
def test_random_unstructured_prunes_torch_entries_after_same_seed(shape, amount):
    """pruning_tutorial: random_unstructured after manual_seed zeroes torch's entries, also
    when it refines an earlier mask (the draw covers the whole tensor)."""
    masks = []
    for lib in (torch, numtorch):
        lib.manual_seed(3)
        m = lib.nn.Linear(2, 2)
        m.w = lib.nn.Parameter(lib.randn(*shape))
        lib.nn.utils.prune.random_unstructured(m, "w", amount=amount)
        first = m.w_mask.clone()
        lib.nn.utils.prune.random_unstructured(m, "w", amount=amount)
        masks.append((first.tolist(), m.w_mask.tolist(), lib.rand(2).tolist()))
    assert masks[1] == masks[0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(104,), (1, 104), (5, 3), (2, 1)])
@pytest.mark.parametrize("replacement", [False, True])
def test_single_multinomial_draw_is_torch_after_same_seed(dtype, shape, replacement):
    """nanoGPT's sample.py (torch.multinomial(probs, num_samples=1) per token) writes torch's
    text from a torch checkpoint: one draw is torch's exponential race, also with
    replacement, and later draws stay in step."""
    got = []
    for lib in (torch, numtorch):
        lib.manual_seed(0)
        w = lib.softmax(lib.randn(*shape) * 3, -1).to(getattr(lib, dtype))
        lib.manual_seed(1337)
        draws = [lib.multinomial(w, 1, replacement=replacement).tolist() for _ in range(20)]
        got.append((draws, lib.rand(3).tolist()))
    assert got[1] == got[0]
