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


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A loopback HTTP server for checkpoint files (the pretrained-download tests)."""
    from ._model_helpers import CheckpointServer

    root = tmp_path_factory.mktemp("served")
    srv = CheckpointServer(str(root))
    yield srv
    srv.close()
    shutil.rmtree(root, ignore_errors=True)  # full-size checkpoints: free the disk now


@pytest.fixture
def tv():
    """The real torchvision (the oracle)."""
    return torchvision


@pytest.fixture
def ntv():
    """numtorchvision."""
    return numtorchvision
