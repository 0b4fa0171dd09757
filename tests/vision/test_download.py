"""download=True against a loopback HTTP server: mirrors, MD5 checks, resuming cut
downloads with Range requests, and nothing half-written left behind."""

import http.server
import io
import os
import threading
import zipfile

import numpy as np
import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D
from numtorch import hub
from numtorchvision.datasets import utils as dutils

from . import _fabricate as fab
from ._helpers import assert_same_image


class _Handler(http.server.BaseHTTPRequestHandler):
    files, hits, cut_once, no_range = {}, [], set(), set()

    def do_GET(self):
        rng = self.headers.get("Range")
        self.hits.append((self.path, rng))
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        start = 0
        if rng and self.path not in self.no_range:
            start = int(rng.split("=")[1].split("-")[0])
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        part = body[start:]
        self.send_header("Content-Length", str(len(part)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if self.path in self.cut_once:
            self.cut_once.discard(self.path)
            self.wfile.write(part[:len(part) // 2])  # then drop the connection
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(part)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    _Handler.files, _Handler.hits = {}, []
    _Handler.cut_once, _Handler.no_range = set(), set()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=5)


def _serve_mnist(base, folder="/mnist/"):
    resources = []
    for name, data in fab.mnist_files(n_train=30, n_test=10).items():
        packed = fab.gz(data)
        _Handler.files[f"{folder}{name}.gz"] = packed
        resources.append((f"{name}.gz", fab.md5(packed)))
    order = ["train-images", "train-labels", "t10k-images", "t10k-labels"]
    return sorted(resources, key=lambda r: order.index(r[0].rsplit("-", 2)[0]))


def test_mnist_download_through_mirrors_matches_torchvision(server, tmp_path, monkeypatch,
                                                            capsys):
    resources = _serve_mnist(server)
    for lib in (D, TD):
        monkeypatch.setattr(lib.MNIST, "mirrors", [f"{server}/missing/", f"{server}/mnist/"])
        monkeypatch.setattr(lib.MNIST, "resources", resources)
    a = D.MNIST(tmp_path / "nt", download=True)
    err = capsys.readouterr().err
    assert "100%" in err  # the progress bar
    b = TD.MNIST(tmp_path / "tv", download=True)
    assert len(a) == len(b) == 30
    for i in (0, 7, 29):
        assert_same_image(a[i][0], b[i][0])
        assert a[i][1] == b[i][1]
    assert sorted(os.listdir(a.raw_folder)) == sorted(os.listdir(b.raw_folder))
    hits = len(_Handler.hits)
    D.MNIST(tmp_path / "nt", download=True)  # already there: nothing is fetched
    assert len(_Handler.hits) == hits


def test_mnist_all_mirrors_fail(server, tmp_path, monkeypatch):
    monkeypatch.setattr(D.MNIST, "mirrors", [f"{server}/a/", f"{server}/b/"])
    with pytest.raises(RuntimeError, match="Error downloading train-images-idx3-ubyte.gz:\n"
                                           "Tried .*/a/, got:\n.*404"):
        D.MNIST(tmp_path, download=True)
    assert os.listdir(tmp_path / "MNIST" / "raw") == []


def test_corrupt_download_leaves_nothing(server, tmp_path, monkeypatch):
    resources = _serve_mnist(server)
    _Handler.files["/mnist/train-labels-idx1-ubyte.gz"] = b"not the real file"
    monkeypatch.setattr(D.MNIST, "mirrors", [f"{server}/mnist/"])
    monkeypatch.setattr(D.MNIST, "resources", resources)
    with pytest.raises(RuntimeError, match=r"train-labels-idx1-ubyte.gz.*MD5.*expected"):
        D.MNIST(tmp_path, download=True)
    left = sorted(os.listdir(tmp_path / "MNIST" / "raw"))
    # the first file came in whole; the corrupt one left no trace, not even a partial
    assert left == ["train-images-idx3-ubyte", "train-images-idx3-ubyte.gz"]


def test_cut_connection_is_resumed_with_range(server, tmp_path):
    payload = bytes(range(256)) * 400
    _Handler.files["/big.bin"] = payload
    _Handler.cut_once.add("/big.bin")
    dutils.download_url(f"{server}/big.bin", tmp_path, md5=fab.md5(payload))
    assert (tmp_path / "big.bin").read_bytes() == payload
    ranges = [r for p, r in _Handler.hits if p == "/big.bin"]
    assert ranges[0] is None and ranges[1] == f"bytes={len(payload) // 2}-"
    assert os.listdir(tmp_path) == ["big.bin"]


def test_partial_from_an_earlier_run_is_resumed(server, tmp_path):
    payload = os.urandom(50_000)
    _Handler.files["/f.bin"] = payload
    (tmp_path / ".f.bin.partial").write_bytes(payload[:20_000])
    hub.download_url_to_file(f"{server}/f.bin", tmp_path / "f.bin", progress=False)
    assert (tmp_path / "f.bin").read_bytes() == payload
    assert _Handler.hits == [("/f.bin", "bytes=20000-")]
    # a server that ignores Range sends the whole file: the partial is restarted
    _Handler.no_range.add("/g.bin")
    (tmp_path / ".g.bin.partial").write_bytes(b"junk" * 10)
    _Handler.files["/g.bin"] = payload
    dutils.download_url(f"{server}/g.bin", tmp_path, md5=fab.md5(payload))
    assert (tmp_path / "g.bin").read_bytes() == payload
    # a stale partial of some other file fails the MD5 check and is thrown away
    (tmp_path / ".h.bin.partial").write_bytes(b"junk" * 10)
    _Handler.files["/h.bin"] = payload
    with pytest.raises(RuntimeError, match="MD5"):
        dutils.download_url(f"{server}/h.bin", tmp_path, md5=fab.md5(payload))
    dutils.download_url(f"{server}/h.bin", tmp_path, md5=fab.md5(payload))
    assert (tmp_path / "h.bin").read_bytes() == payload
    assert sorted(os.listdir(tmp_path)) == ["f.bin", "g.bin", "h.bin"]


def test_cifar_download_matches_torchvision(server, tmp_path, monkeypatch):
    members = fab.cifar_members("cifar-10-batches-py", n=6)
    archive = fab.targz(members)
    _Handler.files["/cifar-10-python.tar.gz"] = archive
    for lib in (D, TD):
        monkeypatch.setattr(lib.CIFAR10, "url", f"{server}/cifar-10-python.tar.gz")
        monkeypatch.setattr(lib.CIFAR10, "tgz_md5", fab.md5(archive))
        for attr in ("train_list", "test_list"):
            monkeypatch.setattr(lib.CIFAR10, attr, [
                [n, fab.md5(members[f"cifar-10-batches-py/{n}"])]
                for n, _ in getattr(lib.CIFAR10, attr)])
        meta = dict(lib.CIFAR10.meta, md5=fab.md5(members["cifar-10-batches-py/batches.meta"]))
        monkeypatch.setattr(lib.CIFAR10, "meta", meta)
    a = D.CIFAR10(tmp_path / "nt", train=False, download=True)
    b = TD.CIFAR10(tmp_path / "tv", train=False, download=True)
    np.testing.assert_array_equal(a.data, b.data)
    assert a.targets == b.targets and a.classes == b.classes
    assert sorted(os.listdir(tmp_path / "nt")) == sorted(os.listdir(tmp_path / "tv"))


def test_truncated_archive_is_not_half_extracted(tmp_path):
    archive = fab.targz({f"pack/file{i}": os.urandom(30_000) for i in range(4)})
    (tmp_path / "pack.tar.gz").write_bytes(archive[:len(archive) // 2])
    with pytest.raises(RuntimeError, match=r"pack.tar.gz is not a complete tar archive"):
        dutils.extract_archive(str(tmp_path / "pack.tar.gz"))
    assert os.listdir(tmp_path) == ["pack.tar.gz"]
    (tmp_path / "x.gz").write_bytes(fab.gz(os.urandom(5000))[:500])
    with pytest.raises(RuntimeError, match="x.gz is not a complete gz file"):
        dutils.extract_archive(str(tmp_path / "x.gz"))
    assert sorted(os.listdir(tmp_path)) == ["pack.tar.gz", "x.gz"]


def test_emnist_download_of_the_zip(server, tmp_path, monkeypatch):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for split in ("train", "test"):
            images, labels = fab.mnist_arrays(8, seed=split == "test")
            z.writestr(f"gzip/emnist-digits-{split}-images-idx3-ubyte.gz",
                       fab.gz(fab.idx_bytes(images)))
            z.writestr(f"gzip/emnist-digits-{split}-labels-idx1-ubyte.gz",
                       fab.gz(fab.idx_bytes(labels)))
    _Handler.files["/gzip.zip"] = buf.getvalue()
    for lib in (D, TD):
        monkeypatch.setattr(lib.EMNIST, "url", f"{server}/gzip.zip")
        monkeypatch.setattr(lib.EMNIST, "md5", fab.md5(buf.getvalue()))
    a = D.EMNIST(tmp_path / "nt", split="digits", download=True)
    b = TD.EMNIST(tmp_path / "tv", split="digits", download=True)
    np.testing.assert_array_equal(a.data.numpy(), b.data.numpy())
    assert sorted(os.listdir(a.raw_folder)) == sorted(os.listdir(b.raw_folder))


def test_helpers_match_torchvision(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"abc")
    (tmp_path / "d").mkdir()
    assert dutils.calculate_md5(tmp_path / "a.txt") == TD.utils.calculate_md5(tmp_path / "a.txt")
    assert dutils.check_integrity(tmp_path / "a.txt", fab.md5(b"abc"))
    assert not dutils.check_integrity(tmp_path / "a.txt", "0" * 32)
    assert dutils.list_dir(tmp_path) == TD.utils.list_dir(tmp_path)
    assert dutils.list_files(tmp_path, ".txt", True) == TD.utils.list_files(tmp_path, ".txt",
                                                                             True)
    for value, valid in (("x", ("a", "b")), (3, None)):
        with pytest.raises(ValueError) as want:
            TD.utils.verify_str_arg(value, "arg", valid)
        with pytest.raises(ValueError) as got:
            dutils.verify_str_arg(value, "arg", valid)
        assert str(got.value) == str(want.value)
    for name in ("a.tar.gz", "a.tgz", "a.zip", "a.gz", "a.tar"):
        assert dutils._detect_file_type(name) == TD.utils._detect_file_type(name)
    with pytest.raises(RuntimeError, match="Unknown compression"):
        dutils._detect_file_type("a.rar")
