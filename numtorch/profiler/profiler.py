"""``torch.profiler.profile``: time every op, backward node and labelled range of a program.

Events come from numtorch's own op dispatch (``Op.apply``) and backward engine, so each op
appears once under torch's name for it (``aten::mm``, ``aten::add``); composite functions
(``F.linear``) show as the primitives they run. Only the CPU is timed: a ``CUDA`` activity is
accepted, and CuPy work is timed as the host sees it.
"""

import enum
import gzip  # noqa: F401  (export_chrome_trace writes .gz paths compressed)
import json
import os
import socket
import time
import warnings

from ._collector import Collector
from ._events import EventList

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "schedule",
           "supported_activities", "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """Kinds of activity a profiler can trace (numbered as torch numbers them)."""

    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5

    def __str__(self):
        return f"ProfilerActivity.{self.name}"


class ProfilerAction(enum.Enum):
    """What a profiler does during one step (the value a ``schedule`` returns)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities():
    """The activities this build can trace: the CPU, and CUDA when a GPU is usable."""
    from .. import cuda

    acts = {ProfilerActivity.CPU}
    if cuda.is_available():
        acts.add(ProfilerActivity.CUDA)
    return acts


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A step -> ``ProfilerAction`` function for ``profile(schedule=...)``.

    After ``skip_first`` steps, each cycle idles ``wait`` steps, warms up ``warmup`` steps,
    then records ``active`` steps, the last of them ``RECORD_AND_SAVE`` (the trace is handed to
    ``on_trace_ready``). ``repeat`` cycles run (0: forever); ``skip_first_wait`` skips the wait
    of the first cycle.
    """
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    cycle = wait + warmup + active

    def action(step):
        if step < 0:
            raise AssertionError("step should be non-negative")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _always_record(step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` callback writing each trace to ``dir_name`` as
    ``<worker>.<ms>.pt.trace.json`` (``.gz`` with ``use_gzip``), the layout TensorBoard's
    profiler plugin reads. ``worker_name`` defaults to ``<host>_<pid>``."""

    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        ms = time.time_ns() // 1_000_000
        while True:  # two windows ending in the same millisecond must not share a file
            name = f"{worker}.{ms}.pt.trace.json" + (".gz" if use_gzip else "")
            if not os.path.exists(os.path.join(dir_name, name)):
                break
            ms += 1
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
_WARNINGS_SHOWN = set()


def _warn_once(msg):
    if msg not in _WARNINGS_SHOWN:
        _WARNINGS_SHOWN.add(msg)
        warnings.warn(msg, UserWarning, stacklevel=3)


class profile:
    """Profile the code inside ``with profile(...) as prof:`` (or between ``start`` and
    ``stop``), stepping with ``prof.step()`` when a ``schedule`` is given.

    Args:
        activities: a list of :class:`ProfilerActivity` (CPU and/or CUDA).
        schedule: step -> :class:`ProfilerAction` (see :func:`schedule`); without it every
            step records and the trace is ready when the profiler stops.
        on_trace_ready: called with this profiler whenever a recorded window ends.
        record_shapes: keep each op's input shapes (``key_averages(group_by_input_shape=True)``).
        profile_memory: count the bytes each op allocates for its results.
        with_stack: keep the Python call site of each event (``export_stacks``).
        acc_events: keep events of earlier recorded windows too.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        acts = set(activities) if activities is not None else supported_activities()
        if use_cuda:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            acts.add(ProfilerActivity.CUDA)
        if not acts:
            raise AssertionError("No valid profiler activities found")
        self.activities = acts
        self.schedule = schedule or _always_record
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._collector = None
        self._events = None
        self._metadata = {}
        self._step_range = None
        self._cycles = 0

    # -- lifetime --------------------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        """Begin profiling at the current step (0 at first; a restarted profiler goes on
        counting from where it stopped, as torch's does)."""
        self._transit(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self):
        """End profiling; a window still recording is handed to ``on_trace_ready``."""
        self._close_step()
        if self.current_action in _RECORDING:
            self._finish(ready=True)
        # what the schedule says for this step, for a later start()
        self.current_action = self.schedule(self.step_num)

    def step(self):
        """Mark the end of a training step: the schedule decides what the next one does."""
        self._close_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._open_step()

    def _transit(self, prev, cur):
        if prev == ProfilerAction.RECORD_AND_SAVE or (prev == ProfilerAction.RECORD
                                                      and cur not in _RECORDING):
            self._finish(ready=True)
        if cur != ProfilerAction.NONE and prev in (ProfilerAction.NONE,
                                                   ProfilerAction.RECORD_AND_SAVE):
            # a new cycle begins (warmup or recording): from the second one on, the events of
            # the earlier ones are dropped unless acc_events; torch says so once per process
            if self._cycles and not self.acc_events:
                _warn_once("Warning: Profiler clears events at the end of each cycle. Only "
                           "events from the current cycle will be reported. To keep events "
                           "across cycles, set acc_events=True.")
            self._cycles += 1
        if cur in _RECORDING and self._collector is None:
            self._collector = Collector(self.record_shapes, self.profile_memory,
                                        self.with_stack)
            self._collector.start()

    def _finish(self, ready):
        if self._collector is None:
            return
        events = self._collector.stop()
        self._collector = None
        if self.acc_events and self._events is not None:
            events = EventList([*self._events, *events], profile_memory=self.profile_memory,
                               with_stack=self.with_stack, base_us=self._events._base_us)
        self._events = events
        if ready and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _open_step(self):
        if self.record_steps and self._collector is not None:
            self._step_range = self._collector.open("ProfilerStep*", category="user_annotation")
            self._step_range.trace_name = f"ProfilerStep#{self.step_num}"

    def _close_step(self):
        if self._step_range is not None and self._collector is not None:
            self._collector.close(self._step_range)
        self._step_range = None

    # -- results ---------------------------------------------------------------------------
    def _results(self):
        if self._events is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self._events

    def events(self):
        """Every event of the last recorded window (an :class:`EventList`)."""
        return self._results()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """Events grouped by name (and input shapes / stack frames) with summed times; its
        ``table(sort_by=..., row_limit=...)`` prints torch's table."""
        return self._results().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        """Write the trace as Chrome/Perfetto JSON (gzip-compressed when ``path`` ends in
        ``.gz``)."""
        meta = {"record_shapes": int(self.record_shapes),
                "profile_memory": int(self.profile_memory),
                "with_stack": int(self.with_stack), "traceName": str(path)}
        meta.update(self._metadata)
        self._results().export_chrome_trace(path, meta)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write flame-graph stacks (needs ``with_stack=True``)."""
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        self._results().export_stacks(path, metric)

    def add_metadata(self, key, value):
        """Add a string entry to the exported trace's top level."""
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        """Add a JSON-encoded entry to the exported trace's top level."""
        self._metadata[key] = json.loads(value)
