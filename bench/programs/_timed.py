"""Runs one program as ``__main__`` (``python _timed.py OUT.json PRELOAD script.py args...``)
and records the process CPU time at each line it prints, so that the runner can time the
iterations between two loss lines without the imports and the setup. ``PRELOAD`` is a
comma-separated list of modules imported before the clock starts (``torch``, ``torchvision``);
under ``python -m numtorch.run`` those names are numtorch's. The whole run's CPU time, children
included (DataLoader workers, multiprocessing), is recorded too. Python's, NumPy's and torch's
generators are seeded before the program starts, so that programs which seed nothing
(regression) or only torch (siamese_network draws its pairs with ``random``) give the same
trajectory in every run and in both libraries."""
import json
import os
import resource
import runpy
import signal
import sys
import time


class _Lines:
    def __init__(self, stream, log):
        self._stream, self._log, self._part = stream, log, ""

    def write(self, text):
        self._part += text
        while "\n" in self._part:
            line, self._part = self._part.split("\n", 1)
            self._log.append((time.process_time(), line))
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    out, preload, script = sys.argv[1], sys.argv[2], sys.argv[3]
    for name in filter(None, preload.split(",")):
        __import__(name)
    import random

    import numpy as np
    import torch

    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    pid, log = os.getpid(), []
    sys.argv = sys.argv[3:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    sys.stdout = _Lines(sys.stdout, log)
    # the runner stops a program cut at a time limit with SIGTERM: end it as an exit so that the
    # timings of what it printed are still written
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    start, start_children, code = time.process_time(), _children(), 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        if os.getpid() == pid:
            sys.stdout.flush()
            with open(out, "w") as f:
                json.dump({"start": start, "end": time.process_time(),
                           "children": _children() - start_children, "lines": log}, f)
    sys.exit(code)


if __name__ == "__main__":
    main()
