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

# workers killed: torch's own answer is a race (its SIGCHLD handler's text, the same chained,
# a reset socket or EOFError) and its loader can even hang when both workers die in
# worker_init_fn, so these run under numtorch only and are checked for torch's texts
_RACES = ("init_fn_killed", "persistent_killed_second_epoch")


def _cases(lib, cases):
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-m", "tests.security._dl_s41", lib, *cases],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {r["case"]: r for r in map(json.loads, proc.stdout.splitlines())}


@pytest.fixture(scope="module")
def outcomes():
    from tests.security._dl_s41 import CASES

    return (_cases("torch", [c for c in CASES if c not in _RACES]),
            _cases("numtorch", CASES))


def test_worker_misbehaviour_as_in_torch(outcomes):
    want, got = outcomes
    for case, w in want.items():
        g = got[case]
        assert g["seconds"] < 20, g
        for key in ("batches", "cls", "msg", "cause_cls", "cause_msg"):
            if key == "msg" and w.get("msg", "").startswith("Caught"):
                assert g[key].startswith(w[key].split(" in DataLoader")[0]), (case, w, g)
            else:
                assert g.get(key) == w.get(key), (case, key, w, g)


@pytest.mark.parametrize("case", _RACES)
def test_killed_workers_named_in_torch_s_words(outcomes, case):
    g = outcomes[1][case]
    assert g["seconds"] < 20, g
    if case == "persistent_killed_second_epoch":
        assert g["first_epoch"] == 8, g  # the first epoch, before the kill, is whole
    assert g["cls"] == "RuntimeError", g
    assert g["msg"].startswith("DataLoader worker (pid(s) PID") and \
        g["msg"].endswith("exited unexpectedly"), g
    assert g["cause_cls"] == "RuntimeError", g
    assert g["cause_msg"] == "DataLoader worker (pid PID) is killed by signal: Killed. ", g


def test_map_style_stop_iteration_ends_the_loop(outcomes):
    want, got = outcomes
    batches = got["map_stop_iteration"]["batches"]
    assert batches == want["map_stop_iteration"]["batches"]
    assert len(batches) < 8  # the loop ended at the failing batch, not past it
