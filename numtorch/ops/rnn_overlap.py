"""The LSTM sequence op's backward side work, and the second thread it may run on.

The backpropagation through time (``rnn_sequence.LSTMSequence.backward_arrays``) is a chain
of small dependent steps, while the gate-derivative factors before it and the weight, bias and
input gradients after it (a GEMM as large as all the recurrent ones together) depend on it only
step by step. With two free cores the steps go in chunks: a worker thread makes the gradients
of the finished chunks while the chain runs (both threads with one BLAS thread each); with one
core the same code runs as one chunk, in line. The factors are made by the loop's own thread
(see ``LSTMSequence.backward_arrays``): what the worker writes, the loop must not read.
"""

import concurrent.futures
import os
import threading

import numpy as np

from .._threads import blas_threads_now
from ..backend._run_copy import contiguous as _host_contiguous

__all__ = ["LSTMWeightGrads", "finish", "overlap_worker", "spans", "submit", "wait"]

class LSTMWeightGrads:
    """The LSTM's weight, bias and input gradients from the gate gradients ``dz`` (T, 4H, B)
    of the steps ``[lo, hi)`` at a time, summed over the calls (in ``expect``'s order, or as
    they come)."""

    def __init__(self, op, x, w_ih, p, hfull, dz):
        self.op, self.x, self.w_ih, self.p, self.hfull, self.dz = op, x, w_ih, p, hfull, dz
        self.xs = x[::-1] if op.reverse else x  # in processing order
        self.sums = None  # [dW_hh | dW_ih | db] with the input inline, else (dW_hh, dW_ih, db)
        # Chunks may be added on two threads at once (see ``finish``): their products run
        # unlocked, each writes its own rows of dx, and the sums take the parts in the order
        # of ``order`` whichever thread made them, so the result does not depend on timing.
        self.lock = threading.Lock()
        self.order, self.parts = None, {}
        self.dx = (op.xp.empty(self.xs.shape, dz.dtype) if op.needs_input_grad[0] else None)
        # the op's inputs: x, w_ih, w_hh, b_ih, b_hh, ... (either bias takes the same gradient)
        self.wants_bias = any(op.present[k] and op.needs_input_grad[k] for k in (3, 4))

    def add(self, lo, hi):
        xp, op, hfull, needs = self.op.xp, self.op, self.hfull, self.op.needs_input_grad
        gates = self.dz.shape[1]
        # The gate gradients as (4H, steps * B) and the GEMM inputs as (rows, steps * B), the
        # long axis ordered (step, sample): a copy that moves whole B-long runs (a transpose to
        # (steps * B, 4H) rows cost 2-4x as much, 0.3 ms of mnist_rnn's step).
        # (on the host each B-long run is copied as one item: 2x faster, see backend._run_copy)
        dzt = self.dz[lo:hi].transpose(1, 0, 2)
        dzg = (_host_contiguous(dzt) if xp is np else xp.ascontiguousarray(dzt)).reshape(gates, -1)
        if op.inline:  # the GEMM inputs were [h; x_t; 1]: one GEMM gives [dW_hh dW_ih db]
            part = (dzg @ self._steps_rows(hfull[lo:hi]),)
        else:
            part = (dzg @ self._steps_rows(hfull[lo:hi]) if needs[2] else None,
                    dzg @ self.xs[lo:hi].reshape(-1, self.x.shape[-1]) if needs[1] else None,
                    dzg.sum(1) if self.wants_bias else None)
        if needs[0]:
            xp.matmul(dzg.T, self.w_ih, out=self.dx[lo:hi].reshape(-1, self.w_ih.shape[1]))
        with self.lock:
            if self.order is None:
                self.order = [lo]
            self.parts[lo] = part
            while self.order and self.order[0] in self.parts:
                part = self.parts.pop(self.order.pop(0))
                if self.sums is None:
                    self.sums = part
                else:
                    for acc, new in zip(self.sums, part):
                        if acc is not None:
                            acc += new

    def expect(self, chunks):
        """The ``[lo, hi)`` chunks that ``add`` will get, in the order their sums are taken."""
        self.order = [lo for lo, _ in chunks]

    def _steps_rows(self, h):
        """``h`` (steps, rows, B) as (steps * B, rows), the GEMM's second operand row-major:
        OpenBLAS ran ``dz @ h`` 3-7% faster than ``dz @ h_t.T`` from a (rows, steps * B) copy
        (1.24 against 1.28 ms for LSTM(32, 128)'s), and either copy takes as long."""
        return self.op.xp.ascontiguousarray(h.transpose(0, 2, 1)).reshape(-1, h.shape[1])

    def result(self):
        """(dW_hh, dW_ih, db, dx) in the caller's time order (None where not needed)."""
        op, p, feat = self.op, self.p, self.x.shape[-1]
        if op.inline:
            # row-major copies of the summed gradient's column blocks, each then taken as its
            # parameter's .grad as it is (a strided block went through the engine's layout copy)
            (daug,) = self.sums
            xp, needs = op.xp, op.needs_input_grad
            dw = xp.ascontiguousarray(daug[:, :p]) if needs[2] else None
            dw_ih = xp.ascontiguousarray(daug[:, p:p + feat]) if needs[1] else None
            db = xp.ascontiguousarray(daug[:, p + feat]) if self.wants_bias else None
        else:
            dw, dw_ih, db = self.sums
        dx = self.dx
        if dx is not None and op.reverse:
            dx = dx[::-1]
        return dw, dw_ih, db, dx


