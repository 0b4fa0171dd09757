"""Profiler results: ``FunctionEvent`` (one timed call), ``FunctionEventAvg`` (a group of them)
and ``EventList`` with torch's table, Chrome-trace and flame-graph exports.

Times are in microseconds, as in torch. Memory is the bytes of the arrays an op allocated for
its outputs (views allocate nothing); frees are not tracked, so no figure is negative.
"""

import json
import os

__all__ = ["DeviceType", "EventList", "FunctionEvent", "FunctionEventAvg"]


class DeviceType:
    """Where an event ran (only the CPU is recorded)."""

    CPU = "CPU"
    CUDA = "CUDA"


class _Times:
    """Accessors shared by events and averages (torch's spellings, device times all zero)."""

    device_time_total = self_device_time_total = 0
    cuda_time_total = self_cuda_time_total = 0
    device_memory_usage = self_device_memory_usage = 0
    cuda_memory_usage = self_cuda_memory_usage = 0
    device_type = DeviceType.CPU
    is_async = is_remote = is_legacy = False
    node_id = -1
    flops = 0

    @property
    def cpu_time(self):
        """Average total time per call (us)."""
        return self.cpu_time_total / max(self.count, 1)

    @property
    def device_time(self):
        return 0.0

    cuda_time = device_time

    @property
    def cpu_time_str(self):
        return format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return format_time(self.self_cpu_time_total)


class FunctionEvent(_Times):
    """One recorded call: an op, a backward node, a ``record_function`` range or a step."""

    count = 1
    is_backward = False  # the node of a backward pass (linked to its forward op in traces)

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, stack=None,
                 cpu_memory_usage=0, sequence_nr=-1, is_user_annotation=False,
                 input_dtypes=None, category="cpu_op", trace_name=None):
        self.id = id
        self.name = name
        self.trace_name = trace_name or name  # the name in Chrome traces (ProfilerStep#3)
        self.thread = thread
        self.time_range = _Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_dtypes = input_dtypes if input_dtypes is not None else []
        self.stack = stack if stack is not None else []
        self.self_cpu_memory_usage = cpu_memory_usage
        self.sequence_nr = sequence_nr
        self.is_user_annotation = is_user_annotation
        self.category = category
        self.cpu_children = []
        self.cpu_parent = None

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_memory_usage(self):
        return self.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start:.3f} end_us={self.time_range.end:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"seq_nr={self.sequence_nr}>")


class _Interval:
    __slots__ = ("end", "start")

    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        return self.end - self.start


class FunctionEventAvg(_Times):
    """Events grouped under one key (name, and optionally input shapes and stack)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.is_user_annotation = False
        self.cpu_parent = None
        self.cpu_children = None

    def add(self, other):
        """Fold event (or average) ``other`` into this one."""
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    __iadd__ = add

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


def format_time(us):
    """Microseconds as torch prints them: 12.345us, 1.234ms, 2.000s."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def format_memory(nbytes):
    """Bytes as torch prints them: 24 B, 1.50 Kb, 3.00 Mb, 1.00 Gb."""
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def _share(part, total):
    return "NaN" if total == 0 else f"{part * 100.0 / total:.2f}%"


class EventList(list):
    """A list of events (or averages) that prints as torch's profiler table."""

    def __init__(self, *args, profile_memory=False, with_stack=False, base_us=0.0, **kwargs):
        super().__init__(*args)
        self._profile_memory = profile_memory
        self._with_stack = with_stack
        self._base_us = base_us  # wall-clock microseconds at time 0 of the events

    @property
    def self_cpu_time_total(self):
        """Sum of every event's self time (us): the time covered by the profile."""
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """One :class:`FunctionEventAvg` per event name (and input shapes / top stack
        frames when asked), in order of first appearance."""
        groups = {}
        for e in self:
            key = (e.key, str(e.input_shapes) if group_by_input_shape else None,
                   tuple(e.stack[:group_by_stack_n]) if group_by_stack_n else None)
            avg = groups.get(key)
            if avg is None:
                avg = groups[key] = FunctionEventAvg()
            avg.add(e)
            if group_by_stack_n:
                avg.stack = e.stack[:group_by_stack_n]
        for avg in groups.values():  # what was not grouped on is not shown
            if not group_by_input_shape:
                avg.input_shapes = []
            if not group_by_stack_n:
                avg.stack = []
        return EventList(groups.values(), profile_memory=self._profile_memory,
                         with_stack=self._with_stack, base_us=self._base_us)

    def total_average(self):
        """All events folded into one average (key "Total")."""
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as a fixed-width text table, sorted by attribute ``sort_by``
        (descending), at most ``row_limit`` rows; see torch's ``EventList.table``."""
        from ._table import build_table

        return build_table(self, sort_by, row_limit, max_src_column_width,
                           max_name_column_width, max_shapes_column_width, header,
                           top_level_events_only, self._profile_memory, time_unit)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path, metadata=None):
        """Write the events as Chrome/Perfetto trace-event JSON (complete "X" events with
        microsecond ``ts``/``dur``, thread names, and fwd->bwd flow arrows)."""
        from ._table import chrome_trace

        trace = chrome_trace(self, metadata or {}, self._base_us)
        data = json.dumps(trace).encode()
        if str(path).endswith(".gz"):
            import gzip

            data = gzip.compress(data)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write one ``outer;...;inner value`` line (the Python frames of the call site) per
        event with a stack, as flame-graph input for flamegraph.pl or speedscope; needs
        ``with_stack=True``."""
        metric = metric.replace("cuda", "device")
        with open(path, "w") as f:
            for e in self:
                value = int(getattr(e, metric))
                if e.stack and value > 0:
                    frames = [s.replace(";", "|").replace(" ", "_") for s in reversed(e.stack)]
                    f.write(";".join(frames) + f" {value}\n")
