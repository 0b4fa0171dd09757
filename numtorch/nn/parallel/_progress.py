"""A background thread that keeps DDP's in-flight all-reduces moving during backward.

MPI advances a non-blocking collective only inside MPI calls. Between two gradient hooks the
main thread may compute for milliseconds (a large matmul, a convolution), during which an
all-reduce would stand still; this thread calls ``Test()`` on the in-flight requests every
``interval`` seconds. NumPy releases the GIL inside its large kernels, which is exactly when
there is time to overlap. The requests are only ever tested under a lock, and the main thread
takes them back before it waits on them itself.
"""

import os
import threading
import time

__all__ = ["ProgressThread", "default_interval"]


def default_interval():
    """Seconds between polls (NUMTORCH_DDP_PROGRESS_US, microseconds; 0 turns it off)."""
    us = float(os.environ.get("NUMTORCH_DDP_PROGRESS_US", "200"))
    return us * 1e-6


class ProgressThread:
    """Polls the MPI requests handed to :meth:`add` until :meth:`take` takes them back."""

    def __init__(self, interval):
        self.interval = interval
        self._lock = threading.Lock()
        self._reqs = []
        self._wake = threading.Event()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="numtorch-ddp-progress")
        self._thread.start()

    def add(self, req):
        with self._lock:
            self._reqs.append(req)
            self._wake.set()

    def take(self):
        """Stop polling; the requests not completed yet."""
        with self._lock:
            reqs, self._reqs = self._reqs, []
            self._wake.clear()
        return reqs

    def close(self):
        self._stopped = True
        self._wake.set()

    def _run(self):
        while not self._stopped:
            self._wake.wait()
            with self._lock:
                self._reqs = [r for r in self._reqs if not r.Test()]
                if not self._reqs:
                    self._wake.clear()
            time.sleep(self.interval)
