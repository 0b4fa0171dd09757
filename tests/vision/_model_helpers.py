"""Helpers of the model tests: a loopback HTTP server for checkpoints, fast construction
(random init skipped when every value is about to be loaded), torchvision -> numtorch state
transfer, and output comparison."""

import collections
import contextlib
import hashlib
import http.server
import math
import os
import threading
import warnings

import numpy as np
import torch

import numtorch
from numtorch import nn


class CheckpointServer:
    """Serves the files of a directory on 127.0.0.1 and counts the requests per path."""

    def __init__(self, root):
        self.root = root
        self.hits = {}
        server = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **k):
                super().__init__(*a, directory=root, **k)

            def do_GET(self):
                server.hits[self.path] = server.hits.get(self.path, 0) + 1
                super().do_GET()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, name):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def publish(server, state_dict, stem):
    """Save ``state_dict`` with torch under ``<stem>-<sha256 prefix>.pth`` (the naming that
    ``check_hash`` verifies) and return its URL."""
    tmp = os.path.join(server.root, stem + ".tmp")
    torch.save(state_dict, tmp)
    with open(tmp, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    name = f"{stem}-{digest[:10]}.pth"
    os.replace(tmp, os.path.join(server.root, name))
    return server.url(name)


@contextlib.contextmanager
def skipped_random_init():
    """Leave parameters uninitialised while building a model whose every value is loaded
    next (numtorch draws random numbers several times slower than torch)."""
    saved = (numtorch.Tensor.uniform_, numtorch.Tensor.normal_, nn.init.trunc_normal_)
    numtorch.Tensor.uniform_ = lambda self, *a, **k: self
    numtorch.Tensor.normal_ = lambda self, *a, **k: self
    nn.init.trunc_normal_ = lambda tensor, *a, **k: tensor
    try:
        yield
    finally:
        numtorch.Tensor.uniform_, numtorch.Tensor.normal_, nn.init.trunc_normal_ = saved


_TORCH_INITS = ("normal_", "uniform_", "trunc_normal_", "kaiming_normal_", "kaiming_uniform_",
                "xavier_uniform_", "xavier_normal_")


@contextlib.contextmanager
def torch_init_skipped():
    """Leave torch's parameters as allocated while building (for tests of structure only,
    or when every value is set next)."""
    saved = {n: getattr(torch.nn.init, n) for n in _TORCH_INITS}
    for n in _TORCH_INITS:
        setattr(torch.nn.init, n, lambda tensor, *a, **k: tensor)
    try:
        yield
    finally:
        for n, fn in saved.items():
            setattr(torch.nn.init, n, fn)


def tv_build(builder, seed=0, **kwargs):
    """A torchvision model with seeded random values everywhere (its own initialisation is
    skipped: every value is drawn here, scaled by 1/sqrt(fan-in)), batch-norm statistics
    included, so that no output is trivially zero."""
    with torch_init_skipped(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = builder(weights=None, **kwargs)
    return randomize_values(model, seed)


def randomize_values(model, seed=0):
    """Seeded random values for every parameter and batch-norm statistic of a torch model."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, b in model.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.randn(b.shape, generator=g) * 0.1)
            elif name.endswith("running_var"):
                b.copy_(torch.rand(b.shape, generator=g) + 0.5)
        for name, p in model.named_parameters():
            if p.ndim == 1:
                base = 1.0 if ("bn" in name or "norm" in name or ".ln" in name) else 0.0
                p.copy_(torch.randn(p.shape, generator=g) * 0.1 + base)
            else:
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(p[0].numel()))
    return model


def to_numtorch(state_dict):
    """numtorch tensors sharing torch's memory (load_state_dict makes the one copy), with the
    per-module versions (``_metadata``) kept."""
    out = collections.OrderedDict(
        (k, numtorch.from_numpy(v.detach().numpy())) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        out._metadata = state_dict._metadata
    return out


def structure(state_dict):
    return [(k, tuple(v.shape)) for k, v in state_dict.items()]


def assert_outputs_close(n_out, t_out, rel=1e-4, floor=1e-6):
    """max |numtorch - torch| <= rel * max(max |torch|, floor) (same shape and dtype).

    ``floor`` keeps values that are zero in exact arithmetic (rounding noise on both sides)
    from failing; pass the scale of the neighbouring values."""
    a = t_out.detach().numpy()
    b = n_out.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    scale = max(float(np.abs(a).max()), floor)
    assert float(np.abs(a - b).max()) <= rel * scale, (float(np.abs(a - b).max()), scale)


def image(shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)
