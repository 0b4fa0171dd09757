"""Session 49: the launcher's ``--max-restarts``. numtorch's ``python -m
numtorch.distributed.run`` accepted the option and never restarted: a failed rank ended the
job. torchrun's agent stops every rank and starts the group again with
TORCHELASTIC_RESTART_COUNT one higher, until the restarts are spent. One rank program
(``ranks/s49_restart.py``, rank 1 fails while the restart count is below a bound) runs under
torch's launcher and under numtorch's; the starts each made (their environment) and the exit
status are compared, and under numtorch every restarted group must also all_reduce."""

import json
import os
import sys

import pytest

from . import _launch

SCRIPT = os.path.join(_launch.RANKS, "s49_restart.py")


def _cmd(tag, out, max_restarts, fail_below):
    head = [sys.executable, "-m", "numtorch.run"] if tag == "numtorch" else [sys.executable]
    return head + ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
                   f"--max-restarts={max_restarts}", SCRIPT, out, tag, str(fail_below)]


def _starts(out, tag):
    got = {}
    for name in sorted(os.listdir(out)):
        if name.startswith(tag + "_"):
            with open(os.path.join(out, name)) as f:
                rec = json.load(f)
            if tag == "numtorch":
                assert rec.pop("sum_ok"), name
            got[name[len(tag) + 1:]] = rec
    return got


CASES = [(2, 1), (1, 5)]  # (max_restarts, fail_below): success after a restart; restarts spent


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every case under both launchers, all started at once (they take seconds each)."""
    base = str(tmp_path_factory.mktemp("s49_restart"))
    cmds, dirs = [], []
    for max_restarts, fail_below in CASES:
        out = os.path.join(base, f"{max_restarts}_{fail_below}")
        os.mkdir(out)
        for tag in ("numtorch", "torch"):
            cmds.append(_cmd(tag, out, max_restarts, fail_below))
            dirs.append(out)
    done = _launch.run_all(cmds, timeout=150)
    return {case: (dirs[2 * i], done[2 * i], done[2 * i + 1]) for i, case in enumerate(CASES)}


@pytest.mark.parametrize(("max_restarts", "fail_below"), CASES)
def test_max_restarts_match_torch(runs, max_restarts, fail_below):
    out, ours, theirs = runs[max_restarts, fail_below]
    assert (ours.returncode == 0) == (theirs.returncode == 0), (ours.stderr[-2000:],
                                                                theirs.stderr[-2000:])
    assert _starts(out, "numtorch") == _starts(out, "torch")
    assert len(_starts(out, "torch")) == 2 * (min(max_restarts, fail_below) + 1)