_POOL = {"worker": None}


def overlap_worker(xp, steps, step_size):
    """A one-thread executor for the backward's side work (the weight gradients of the
    finished steps) while the recurrence runs here, or None.

    Why: the recurrence is a chain of small dependent GEMMs that a second core barely speeds
    up, while the weight-gradient GEMM (as large as all the recurrent ones together) does not
    depend on it. Used when BLAS may use two threads now (the user's count,
    as capped by the machine's load) and the layer is long enough to split.
    """
    if (steps < 2 * _SPAN_MIN or steps * step_size < _OVERLAP_MIN or xp is not np
            or blas_threads_now() < 2):
        return None
    worker = _POOL["worker"]
    if worker is None:
        worker = _POOL["worker"] = concurrent.futures.ThreadPoolExecutor(
            1, thread_name_prefix="numtorch-rnn")
    return worker


_SPAN_MIN = 4  # the fewest steps in a chunk of the overlapped backward
_OVERLAP_MIN = 200_000  # gate values (steps x 4H x B) below which a layer runs on one thread


def spans(steps, worker):
    """``[lo, hi)`` chunks of the steps, last first (the backward's order)."""
    if worker is None:
        return [(0, steps)]
    size = max(_SPAN_MIN, -(-steps // 6))
    return [(max(0, hi - size), hi) for hi in range(steps, 0, -size)]


def submit(worker, fn, *args):
    """Run ``fn(*args)`` on ``worker`` (a future back), or here and now without one."""
    if worker is None:
        fn(*args)
        return None
    return worker.submit(fn, *args)


def wait(fut):
    """The result of ``submit`` is in (its exception raised here)."""
    if fut is not None:
        fut.result()


def finish(pending, fn):
    """Wait for ``pending`` (``(future, *args)`` of ``fn`` calls, in submission order), running
    here those the worker has not started yet, the last submitted first.

    Why: the worker's queue can outlast the recurrence (word_language_model's layers: its
    input and weight GEMMs were twice the loop's time), and a thread that only waits leaves
    a core idle; the two threads then meet in the middle of the queue.
    """
    for fut, *args in reversed(pending):
        if fut is not None and fut.cancel():
            fn(*args)
    for fut, *_ in pending:
        if fut is not None and not fut.cancelled():
            fut.result()


def _reset_pool():
    _POOL["worker"] = None  # a forked child has the executor but not its thread


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_pool)

