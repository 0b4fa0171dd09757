"""PCAM: without h5py both libraries raise the same RuntimeError; with h5py (not in the
project's venv: put a wheel's files on PYTHONPATH to run these) fabricated HDF5 files are
read like torchvision 0.28 reads them."""

import importlib.util

import numpy as np
import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from ._datasets_a import same_dataset, same_error

HAVE_H5PY = importlib.util.find_spec("h5py") is not None


@pytest.mark.skipif(HAVE_H5PY, reason="h5py is installed")
def test_pcam_needs_h5py(tmp_path):
    err = same_error(lambda: D.PCAM(tmp_path), lambda: TD.PCAM(tmp_path), prefix=False)
    assert "pip install h5py" in str(err)


@pytest.mark.skipif(not HAVE_H5PY, reason="needs h5py")
@pytest.mark.parametrize("split", ["train", "val", "test"])
def test_pcam(tmp_path, split):
    import h5py

    folder = tmp_path / "pcam"
    folder.mkdir()
    rng = np.random.default_rng(len(split))
    stem = {"val": "valid"}.get(split, split)
    with h5py.File(folder / f"camelyonpatch_level_2_split_{stem}_x.h5", "w") as f:
        f["x"] = rng.integers(0, 256, (4, 96, 96, 3)).astype(np.uint8)
    with h5py.File(folder / f"camelyonpatch_level_2_split_{stem}_y.h5", "w") as f:
        f["y"] = rng.integers(0, 2, (4, 1, 1, 1)).astype(np.uint8)
    same_dataset(D.PCAM(tmp_path, split), TD.PCAM(tmp_path, split))
    same_error(lambda: D.PCAM(tmp_path / "x"), lambda: TD.PCAM(tmp_path / "x"))
    same_error(lambda: D.PCAM(tmp_path, "valid"), lambda: TD.PCAM(tmp_path, "valid"),
               prefix=False)
