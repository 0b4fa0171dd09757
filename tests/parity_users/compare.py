"""Print the cells whose output differs between torch and numtorch (a development tool).

Usage: ``python compare.py [program ...]``.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def outputs(lib, names):
    proc = subprocess.run(
        [sys.executable, os.path.join(HERE, "runner.py"), lib, *names],
        capture_output=True, text=True, timeout=600,
    )
    if proc.returncode:
        raise RuntimeError(f"{lib} runner failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.rpartition("=====PARITY-JSON=====")[2])


def diff(names=()):
    """(number of cells, list of (cell, torch output, numtorch output) that differ)."""
    want, got = outputs("torch", names), outputs("numtorch", names)
    bad = [(k, want[k], got.get(k)) for k in want if want[k] != got.get(k)]
    return len(want), bad


if __name__ == "__main__":
    n, bad = diff(sys.argv[1:])
    for k, w, g in bad:
        print(f"==== {k}\n--- torch\n{w}--- numtorch\n{g}")
    print(f"{len(bad)} of {n} cells differ")
