"""DataLoader workers misbehaving in ways beyond dying, under torch's and numtorch's loaders
(one subprocess each, see ``tests/security/_dl_s41.py``): a map-style dataset raising
StopIteration ends the loop where torch ends it (numtorch used to skip that batch and go on,
returning the epoch less one batch), a persistent worker killed in the second epoch,
``worker_init_fn`` raising or killing its process, ``collate_fn`` raising, and an exception
class numtorch cannot rebuild with a message. Same batches or the same class, text and cause
as torch; nothing waits long."""

import json
import os
import subprocess
import sys

import pytest

from tests.security._fuzz import ROOT


def _cases(lib):
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-m", "tests.security._dl_s41", lib], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=240, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {r["case"]: r for r in map(json.loads, proc.stdout.splitlines())}


@pytest.fixture(scope="module")
def outcomes():
    return _cases("torch"), _cases("numtorch")


def test_worker_misbehaviour_as_in_torch(outcomes):
    want, got = outcomes
    assert sorted(want) == sorted(got)
    for case, w in want.items():
        g = got[case]
        assert g["seconds"] < 20, g
        if case == "init_fn_killed":  # both workers die: which one torch sees first is timing
            assert g["cls"] == w["cls"] == "RuntimeError", (w, g)
            assert g["msg"].startswith("DataLoader worker (pid"), g
            continue
        if w.get("cls") == "ConnectionResetError":  # torch read the dead worker's socket first
            assert g["cls"] == "RuntimeError" and "exited unexpectedly" in g["msg"], g
            assert g["cause_msg"].startswith("DataLoader worker (pid PID) is killed by signal")
            continue
        for key in ("batches", "first_epoch", "cls", "msg", "cause_cls", "cause_msg"):
            if key == "msg" and w.get("msg", "").startswith("Caught"):
                assert g[key].startswith(w[key].split(" in DataLoader")[0]), (case, w, g)
            else:
                assert g.get(key) == w.get(key), (case, key, w, g)


def test_map_style_stop_iteration_ends_the_loop(outcomes):
    want, got = outcomes
    batches = got["map_stop_iteration"]["batches"]
    assert batches == want["map_stop_iteration"]["batches"]
    assert len(batches) < 8  # the loop ended at the failing batch, not past it
