"""torch.save over an existing checkpoint when the write fails, compared with real torch.save.

torch opens the destination for writing before it pickles anything, so an unpicklable object
or a full disk leaves it truncated; numtorch writes a temporary file and renames it over the
destination only when complete, so the old checkpoint stays whole. Where the rename would do
what torch's open cannot (replace a read-only file, a FIFO or a device node) numtorch refuses
or writes in place as torch does, with torch's exception class.
"""

import io
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading

import pytest
import torch

import numtorch


def _state(path, before):
    if not path.exists():
        return "missing"
    return "intact" if path.read_bytes() == before else "changed"


def test_unpicklable_value_midway_keeps_the_original(tmp_path):
    states, kinds = {}, {}
    for lib in (torch, numtorch):
        path = tmp_path / f"{lib.__name__}.pt"
        lib.save({"v": lib.arange(3.0)}, path)
        before = path.read_bytes()
        with pytest.raises(Exception) as info:
            lib.save({"a": lib.ones(1000), "bad": lambda: 0, "c": lib.ones(10)}, path)
        states[lib], kinds[lib] = _state(path, before), type(info.value)
    assert kinds[numtorch] is kinds[torch]
    assert states[torch] == "changed"  # torch truncated it (documented difference)
    assert states[numtorch] == "intact"
    assert numtorch.load(tmp_path / "numtorch.pt")["v"].tolist() == [0.0, 1.0, 2.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["numtorch.pt", "torch.pt"]


_DISK_FULL = textwrap.dedent("""
    import os, resource, signal, sys
    import {lib} as lib
    path = sys.argv[1]
    lib.save({{"v": lib.arange(3.0)}}, path)
    before = open(path, "rb").read()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    try:
        lib.save({{"a": lib.ones(100000)}}, path)
        print("saved")
    except Exception as e:
        print(type(e).__name__)
    print("intact" if open(path, "rb").read() == before else "changed")
    print(sorted(os.listdir(os.path.dirname(path))))
""")


def test_full_disk_keeps_the_original(tmp_path):
    got = {}
    for lib in ("torch", "numtorch"):
        d = tmp_path / lib
        d.mkdir()
        out = subprocess.run([sys.executable, "-c", _DISK_FULL.format(lib=lib), str(d / "c.pt")],
                             capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 0, out.stderr[-2000:]
        got[lib] = out.stdout.split("\n")[:3]
    assert got["torch"][:2] == ["RuntimeError", "changed"]
    assert got["numtorch"] == ["RuntimeError", "intact", "['c.pt']"]


class _FailingFile(io.RawIOBase):
    """A file object whose disk fills up after ``limit`` bytes."""

    def __init__(self, limit):
        self.limit, self.n = limit, 0

    def writable(self):
        return True

    def write(self, b):
        self.n += len(b)
        if self.n > self.limit:
            raise OSError(28, "No space left on device")
        return len(b)


@pytest.mark.parametrize("limit", [100, 2000, 400_000])
def test_failing_file_object_is_a_runtime_error(limit):
    # (torch lets the OSError of its very first write through; every later one is a
    # RuntimeError, and numtorch raises that for all of them)
    for lib in (torch, numtorch):
        with pytest.raises(RuntimeError) as info:
            lib.save({"a": lib.ones(100_000)}, _FailingFile(limit))
    assert "No space left on device" in str(info.value)
    assert isinstance(info.value.__cause__, OSError)


def test_directory_as_destination(tmp_path):
    msgs = []
    for lib in (torch, numtorch):
        with pytest.raises(RuntimeError) as info:
            lib.save({"v": lib.ones(2)}, tmp_path)
        msgs.append(str(info.value))
    assert msgs[1] == msgs[0]
    assert list(tmp_path.iterdir()) == []


_READ_ONLY = textwrap.dedent("""
    import os, sys
    import {lib} as lib
    if os.geteuid() == 0:  # root may write anything: act as nobody, as a user would be
        os.setgid(65534)
        os.setuid(65534)
    d = os.path.join(sys.argv[1], "own")  # a directory this user owns and may chmod
    os.mkdir(d)
    path = os.path.join(d, "c.pt")
    lib.save({{"v": lib.arange(3.0)}}, path)
    os.chmod(path, 0o444)
    before = open(path, "rb").read()
    try:
        lib.save({{"v": lib.zeros(3)}}, path)
        print("saved")
    except Exception as e:
        print(type(e).__name__ + ": " + str(e))
    print("intact" if open(path, "rb").read() == before else "changed")
    os.chmod(d, 0o555)
    try:
        lib.save({{"v": lib.zeros(3)}}, os.path.join(d, "new.pt"))
        print("saved")
    except Exception as e:
        print(type(e).__name__ + ": " + str(e))
    os.chmod(d, 0o777)
""")


def test_read_only_checkpoint_and_directory():
    got = {}
    for lib in ("torch", "numtorch"):
        d = tempfile.mkdtemp(prefix="robust_save_")  # in /tmp: reachable by nobody
        try:
            os.chmod(d, 0o777)
            out = subprocess.run([sys.executable, "-c", _READ_ONLY.format(lib=lib), d],
                                 capture_output=True, text=True, timeout=120, check=False)
        finally:
            os.chmod(d, 0o777)
            shutil.rmtree(d, ignore_errors=True)
        assert out.returncode == 0, out.stderr[-2000:]
        got[lib] = out.stdout.split("\n")[:3]
    assert got["torch"][0].startswith("RuntimeError") and "Permission denied" in got["torch"][0]
    assert got["numtorch"] == got["torch"]
    assert got["numtorch"][1] == "intact"


def test_fifo_is_written_not_replaced(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    got = []

    def reader():
        with open(path, "rb") as f:
            got.append(f.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    try:
        numtorch.save({"v": numtorch.arange(3.0)}, path)
    finally:
        if t.is_alive():  # unblock the reader whatever happened
            with open(path, "wb", buffering=0) as f:
                f.write(b"")
        t.join(10)
    assert stat.S_ISFIFO(os.lstat(path).st_mode)  # not replaced by a regular file
    assert torch.load(io.BytesIO(got[0]))["v"].tolist() == [0.0, 1.0, 2.0]
