"""Helpers for the DatasetsA tests: build small datasets in the real on-disk formats and
compare numtorchvision's reading of them with torchvision's (every item, attributes,
errors)."""

import os
import pathlib

import numpy as np
import pytest
import torch
from PIL import Image

import numtorch

from ._helpers import assert_same_image


def same(x, y, where="item"):
    """Recursive equality of what two datasets return: PIL images by pixels, tensors by
    values and dtype (numtorch against torch), containers element-wise and by type."""
    if isinstance(y, Image.Image):
        assert_same_image(x, y)
    elif isinstance(y, torch.Tensor):
        assert isinstance(x, numtorch.Tensor), (where, type(x))
        assert str(x.dtype) == str(y.dtype) and tuple(x.shape) == tuple(y.shape), (
            where, x.dtype, y.dtype, x.shape, y.shape)
        np.testing.assert_array_equal(x.numpy(), y.numpy(), err_msg=where)
    elif isinstance(y, np.ndarray):
        assert isinstance(x, np.ndarray) and x.dtype == y.dtype, (where, type(x))
        np.testing.assert_array_equal(x, y, err_msg=where)
    elif isinstance(y, (list, tuple)):
        assert type(x) is type(y) and len(x) == len(y), (where, type(x), type(y), x, y)
        for i, (u, v) in enumerate(zip(x, y)):
            same(u, v, f"{where}[{i}]")
    elif isinstance(y, dict):
        assert type(x) is type(y) and list(x) == list(y), (where, x, y)
        for k in y:
            same(x[k], y[k], f"{where}[{k!r}]")
    else:
        assert type(x) is type(y) and x == y, (where, x, y)


def same_dataset(a, b, attrs=(), repr_too=True):
    """Equal length, every item, the named attributes and (optionally) the repr."""
    assert len(a) == len(b), (len(a), len(b))
    assert len(b) > 0
    for i in range(len(b)):
        same(a[i], b[i], f"item {i}")
    for name in attrs:
        same(getattr(a, name), getattr(b, name), name)
    if repr_too:
        assert repr(a) == repr(b)
    # every attribute torchvision's dataset object has (the v2 wrapper's objects hold others)
    missing = (sorted(set(vars(b)) - set(vars(a)))
               if type(b).__module__.startswith("torchvision.datasets") else [])
    assert not missing, f"torchvision's dataset has attributes {missing} that ours lacks"


def same_error(make_a, make_b, prefix=True):
    """Both raise the same exception class; numtorchvision's message is torchvision's (or
    starts with it: ours may add which file is missing)."""
    with pytest.raises(Exception) as eb:
        make_b()
    with pytest.raises(type(eb.value)) as ea:
        make_a()
    got, want = str(ea.value), str(eb.value)
    assert got.startswith(want) if prefix else got == want, (got, want)
    return ea.value


def image(path, seed=0, size=(9, 11), mode="RGB"):
    """Write a small random image (format from the suffix) and return its path."""
    rng = np.random.default_rng(seed)
    shape = size if mode == "L" else (*size, len(mode))
    arr = rng.integers(0, 256, size=shape).astype(np.uint8)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(arr, mode).save(path)
    return path


def text(path, content):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def mat(path, **arrays):
    import scipy.io

    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    scipy.io.savemat(os.fspath(path), arrays)
    return path


def patch_md5(monkeypatch, classes, attr, value):
    """Set the class attribute ``attr`` to ``value`` on every class in ``classes``."""
    for cls in classes:
        monkeypatch.setattr(cls, attr, value)


class Served:
    """A loopback HTTP server for ``{path: bytes}``; ``url(path)`` gives the address and
    ``hits`` the paths requested."""

    def __init__(self):
        import http.server
        import threading

        files, hits = self.files, self.hits = {}, []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                hits.append(self.path)
                body = files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self._srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._srv.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def url(self, path=""):
        return f"http://127.0.0.1:{self._srv.server_address[1]}/{path.lstrip('/')}"

    def close(self):
        self._srv.shutdown()
        self._srv.server_close()
        self._thread.join(timeout=5)


def serving():
    """The body of a ``served`` fixture (``served = pytest.fixture(serving)`` in a test
    module)."""
    srv = Served()
    yield srv
    srv.close()


def tar_bytes(members, gz=False):
    """A .tar (or .tar.gz) archive of {path inside: bytes}."""
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gz else "w") as tar:
        for name, data in sorted(members.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def zip_bytes(members):
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in sorted(members.items()):
            z.writestr(name, data)
    return buf.getvalue()


def image_bytes(seed=0, size=(9, 11), fmt="PNG", mode="RGB"):
    import io

    rng = np.random.default_rng(seed)
    shape = size if mode == "L" else (*size, len(mode))
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, shape).astype(np.uint8), mode).save(buf, format=fmt)
    return buf.getvalue()


def file_tree(root):
    """The files under ``root``, as sorted paths relative to it."""
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, files in os.walk(root) for f in files)
