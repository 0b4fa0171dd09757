"""The event collector behind ``profile``: op calls, backward nodes, ``record_function``
ranges and optimizer steps become :class:`FunctionEvent` objects with parents and children."""

import contextlib
import itertools
import os
import sys
import threading
import time

from . import _recorder
from ._events import EventList, FunctionEvent

__all__ = ["Collector", "active_collectors", "record_function"]

_active = []  # collectors recording now (nested profilers each get every event)
_hook_prev = [None]
_lock = threading.RLock()
_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
               "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
               "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
               "bool": "bool", "complex64": "c10::complex<float>",
               "complex128": "c10::complex<double>"}


def active_collectors():
    return _active


def _now_ns():
    return time.perf_counter_ns()


class _Dispatch:
    """The sink the op hook talks to: times each call once and tells every collector."""

    def op(self, hook, cls, inputs, params):
        start = _now_ns()
        out = _recorder.call_op(hook, cls, inputs, params)
        end = _now_ns()
        for c in _active:
            c.add_op(cls, inputs, out, start, end)
        return out

    def node(self, node, buf, create_graph, root_arrays):
        name = node.name()
        seq = getattr(node, "_seq", -1)
        opened = [(c, c.open(f"autograd::engine::evaluate_function: {name}", seq=seq),
                   c.open(name, seq=seq, backward=True)) for c in list(_active)]
        try:
            return node._run(buf, create_graph, root_arrays)
        finally:
            for c, outer, inner in opened:
                c.close(inner)
                c.close(outer)


_DISPATCH = _Dispatch()


class Collector:
    """Collects events between :meth:`start` and :meth:`stop`."""

    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.events = []
        self._ids = itertools.count(1)
        self._stacks = threading.local()
        self._opt_handles = ()
        self._t0 = 0
        self.base_us = 0.0

    # -- lifetime --------------------------------------------------------------------------
    def start(self):
        self._t0 = _now_ns()
        self.base_us = time.time() * 1e6
        with _lock:
            if not _active:
                _hook_prev[0] = _recorder.install(_DISPATCH)
            _active.append(self)
        self._opt_handles = _optimizer_hooks(self)

    def stop(self):
        """Stop recording; ranges still open end now. Returns the events as an EventList."""
        for h in self._opt_handles:
            h.remove()
        self._opt_handles = ()
        with _lock:
            if self in _active:
                _active.remove(self)
                if not _active:
                    _recorder.uninstall(_hook_prev[0])
        now = self._us(_now_ns())
        for e in self.events:
            if e.time_range.end is None:
                e.time_range.end = now
        return EventList(self.events, profile_memory=self.profile_memory,
                         with_stack=self.with_stack, base_us=self.base_us)

    # -- recording -------------------------------------------------------------------------
    def _us(self, ns):
        return (ns - self._t0) / 1000.0

    def _stack(self):
        st = getattr(self._stacks, "open", None)
        if st is None:
            st = self._stacks.open = []
        return st

    def _new(self, name, start_ns, end_ns, **kw):
        stack = self._stack()
        e = FunctionEvent(next(self._ids), name, threading.get_native_id(), self._us(start_ns),
                          None if end_ns is None else self._us(end_ns),
                          stack=_call_site() if self.with_stack else None, **kw)
        if stack:
            e.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(e)
        self.events.append(e)
        return e

    def open(self, name, seq=-1, category="cpu_op", backward=False):
        """Start a range (a backward node, a user annotation); returns its event."""
        e = self._new(name, _now_ns(), None, sequence_nr=seq, category=category,
                      is_user_annotation=category == "user_annotation")
        e.is_backward = backward
        self._stack().append(e)
        return e

    def close(self, event):
        """End the range ``event`` (and any range opened inside it and left open)."""
        event.time_range.end = self._us(_now_ns())
        stack = self._stack()
        if event in stack:
            while stack:
                top = stack.pop()
                if top.time_range.end is None:
                    top.time_range.end = event.time_range.end
                if top is event:
                    break

    def add_op(self, cls, inputs, out, start, end):
        from .._tensor import Tensor

        first = out[0] if type(out) is tuple and out else out
        node = getattr(first, "_grad_fn", None)
        seq = node._seq if node is not None and node.__class__._op_cls is cls._op_cls else -1
        shapes = dtypes = None
        if self.record_shapes:
            shapes = [list(x.shape) if isinstance(x, Tensor) else [] for x in inputs]
            dtypes = [_TYPE_NAMES.get(str(x._array.dtype), str(x._array.dtype))
                      if isinstance(x, Tensor) else ("Scalar" if isinstance(x, (int, float))
                                                    else "") for x in inputs]
        mem = 0
        if self.profile_memory:
            for t in (out if type(out) is tuple else (out,)):
                a = getattr(t, "_array", None)
                if a is not None and a.base is None:  # a view allocates nothing
                    mem += a.nbytes
        self._new(_recorder.aten_name(cls, out), start, end, input_shapes=shapes,
                  input_dtypes=dtypes, cpu_memory_usage=mem, sequence_nr=seq)


def _call_site():
    """The Python frames outside numtorch that led here, innermost first."""
    frames = []
    f = sys._getframe(2)
    while f is not None:
        path = f.f_code.co_filename
        if not path.startswith(_PKG):
            frames.append(f"{_short(path)}({f.f_lineno}): {f.f_code.co_name}")
        f = f.f_back
    return frames


def _short(path):
    cwd = os.getcwd() + os.sep
    return path.removeprefix(cwd)


def _optimizer_hooks(collector):
    """Mark each optimizer step as a range "Optimizer.step#<Class>.step", as torch does."""
    from ..optim.optimizer import (
        register_optimizer_step_post_hook,
        register_optimizer_step_pre_hook,
    )

    open_steps = {}

    def pre(opt, args, kwargs):
        name = type(opt).__name__
        open_steps[id(opt)] = collector.open(f"Optimizer.step#{name}.step",
                                             category="user_annotation")

    def post(opt, args, kwargs):
        e = open_steps.pop(id(opt), None)
        if e is not None:
            collector.close(e)

    return (register_optimizer_step_pre_hook(pre), register_optimizer_step_post_hook(post))


class record_function(contextlib.ContextDecorator):
    """Label a region of code in the profile: ``with record_function("forward"): ...`` or
    ``@record_function("step")`` on a function. Costs almost nothing with no profiler on.

    Args:
        name: the label shown in tables and traces.
        args: an optional string stored with the event.
    """

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._events = ()

    def _recreate_cm(self):  # a fresh range per decorated call (recursion, threads)
        return record_function(self.name, self.args)

    def __enter__(self):
        if _active:
            self._events = [(c, c.open(self.name, category="user_annotation"))
                            for c in list(_active)]
        return self

    def __exit__(self, *exc):
        for c, e in self._events:
            c.close(e)
        self._events = ()
        return False
