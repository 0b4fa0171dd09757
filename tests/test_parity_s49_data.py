"""Session 49 (Distributed area): data loading and multiprocessing, compared with real torch.

Every expectation is real torch's answer for the same input at test time.
"""

from multiprocessing.reduction import ForkingPickler

import pytest
import torch
import torch.multiprocessing

import numtorch
import numtorch.multiprocessing

assert torch.multiprocessing and numtorch.multiprocessing  # imported for their tensor reductions


def _dumps_outcome(lib, make):
    t = make(lib)
    try:
        ForkingPickler.dumps(t)
    except Exception as e:  # noqa: BLE001 - class and message are compared
        return type(e).__name__, str(e)
    return "ok", None


@pytest.mark.parametrize("case", ["non_leaf", "non_leaf_view"])
def test_sending_a_non_leaf_that_requires_grad_is_refused_with_torchs_message(case):
    def make(lib):
        leaf = lib.ones(3, requires_grad=True)
        return leaf * 2 if case == "non_leaf" else (leaf * 2)[1:]

    assert _dumps_outcome(numtorch, make) == _dumps_outcome(torch, make)
