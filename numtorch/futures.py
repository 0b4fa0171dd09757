"""``numtorch.futures``: the completion handle that RPC calls and ``async_execution`` use.

A :class:`Future` is a thread-safe one-shot box: one thread sets a result or an exception,
any number of threads wait for it, and callbacks registered with :meth:`Future.then` or
:meth:`Future.add_done_callback` run once it completes (at once when it already has).
"""

import threading

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """The eventual result of an asynchronous computation (``torch.futures.Future``).

    Args:
        devices (list, optional): accepted for compatibility; results live on the CPU or
            wherever their tensors already are.
    """

    def __init__(self, *, devices=None):
        self._cond = threading.Condition(threading.Lock())
        self._done = False
        self._result = None
        self._error = None
        self._callbacks = []

    def __class_getitem__(cls, item):  # Future[int] in type hints
        return cls

    def done(self):
        """True once a result or an exception has been set."""
        return self._done

    def _wait_done(self, timeout=None):
        with self._cond:
            if not self._done:
                self._cond.wait_for(lambda: self._done, timeout)
            return self._done

    def wait(self):
        """Block until the future completes and return its value (or raise its error)."""
        self._wait_done()
        if self._error is not None:
            raise self._error
        return self._result

    def value(self):
        """The value of a completed future; raises its error if it failed.

        Raises:
            RuntimeError: when the future has not completed yet.
        """
        if not self._done:
            raise RuntimeError("Future.value() was called on a Future that has not completed; "
                               "call wait() first or read it inside a then() callback")
        if self._error is not None:
            raise self._error
        return self._result

    def set_result(self, result):
        """Complete the future with ``result`` and run its callbacks.

        Raises:
            RuntimeError: when the future has already completed.
        """
        self._complete(result, None)

    def set_exception(self, result):
        """Complete the future with the exception ``result``; ``wait()`` will raise it."""
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception expects an exception, got {type(result).__name__}")
        self._complete(None, result)

    def _complete(self, result, error):
        with self._cond:
            if self._done:
                raise RuntimeError("Future can only be marked completed once; this Future "
                                   "already holds a value or an error")
            self._result, self._error, self._done = result, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for cb in callbacks:
            _run_callback(cb, self)

    def then(self, callback):
        """A new future completed with ``callback(self)`` once this one completes.

        An exception raised by ``callback`` becomes the new future's error.
        """
        nxt = Future()

        def chain(fut):
            try:
                out = callback(fut)
            except BaseException as e:  # noqa: BLE001 - the error belongs to the new future
                nxt.set_exception(e)
            else:
                nxt.set_result(out)

        self.add_done_callback(chain)
        return nxt

    def add_done_callback(self, callback):
        """Run ``callback(self)`` when the future completes (now, if it already has)."""
        with self._cond:
            if not self._done:
                self._callbacks.append(callback)
                return
        _run_callback(callback, self)

    def __repr__(self):
        state = "done" if self._done else "pending"
        return f"<numtorch.futures.Future ({state})>"


def _run_callback(cb, fut):
    try:
        cb(fut)
    except Exception as e:  # noqa: BLE001 - a failing callback must not stop the others
        import sys

        print(f"Exception in a Future callback: {type(e).__name__}: {e}", file=sys.stderr)


def collect_all(futures):
    """A future that completes with the list of ``futures`` once all of them have completed.

    Args:
        futures (list[Future]): the futures to wait for.
    """
    out = Future()
    futures = list(futures)
    if not futures:
        out.set_result([])
        return out
    left = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            out.set_result(futures)

    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures):
    """Wait for every future and return their values in order (raises the first error)."""
    return [f.wait() for f in futures]
