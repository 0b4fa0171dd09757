"""Fixtures for numtorchvision's tests: the torchvision oracle and image helpers.

torchvision's compiled ops do not load with the CPU torch wheel, so it is imported with
``torch.library.register_fake`` briefly replaced by a decorator that returns its function;
models, transforms, datasets and utils then work (``torchvision.io``'s decoders do not).
"""

import shutil

import pytest
import torch

_orig_register_fake = torch.library.register_fake
torch.library.register_fake = lambda *a, **k: (lambda f: f)
try:
    import torchvision
finally:
    torch.library.register_fake = _orig_register_fake

import numtorchvision


@pytest.fixture
def server(tmp_path):
    """A loopback HTTP server for checkpoint files (the pretrained-download tests). One per
    test, its folder removed at the test's end: the checkpoints are full-size torchvision
    weights, and keeping a module's worth of them cost CI ~0.3 GB of disk per worker."""
    from ._model_helpers import CheckpointServer

    root = tmp_path / "served"
    root.mkdir()
    srv = CheckpointServer(str(root))
    yield srv
    srv.close()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def tv():
    """The real torchvision (the oracle)."""
    return torchvision


@pytest.fixture
def ntv():
    """numtorchvision."""
    return numtorchvision
