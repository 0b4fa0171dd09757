"""``@record`` and ``ChildFailedError``, as torchrun-launched scripts use them.

A rank that dies of an uncaught exception already leaves its traceback for the launcher's
failure report (numtorch.distributed installs the hook at ``init_process_group``); ``record``
does the same for an entry point that fails before that, or outside any process group.
"""

import functools
import os

__all__ = ["record", "ChildFailedError", "ErrorHandler"]


class ChildFailedError(Exception):
    """One or more ranks of a launched job failed (``failures``: rank -> description)."""

    def __init__(self, name, failures):
        self.name = name
        self.failures = dict(failures)
        lines = [f"{name} FAILED"] + [f"  rank {r}: {f}" for r, f in sorted(self.failures.items())]
        super().__init__("\n".join(lines))


class ErrorHandler:
    """Writes a failing rank's error where the launcher collects it (TORCHELASTIC_ERROR_FILE)."""

    def initialize(self):
        pass

    def record_exception(self, e):
        from ...._world import _write_error_file

        rank = int(os.environ.get("RANK", "0"))
        _write_error_file(rank, e, e.__traceback__)


def record(fn=None, error_handler=None):
    """Decorate a rank's entry point so its uncaught exception reaches the launcher's report.

    Example:
        >>> @record                     # doctest: +SKIP
        ... def main(): ...
    """
    handler = error_handler or ErrorHandler()

    def wrap(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            handler.initialize()
            try:
                return f(*args, **kwargs)
            except SystemExit as se:
                if se.code in (0, None):
                    return None
                raise
            except Exception as e:
                handler.record_exception(e)
                raise

        return wrapper

    return wrap(fn) if fn is not None else wrap
