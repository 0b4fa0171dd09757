"""Max pooling with indices over stride phases (``ops.pooling._offset_views``) against torch:
strides above, below and equal to the kernel, dilation, ceil mode (whose last window runs
past the input), 1-, 2- and 3-d, NaN and ties, batch 1 and non-contiguous inputs."""

import numpy as np
import pytest

from numtorch.ops import _intraop
from tests.oracle import check_op

CASES = [
    (2, dict(kernel_size=3, stride=2, padding=1)),  # ResNet's stem pool
    (2, dict(kernel_size=2, stride=3)),  # stride past the kernel: gaps
    (2, dict(kernel_size=3, stride=(2, 3), dilation=(2, 1), padding=1)),
    (2, dict(kernel_size=(2, 3), stride=2, ceil_mode=True)),
    (2, dict(kernel_size=3, stride=(1, 2), padding=(0, 1))),  # one dim unstrided
    (1, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (3, dict(kernel_size=(2, 3, 2), stride=2, padding=(1, 1, 0))),
]


def _pool(nd, kw):
    return lambda t, x: getattr(t.nn.functional, f"max_pool{nd}d")(x, return_indices=True,
                                                                     **kw)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_strided_max_pool_with_indices_matches_torch(case):
    nd, kw = CASES[case]
    shape = {1: (2, 3, 11), 2: (2, 3, 9, 11), 3: (1, 2, 7, 6, 5)}[nd]
    check_op(_pool(nd, kw), [shape], non_contiguous=True)
    ties = np.random.default_rng(1).integers(0, 3, shape).astype(np.float32)
    check_op(_pool(nd, kw), [ties], dtype="float32")


def test_strided_max_pool_nan_batch1_and_split_phase_copy(monkeypatch):
    monkeypatch.setattr(_intraop, "_MIN_PART", 16)  # the phase copy splits across threads
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 4, 13, 12))
    x[rng.random(x.shape) < 0.1] = np.nan
    x[rng.random(x.shape) < 0.1] = -np.inf
    check_op(_pool(2, dict(kernel_size=3, stride=2, padding=1)), [x])
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 3, 2, 1), [x.astype(np.float32)],
             dtype="float32")
