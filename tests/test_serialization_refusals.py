"""What torch.load(weights_only=True) says when it refuses a checkpoint: torch's messages."""

import argparse
import io
import os
import warnings

import numpy as np
import pytest
import torch

import numtorch


class _Runs:
    def __reduce__(self):
        return (os.system, ("true",))


@pytest.mark.parametrize("make", [
    lambda: np.ones(2), lambda: argparse.Namespace(a=1), lambda: slice(1, 2),
    lambda: {"kind": type}, lambda: _Runs(), lambda: np.float32(1.0),
], ids=["ndarray", "namespace", "slice", "type", "blocked", "numpy-scalar"])
def test_refused_globals_read_as_torch(make):
    buf = io.BytesIO()
    torch.save(make(), buf)  # torch writes; each library reads the same bytes
    got = []
    for lib in (numtorch, torch):
        with pytest.raises(Exception) as info:
            lib.load(io.BytesIO(buf.getvalue()))
        got.append((type(info.value).__name__, str(info.value)))
    assert got[0] == got[1]


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_pickle_protocol_warning_as_torch(protocol):
    buf = io.BytesIO()
    torch.save({"w": torch.ones(1)}, buf, pickle_protocol=protocol)
    got = []
    for lib in (numtorch, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                lib.load(io.BytesIO(buf.getvalue()))
            except Exception as e:  # noqa: BLE001 - compared below
                caught.append(type(e).__name__)
        got.append([str(w.message) if hasattr(w, "message") else w for w in caught])
    assert got[0] == got[1]
