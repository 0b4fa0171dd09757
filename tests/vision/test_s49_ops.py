"""Session 49: numtorchvision.ops.nms corners. torchvision's compiled nms does not load next to
the CPU torch wheel, so the oracle is the greedy reference of ``_detection_rcnn_reference``
run on real torch (its order is torch's descending sort, which puts NaN scores first, as the
compiled kernel's sort does); dtype errors assert the kernel's message text."""

import numpy as np
import pytest
import torch

import numtorch
from numtorchvision import ops

from ._detection_rcnn_reference import reference_nms


def _boxes(n, seed):
    rng = np.random.default_rng(seed)
    xy = rng.random((n, 2)) * 20
    wh = rng.random((n, 2)) * 10 + 1
    return np.concatenate([xy, xy + wh], 1).astype(np.float32), rng.random(n).astype(np.float32)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("nan_at", [[0], [3], [2, 5], [11]])
def test_nms_nan_scores_sort_first(seed, nan_at):
    b, s = _boxes(12, seed)
    s[nan_at] = np.nan
    want = reference_nms(torch.from_numpy(b), torch.from_numpy(s), 0.3)
    got = ops.nms(numtorch.from_numpy(b), numtorch.from_numpy(s), 0.3)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.dtype == numtorch.int64


def test_batched_nms_nan_scores():
    b, s = _boxes(12, 4)
    s[[1, 7]] = np.nan
    idxs = np.array([0, 1] * 6)
    # torchvision's coordinate trick, run on the torch reference
    tb = torch.from_numpy(b)
    offsets = torch.from_numpy(idxs).to(tb) * (tb.max() + 1)
    want = reference_nms(tb + offsets[:, None], torch.from_numpy(s), 0.3)
    got = ops.batched_nms(numtorch.from_numpy(b), numtorch.from_numpy(s),
                          numtorch.from_numpy(idxs), 0.3)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype,name", [("float16", "Half"), ("bfloat16", "BFloat16"),
                                        ("int64", "Long"), ("int32", "Int")])
def test_nms_cpu_kernel_dtypes(dtype, name):
    b, s = _boxes(4, 0)
    boxes = numtorch.from_numpy(b).to(getattr(numtorch, dtype))
    for scores in (numtorch.from_numpy(s).to(getattr(numtorch, dtype)), numtorch.from_numpy(s)):
        with pytest.raises(RuntimeError, match=f"^\"nms_kernel\" not implemented for '{name}'$"):
            ops.nms(boxes, scores, 0.5)
    with pytest.raises(RuntimeError, match=f"not implemented for '{name}'"):
        ops.nms(boxes[:0], numtorch.from_numpy(s)[:0], 0.5)


def test_nms_mixed_float_types_message():
    b, s = _boxes(4, 0)
    with pytest.raises(RuntimeError, match="^dets should have the same type as scores$"):
        ops.nms(numtorch.from_numpy(b), numtorch.from_numpy(s).double(), 0.5)


def test_nms_under_autocast_runs_in_float32():
    b, s = _boxes(30, 5)
    want = ops.nms(numtorch.from_numpy(b), numtorch.from_numpy(s), 0.4)
    bb, sb = numtorch.from_numpy(b).to(numtorch.bfloat16), numtorch.from_numpy(s).half()
    with numtorch.autocast("cpu", dtype=numtorch.bfloat16):
        got = ops.nms(bb.float().to(numtorch.bfloat16), sb.to(numtorch.bfloat16), 0.4)
    ref = ops.nms(bb.float(), sb.to(numtorch.bfloat16).float(), 0.4)
    np.testing.assert_array_equal(got.numpy(), ref.numpy())
    assert len(want) > 0
