"""Small parity cases found by outside-style programs this stop (session 44): 0-d tensors'
size/stride/mT, the conjugate bit through detach (numpy() of a tensor with the bit returns
its values where torch refuses: numtorch's own code and tests read such results)."""

import warnings

import pytest
import torch

import numtorch


def _outcome(fn):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            value = fn()
        except Exception as e:  # noqa: BLE001 - the exception is the answer
            return type(e).__name__, str(e).split("\n")[0]
    value = value.tolist() if hasattr(value, "tolist") else value
    return value, [str(w.message).split(" (Triggered")[0] for w in seen]


CASES = {
    "size0": lambda L: L.tensor(3.).size(0), "size-1": lambda L: L.tensor(3.).size(-1),
    "size1": lambda L: L.tensor(3.).size(1), "stride0": lambda L: L.tensor(3.).stride(0),
    "stride-2": lambda L: L.tensor(3.).stride(-2), "size()": lambda L: L.tensor(3.).size(),
    "mT_1d": lambda L: L.ones(2).mT, "mT_2d": lambda L: L.ones(2, 3).mT.shape,
    "conj_detach": lambda L: L.tensor([1 + 2j]).conj().detach().is_conj(),
    "conj_view_detach": lambda L: L.tensor([1 + 2j, 3j]).conj()[1:].detach().is_conj(),
    "conj_numpy_force": lambda L: L.tensor([1 + 2j]).conj().numpy(force=True).tolist(),
    "resolved_numpy": lambda L: L.tensor([1 + 2j]).conj().resolve_conj().numpy().tolist(),
    "real_conj_numpy": lambda L: L.tensor([1.5]).conj().numpy().tolist(),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    assert _outcome(lambda: CASES[name](numtorch)) == _outcome(lambda: CASES[name](torch))


def test_mT_of_a_0d_tensor_is_the_tensor_with_one_warning():
    for lib in (numtorch, torch):
        x = lib.tensor(3., requires_grad=True)
        assert x.mT is x
