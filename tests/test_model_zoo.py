"""numtorch.hub / utils.model_zoo downloads, against a local HTTP server (no real network)."""

import hashlib
import http.server
import io
import os
import threading

import numpy as np
import pytest
import torch

import numtorch
from numtorch import hub
from numtorch.utils import model_zoo


class _Handler(http.server.BaseHTTPRequestHandler):
    files = {}
    hits = []

    def do_GET(self):  # noqa: N802 - http.server's name
        self.hits.append(self.path)
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    _Handler.files, _Handler.hits = {}, []
    try:
        yield srv, f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=5)


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMTORCH_HOME", str(tmp_path / "nthome"))
    monkeypatch.delenv("TORCH_HOME", raising=False)
    monkeypatch.setattr(hub, "_HUB_DIR", [None])
    return tmp_path / "nthome"


def _checkpoint(lib=torch):
    buf = io.BytesIO()
    lib.save({"w": lib.arange(6.0).reshape(2, 3), "b": lib.ones(2, dtype=lib.int64)}, buf)
    data = buf.getvalue()
    return data, hashlib.sha256(data).hexdigest()


def _check_sd(sd):
    np.testing.assert_array_equal(sd["w"].numpy(), np.arange(6.0).reshape(2, 3))
    assert sd["b"].dtype is numtorch.int64


def test_load_url_downloads_once_into_cache(server, home):
    _, base = server
    data, digest = _checkpoint()
    _Handler.files["/models/net-%s.pth" % digest[:10]] = data
    url = f"{base}/models/net-{digest[:10]}.pth"
    sd = model_zoo.load_url(url, progress=False, check_hash=True)
    _check_sd(sd)
    cached = home / "hub" / "checkpoints" / f"net-{digest[:10]}.pth"
    assert cached.read_bytes() == data
    _check_sd(hub.load_state_dict_from_url(url, progress=False))
    assert len(_Handler.hits) == 1  # the second call used the cache


def test_bad_hash_raises_and_leaves_nothing(server, home):
    _, base = server
    data, _ = _checkpoint()
    _Handler.files["/m/net-deadbeef00.pth"] = data
    with pytest.raises(RuntimeError, match="invalid hash value"):
        hub.load_state_dict_from_url(f"{base}/m/net-deadbeef00.pth", progress=False,
                                     check_hash=True)
    folder = home / "hub" / "checkpoints"
    assert list(folder.iterdir()) == []  # no partial or bad file left in the cache


def test_check_hash_skips_a_name_without_hash_like_torch(server, home, tmp_path):
    _, base = server
    _Handler.files["/plain.pth"] = _checkpoint()[0]
    want = torch.hub.load_state_dict_from_url(f"{base}/plain.pth", progress=False,
                                              check_hash=True, model_dir=str(tmp_path / "th"))
    sd = hub.load_state_dict_from_url(f"{base}/plain.pth", progress=False, check_hash=True)
    _check_sd(sd)
    assert {k: v.tolist() for k, v in sd.items()} == {k: v.tolist() for k, v in want.items()}


def test_model_dir_file_name_and_map_location(server, tmp_path, home):
    _, base = server
    data, _ = _checkpoint(numtorch)
    _Handler.files["/x"] = data
    sd = hub.load_state_dict_from_url(f"{base}/x", model_dir=str(tmp_path / "mine"),
                                      file_name="renamed.pt", map_location="cpu",
                                      progress=False, weights_only=True)
    _check_sd(sd)
    assert (tmp_path / "mine" / "renamed.pt").read_bytes() == data


def test_http_error_propagates(server, home):
    import urllib.error

    _, base = server
    with pytest.raises(urllib.error.HTTPError):
        hub.load_state_dict_from_url(f"{base}/missing.pth", progress=False)
    assert list((home / "hub" / "checkpoints").iterdir()) == []


def test_file_url_and_progress_on_stderr(tmp_path, home, capsys):
    data, digest = _checkpoint()
    src = tmp_path / f"local-{digest[:8]}.pt"
    src.write_bytes(data)
    _check_sd(hub.load_state_dict_from_url(src.as_uri(), check_hash=True, progress=True))
    captured = capsys.readouterr()
    # the download is named on stdout (as torch), the progress bar goes to stderr
    assert "Downloading" in captured.out and "100%" in captured.err


def test_get_dir_set_dir_and_torch_home(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_HUB_DIR", [None])
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert hub.get_dir() == os.path.join(str(tmp_path / "th"), "hub")
    monkeypatch.setenv("NUMTORCH_HOME", str(tmp_path / "nt"))
    assert hub.get_dir() == os.path.join(str(tmp_path / "nt"), "hub")
    monkeypatch.delenv("NUMTORCH_HOME")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert hub.get_dir() == os.path.expanduser(os.path.join("~", ".cache", "numtorch", "hub"))
    hub.set_dir(tmp_path / "custom")
    assert hub.get_dir() == str(tmp_path / "custom")


def test_download_url_to_file(server, tmp_path):
    _, base = server
    payload = bytes(range(256)) * 1000
    _Handler.files["/blob"] = payload
    dst = tmp_path / "sub" / "blob.bin"
    digest = hashlib.sha256(payload).hexdigest()
    hub.download_url_to_file(f"{base}/blob", dst, hash_prefix=digest[:12], progress=False)
    assert dst.read_bytes() == payload
    dst.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="invalid hash value"):
        hub.download_url_to_file(f"{base}/blob", dst, hash_prefix="0" * 12, progress=False)
    assert dst.read_bytes() == b"old"  # atomic: the failed download did not touch it
    assert sorted(p.name for p in dst.parent.iterdir()) == ["blob.bin"]


def test_hub_matches_torch_hub_on_same_file(tmp_path, home):
    data, digest = _checkpoint()
    src = tmp_path / f"ref-{digest[:8]}.pt"
    src.write_bytes(data)
    ours = hub.load_state_dict_from_url(src.as_uri(), progress=False, check_hash=True)
    theirs = torch.hub.load_state_dict_from_url(src.as_uri(), model_dir=str(tmp_path / "t"),
                                                progress=False, check_hash=True)
    for k in theirs:
        np.testing.assert_array_equal(ours[k].numpy(), theirs[k].numpy())
