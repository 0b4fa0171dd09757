"""Oracle tests for defects found by the user programs in ``tests/parity_users`` (one test per
defect, each comparing numtorch with torch directly)."""

import warnings

import numpy as np
import pytest
import torch

import numtorch


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window"])
def test_float64_cosine_windows_round_as_torch(name):
    # the sum of cosines in torch's order: a float64 Blackman window starts at 0, not -1.4e-17
    for n in range(2, 40):
        for periodic in (True, False):
            want = getattr(torch, name)(n, periodic, dtype=torch.float64).numpy()
            got = getattr(numtorch, name)(n, periodic, dtype=numtorch.float64).numpy()
            np.testing.assert_array_equal(got, want)


def _warned(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="return_complex parameter"):
            lib.stft(lib.ones(32), n_fft=8)
    return [str(w.message).split(" (Triggered")[0] for w in caught]


def test_stft_warns_of_missing_window_before_return_complex_error():
    assert _warned(numtorch) == _warned(torch)
