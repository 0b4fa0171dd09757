"""``python -m numtorch.run -c "..."`` and ``python -m numtorch.run -`` (the program on standard
input) run as ``python -c`` and ``python -`` run the same text under torch: the same output,
``sys.argv``, ``sys.path[0]``, ``__main__`` without ``__file__``, traceback and exit status."""

import os
import subprocess
import sys

import pytest

from tests.security._fuzz import ROOT

PROGRAM = ("import sys, torch\n"
           "print(torch.arange(3) * 2, sys.argv, repr(sys.path[0]), __name__,\n"
           "      globals().get('__file__'), '__cached__' in globals())\n"
           "if len(sys.argv) > 2: raise ValueError('bad ' + sys.argv[2])\n"
           "sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)\n")


def _run(prefix, form, args, tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    if form == "-c":
        cmd, stdin = [*prefix, "-c", PROGRAM, *args], None
    else:
        cmd, stdin = [*prefix, "-", *args], PROGRAM
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=120, check=False)
    return proc.returncode, proc.stdout, proc.stderr.strip().splitlines()[-1:]


@pytest.mark.parametrize("form", ["-c", "-"])
@pytest.mark.parametrize("args", [[], ["4"], ["0", "x"]], ids=["none", "exit4", "raises"])
def test_command_and_stdin_forms_run_as_python_runs_them(form, args, tmp_path):
    want = _run([sys.executable], form, args, tmp_path)
    got = _run([sys.executable, "-m", "numtorch.run"], form, args, tmp_path)
    assert got == want


def test_dash_c_without_text_is_a_usage_error(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "numtorch.run", "-c"], capture_output=True,
                          text=True, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=ROOT),
                          timeout=120, check=False)
    assert proc.returncode == 2 and "-c expects the program text" in proc.stderr
