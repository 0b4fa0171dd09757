"""Session 49: a rank that ends before init_process_group under numtorch's launcher.

numtorch's ranks start MPI inside init_process_group, and MPI's start waits for every rank
without a time limit: a rank that exited first left the others blocked there for good
(``timeout=`` had no effect), and a failed rank was reported only after the failure grace
and a forced kill. torch's launcher stops the others at once (SIGTERM) when a rank fails, and
its summary names the failed rank as root cause and the stopped ones as further failures, and a rank whose peer exited 0 raises DistStoreError after the
init timeout. Each case runs ``ranks/s49_launcher_exit.py`` under torch's launcher and under
numtorch's (all at once, each with a subprocess timeout: a hang fails the test)."""

import json
import os
import re
import sys

import pytest

from . import _launch

SCRIPT = os.path.join(_launch.RANKS, "s49_launcher_exit.py")
MODES = {"exit0": 0, "fail": 0, "restart": 1}  # mode -> --max-restarts


def _cmd(tag, out, mode):
    head = [sys.executable, "-m", "numtorch.run"] if tag == "numtorch" else [sys.executable]
    return head + ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
                   f"--max-restarts={MODES[mode]}", SCRIPT, out, tag, mode]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("s49_launcher_exit"))
    cmds = [_cmd(tag, out, mode) for mode in MODES for tag in ("numtorch", "torch")]
    done = _launch.run_all(cmds, timeout=100)  # init waits 120 s: a hang times out here
    return out, {mode: (done[2 * i], done[2 * i + 1]) for i, mode in enumerate(MODES)}


def _load(out, name):
    with open(os.path.join(out, name)) as f:
        return json.load(f)


def _failures(stderr):
    """((rank, local rank, exit code) of the root cause, the same of the other failures)."""
    head, _, tail = stderr.partition("Root Cause")
    head = head[head.rindex("Failures:"):]
    pat = r"rank\s+: (\d+) \(local_rank: (\d+)\)\s+exitcode\s+: (-?\d+)"
    return re.findall(pat, tail), re.findall(pat, head)


def test_peer_exited_zero_init_times_out(runs):
    out, modes = runs
    ours, theirs = modes["exit0"]
    assert ours.returncode == theirs.returncode, (ours.stderr[-2000:], theirs.stderr[-2000:])
    assert _load(out, "numtorch_exit0.json") == _load(out, "torch_exit0.json")


def test_peer_failed_before_init_stops_the_rest(runs):
    _, modes = runs
    ours, theirs = modes["fail"]
    assert ours.returncode != 0 and theirs.returncode != 0
    assert _failures(ours.stderr) == _failures(theirs.stderr), (ours.stderr[-2000:],
                                                                theirs.stderr[-2000:])
    assert _failures(theirs.stderr)[0] == [("1", "1", "3")]


def test_peer_failed_before_init_restarts(runs):
    out, modes = runs
    ours, theirs = modes["restart"]
    assert ours.returncode == theirs.returncode == 0, (ours.stderr[-2000:],
                                                       theirs.stderr[-2000:])
    for rank in (0, 1):
        mine = _load(out, f"numtorch_restart_rank{rank}.json")
        assert mine.pop("sum") == 3.0
        assert mine == _load(out, f"torch_restart_rank{rank}.json")
