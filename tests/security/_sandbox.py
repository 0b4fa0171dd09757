"""Run one call in a forked child under an address-space limit, a CPU-time limit and a
wall-clock timeout, and report how it ended: ``("ok", value)``, ``("error", class name,
message)``, or ``("crash", detail)``, ``("hang", None)``, ``("oom", None)``."""

import os
import pickle
import resource
import select
import signal
import time


def _vsize():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * resource.getpagesize()


def run_limited(fn, *args, extra_memory=1 << 30, cpu_s=10, wall_s=30.0):
    """``fn(*args)`` in a fork; the value it returns must pickle."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        try:
            os.close(r)
            resource.setrlimit(resource.RLIMIT_AS, (_vsize() + extra_memory,) * 2)
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            try:
                res = ("ok", fn(*args))
            except MemoryError:
                res = ("oom", None)
            except BaseException as e:  # noqa: BLE001 - the class is the outcome
                res = ("error", type(e).__name__, str(e)[:500])
            try:
                data = pickle.dumps(res)
            except Exception as e:  # noqa: BLE001
                data = pickle.dumps(("error", "UnpicklableResult", str(e)))
            os.write(w, data)
        finally:
            os._exit(0)
    os.close(w)
    chunks, deadline = [], time.monotonic() + wall_s
    while True:
        left = deadline - time.monotonic()
        ready = select.select([r], [], [], max(left, 0))[0] if left > 0 else []
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(r)
            return ("hang", None)
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return ("hang", None) if sig == signal.SIGXCPU else ("crash", f"signal {sig}")
    if not chunks:
        return ("crash", f"exit status {os.WEXITSTATUS(status)}")
    return pickle.loads(b"".join(chunks))
