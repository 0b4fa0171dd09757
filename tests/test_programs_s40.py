"""Session 40's program patterns (tests/run_programs): pytorch/examples' gcn/gat on a Cora-format
graph and imagenet's ImageFolder training with a checkpoint resumed by either library, under
real torch and ``python -m numtorch.run``; torch.spmm of two dense matrices (gcn's dense
adjacency) against torch; the runner's patched copies and offline ``requests``."""
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import numtorch

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = REPO / "tests" / "run_programs"
BENCH = REPO / "bench" / "programs"
ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(REPO))
SHIM = REPO / "tests" / "vision" / "v2_programs" / "_torch_shim"  # torchvision under torch


def _fabricate():
    sys.path.insert(0, str(BENCH))
    try:
        import fabricate
    finally:
        sys.path.pop(0)
    return fabricate


def _run(lib, args, cwd, vision=False):
    env = dict(ENV)
    if lib == "torch":
        if vision and importlib.util.find_spec("torchvision") is None:
            pytest.skip("torchvision is not installed")
        env["PYTHONPATH"] = str(SHIM) if vision else ""
    cmd = [sys.executable] + (["-m", "numtorch.run"] if lib == "numtorch" else []) + args
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _numbers(line):
    return [float(v) for v in re.findall(r"-?\d+\.\d+", line)]


def _same_lines(want, got, rtol):
    a, b = want.splitlines(), got.splitlines()
    assert len(a) == len(b), (want, got)
    for x, y in zip(a, b):
        assert re.sub(r"-?\d+\.\d+", "#", x) == re.sub(r"-?\d+\.\d+", "#", y), (x, y)
        assert _numbers(y) == pytest.approx(_numbers(x), rel=rtol, abs=1e-6), (x, y)


# -- torch.spmm with two dense operands -----------------------------------------------------
def _pair(lib, requires_grad):
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal((5, 4)).astype(np.float32), requires_grad=requires_grad)
    b = lib.tensor(rng.standard_normal((4, 3)).astype(np.float32), requires_grad=requires_grad)
    return a, b


@pytest.mark.parametrize("name", ["spmm", "mm"])
def test_spmm_of_dense_matrices_is_a_row_major_mm(name):
    outs = []
    for lib in (torch, numtorch):
        a, b = _pair(lib, True)
        out = getattr(lib, name)(a, b)
        (out * lib.arange(15.0).reshape(5, 3)).sum().backward()
        outs.append((out.detach().numpy(), out.stride(), out.is_contiguous(),
                     type(out.grad_fn).__name__, a.grad.numpy(), b.grad.numpy()))
    (v0, *rest0), (v1, *rest1) = outs
    np.testing.assert_allclose(v1, v0, rtol=1e-6)
    assert rest1[:3] == rest0[:3]
    for g1, g0 in zip(rest1[3:], rest0[3:]):
        np.testing.assert_allclose(g1, g0, rtol=1e-6)


def test_sparse_mm_of_dense_matrices_keeps_torchs_transposed_layout():
    res = []
    for lib in (torch, numtorch):
        a, b = _pair(lib, False)
        out = lib.sparse.mm(a, b)
        res.append((out.numpy(), out.stride()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-6)
    assert res[1][1] == res[0][1]


@pytest.mark.parametrize("name", ["spmm", "mm"])
def test_spmm_dense_shape_error_matches(name):
    msgs = []
    for lib in (torch, numtorch):
        with pytest.raises(RuntimeError) as e:
            getattr(lib, name)(lib.ones(5, 4), lib.ones(3, 3))
        msgs.append(str(e.value))
    assert msgs[1] == msgs[0]


def test_dropout_after_spmm_of_dense_adjacency_matches():
    """gcn's layer: spmm(dense adjacency, support) then relu and dropout; the mask depends on
    the product's layout."""
    rng = np.random.default_rng(1)
    adj = rng.random((30, 30)).astype(np.float32)
    sup = rng.standard_normal((30, 6)).astype(np.float32)
    outs = []
    for lib in (torch, numtorch):
        lib.manual_seed(5)
        h = lib.relu(lib.spmm(lib.tensor(adj), lib.tensor(sup)))
        outs.append(lib.nn.functional.dropout(h, 0.5).numpy())
    np.testing.assert_array_equal(outs[1] == 0, outs[0] == 0)
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5)


# -- programs --------------------------------------------------------------------------------
def test_graph_nets_on_cora_files(tmp_path):
    _fabricate().cora(str(tmp_path), np.random.default_rng(7), n=300, words=60)
    prog = [str(PROGRAMS / "graph_nets.py"), str(tmp_path / "cora"), "6"]
    want, got = _run("torch", prog, tmp_path), _run("numtorch", prog, tmp_path)
    assert want.count("gcn epoch") == want.count("gat epoch") == 6
    _same_lines(want, got, 1e-5)


def test_image_folder_checkpoint_resumed_by_either_library(tmp_path):
    pytest.importorskip("PIL")
    _fabricate().imagenet(str(tmp_path), np.random.default_rng(7), classes=3, train=8, val=6)
    prog = str(PROGRAMS / "folder_resume.py")
    data = str(tmp_path / "imagenet")
    trained = {}
    for lib in ("torch", "numtorch"):
        trained[lib] = _run(lib, [prog, data, f"{lib}.pt", "train", "2"], tmp_path, True)
    # two SGD steps of a batch-8 resnet18: BatchNorm over 8 values at 1x1 amplifies rounding
    _same_lines(trained["torch"], trained["numtorch"], 2e-4)
    assert "val loss" in trained["torch"]
    def resume(saved, lib):
        ckpt = tmp_path / f"{saved}-by-{lib}.pt"
        ckpt.write_bytes((tmp_path / f"{saved}.pt").read_bytes())
        try:
            return _run(lib, [prog, data, str(ckpt), "resume", "1"], tmp_path, True)
        finally:
            ckpt.unlink()  # 90 MB each (resnet18 + momentum): keep the suite's disk use small

    want = resume("torch", "torch")
    assert want.startswith("=> loaded 'resnet18' epoch 2 best 0.")
    _same_lines(want, resume("torch", "numtorch"), 1e-4)
    # torch reads numtorch's checkpoint (its weights differ from torch's by the 2e-4 above)
    _same_lines(want, resume("numtorch", "torch"), 2e-2)


# -- the runner's helpers ----------------------------------------------------------------------
def test_patched_copy_and_offline_requests(tmp_path, monkeypatch):
    sys.path.insert(0, str(BENCH))
    try:
        import run as runner
    finally:
        sys.path.pop(0)
    src = tmp_path / "prog.py"
    src.write_text("max_iters = 5000\nprint(max_iters)\n")
    (tmp_path / "run").mkdir()
    copy = runner._patched_copy(str(src), {"max_iters = 5000": "max_iters = 3"},
                                str(tmp_path / "run"))
    assert Path(copy).read_text() == "max_iters = 3\nprint(max_iters)\n"
    with pytest.raises(ValueError, match="0 matches"):
        runner._patched_copy(str(src), {"eval_iters = 200": "eval_iters = 2"},
                             str(tmp_path / "run"))
    (tmp_path / "cora.tgz").write_bytes(b"payload")
    monkeypatch.setenv("PROGRAMS_OFFLINE_DIR", str(tmp_path))
    sys.path.insert(0, str(BENCH / "offline"))
    try:
        sys.modules.pop("requests", None)
        import requests
        with requests.get("https://example.invalid/public/cora.tgz", stream=True) as r:
            assert r.raw.read() == b"payload"
    finally:
        sys.path.pop(0)
        sys.modules.pop("requests", None)
