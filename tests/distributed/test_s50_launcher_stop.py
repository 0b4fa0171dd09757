"""Session 50: how the launcher's per-rank supervisor passes on a stop.

numtorch's launcher stops the remaining ranks through mpiexec, which delivers SIGINT. torchrun
stops them with SIGTERM, so its summary shows exit code -15 for each stopped rank, whatever the
rank was doing, even starting its interpreter (a SIGINT there is a fatal error, exit 1: the CI
failure this replaces). When the launcher has marked the run as stopping, the supervisor turns
the SIGINT into SIGTERM; a Ctrl-C from the user (no mark) stays a SIGINT."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="POSIX signals")


def _supervised(run_dir, stopping):
    script = os.path.join(run_dir, "rank.py")
    with open(script, "w") as f:
        # (Python leaves SIGINT ignored when it starts with it ignored, as under a pytest-xdist
        # worker; a rank started from a terminal has the default KeyboardInterrupt handler)
        f.write("import os, signal, sys, time\n"
                "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
                "open(os.path.join(sys.argv[1], 'started'), 'w').close()\n"
                "time.sleep(60)\n")
    env = dict(os.environ, NUMTORCH_RUN_DIR=run_dir, PMI_RANK="0", PMI_SIZE="1")
    sup = subprocess.Popen([sys.executable, "-m", "numtorch.distributed._bootstrap", script,
                            run_dir], env=env, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 60
    while not os.path.exists(os.path.join(run_dir, "started")):
        assert time.monotonic() < end and sup.poll() is None, sup.stderr.read()
        time.sleep(0.02)
    if stopping:
        open(os.path.join(run_dir, "stopping"), "w").close()
    sup.send_signal(signal.SIGINT)
    sup.wait(30)
    with open(os.path.join(run_dir, "exit_0.json")) as f:
        return json.load(f)["exitcode"], sup.stderr.read()


def test_stop_by_the_launcher_ends_the_rank_by_sigterm(tmp_path):
    code, err = _supervised(str(tmp_path), stopping=True)
    assert code == -signal.SIGTERM, err
    assert "KeyboardInterrupt" not in err


def test_user_interrupt_stays_an_interrupt(tmp_path):
    code, err = _supervised(str(tmp_path), stopping=False)
    assert code != -signal.SIGTERM
    assert "KeyboardInterrupt" in err or code == -signal.SIGINT
