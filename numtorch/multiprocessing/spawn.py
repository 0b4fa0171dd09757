"""``spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes and watch them.

A child that raises writes its traceback to a private error file and exits with status 1; the
parent, joining, stops the other children and raises ``ProcessRaisedException`` carrying that
traceback. A child that dies otherwise (a signal, ``os._exit``) gives ``ProcessExitedException``.
"""

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import time
import traceback
import warnings

__all__ = ["ProcessException", "ProcessRaisedException", "ProcessExitedException",
           "ProcessContext", "SpawnContext", "spawn", "start_processes"]

_GRACE = 5.0  # seconds the other children get to exit after SIGTERM before SIGKILL


class ProcessException(Exception):
    """A child process of ``spawn``/``start_processes`` failed.

    Attributes:
        error_index (int): the failed process's index ``i``.
        error_pid (int): its process id.
    """

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A child process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A child process exited with a non-zero code or was killed by a signal.

    Attributes:
        exit_code (int): the exit code (minus the signal number if killed by a signal).
        signal_name (str or None): the name of the signal that killed it.
    """

    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                            self.signal_name)


def _wrap(fn, i, args, error_file):
    """The body of child ``i``: run ``fn``, and on an exception save its traceback and exit 1."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent sends SIGINT on Ctrl-C too and reports that itself
    except Exception:  # noqa: BLE001 - any failure goes back to the parent as text
        with open(error_file, "w") as f:
            f.write(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes started by ``start_processes(..., join=False)``.

    Args:
        processes (list): the ``multiprocessing`` processes, in index order.
        error_files (list): the files where each process writes its traceback on failure.
    """

    def __init__(self, processes, error_files):
        self.processes = processes
        self.error_files = error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The process ids of the children."""
        return [p.pid for p in self.processes]

    def join(self, timeout=None, grace_period=None):
        """Wait up to ``timeout`` seconds (forever if None) for the children.

        Args:
            timeout (float, optional): how long to wait.
            grace_period (float, optional): when a child fails, how long the others may still
                run before they are terminated. Default: they are terminated at once.

        Returns:
            bool: True once every child has exited successfully, False on timeout.

        Raises:
            ProcessRaisedException: a child raised (the others are terminated).
            ProcessExitedException: a child exited with a non-zero code or by a signal.
        """
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            i = self.sentinels.pop(sentinel)
            proc = self.processes[i]
            proc.join()
            if proc.exitcode != 0 and failed is None:
                failed = i
        if failed is None:
            if self.sentinels:
                return False
            self._remove_error_files()
            return True
        self._stop_others(grace_period)
        self._raise(failed)

    def _stop_others(self, grace_period):
        """Terminate the still-running children (SIGTERM, then SIGKILL after a grace time)."""
        if grace_period:
            deadline = time.monotonic() + grace_period
            for p in self.processes:
                p.join(max(deadline - time.monotonic(), 0))
        running = [p for p in self.processes if p.is_alive()]
        for p in running:
            p.terminate()
        deadline = time.monotonic() + _GRACE
        for p in running:
            p.join(max(deadline - time.monotonic(), 0))
        for p in running:
            if p.is_alive():
                p.kill()
                p.join()
        self.sentinels.clear()

    def _raise(self, i):
        proc = self.processes[i]
        text = ""
        if os.path.exists(self.error_files[i]):
            with open(self.error_files[i]) as f:
                text = f.read()
        self._remove_error_files()
        if text:
            raise ProcessRaisedException(
                f"\n\n-- Process {i} terminated with the following error:\n{text}", i, proc.pid)
        code = proc.exitcode
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(f"process {i} terminated with signal {name}", i,
                                         proc.pid, code, name)
        raise ProcessExitedException(f"process {i} terminated with exit code {code}", i,
                                     proc.pid, code)

    def _remove_error_files(self):
        for path in self.error_files:
            if os.path.exists(path):
                os.unlink(path)


class SpawnContext(ProcessContext):
    """Deprecated name of ``ProcessContext``, kept for old code."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.",
                      FutureWarning, stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)`` for ``i`` in ``range(nprocs)``.

    Args:
        fn (callable): the function each process runs; picklable for 'spawn' (a module-level
            function).
        args (tuple): the arguments after the index.
        nprocs (int): how many processes.
        join (bool): wait for all of them (raising if one fails) instead of returning.
        daemon (bool): start them as daemon processes.
        start_method (str): 'spawn', 'fork' or 'forkserver'.

    Returns:
        None if ``join`` else a ``ProcessContext``.
    """
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        fd, path = tempfile.mkstemp(prefix="numtorch_spawn_error_")
        os.close(fd)
        os.unlink(path)  # the child creates it only if it fails
        error_files.append(path)
        proc = ctx.Process(target=_wrap, args=(fn, i, args, path), daemon=daemon)
        proc.start()
        processes.append(proc)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the 'spawn' start method (the only one this function uses:
    another ``start_method`` gives a ``FutureWarning`` and is ignored, as in torch).

    Args:
        fn (callable): a module-level function, called as ``fn(i, *args)``.
        args (tuple): the arguments after the index.
        nprocs (int): how many processes.
        join (bool): wait for all of them (raising if one fails) instead of returning.
        daemon (bool): start them as daemon processes.
        start_method (str): must be 'spawn'.

    Returns:
        None if ``join`` else a ``ProcessContext``.
    """
    if start_method != "spawn":
        # (torch's words: it runs the 'spawn' start method all the same)
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t "
                      "torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
