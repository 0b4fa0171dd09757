"""Errors that show the call as the program wrote it (clamp with mixed bound kinds,
linspace/logspace without a required argument) read the program's own frame, however many of
numtorch's frames lie between: once a program defines a Tensor subclass, calls go through
__torch_function__ handling (found by the user-program corpus: s39_format_user's subclass
turned a later clamp message into the positional form)."""

import pytest
import torch

import numtorch

CALLS = [
    lambda L: L.clamp(L.tensor([1, 5, 9]), min=L.tensor([2, 2, 2]), max=6),
    lambda L: L.clamp(L.tensor([1, 5, 9]), L.tensor([2, 2, 2]), max=6),
    lambda L: L.tensor([1.]).clamp(L.tensor([0.]), 2),
    lambda L: L.tensor([1.]).clip(max=L.tensor([0.]), min=2),
    lambda L: L.linspace(0, steps=3),
    lambda L: L.logspace(end=2, steps=3),
]


def _message(lib, call):
    with pytest.raises(TypeError) as info:
        call(lib)
    return str(info.value)


@pytest.mark.parametrize("with_subclass", [False, True])
@pytest.mark.parametrize("k", range(len(CALLS)))
def test_written_call_text_with_and_without_a_tensor_subclass(k, with_subclass):
    if with_subclass:
        for lib in (torch, numtorch):
            sub = type("T", (lib.Tensor,), {})
            lib.tensor(1.5).as_subclass(sub) + 1  # the subclass in use, as a program would
    assert _message(numtorch, CALLS[k]) == _message(torch, CALLS[k])
