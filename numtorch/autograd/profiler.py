"""``torch.autograd.profiler``: the older profiler spelling, ``with profile() as prof:``.

It records the same events as :mod:`numtorch.profiler` (op calls, backward nodes,
``record_function`` ranges) and exposes them as ``prof.function_events``.
"""

from ..profiler._collector import Collector, record_function
from ..profiler._events import DeviceType, EventList, FunctionEvent, FunctionEventAvg

__all__ = [
    "DeviceType",
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "emit_itt",
    "emit_nvtx",
    "profile",
    "record_function",
]


class profile:
    """Profile the code in a ``with`` block.

    Args:
        enabled: False makes the block a no-op.
        use_cuda: accepted; only the CPU is timed.
        record_shapes: keep each op's input shapes.
        profile_memory: count the bytes each op allocates for its results.
        with_stack: keep each event's Python call site.
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.enabled = enabled
        self.use_cuda = use_cuda
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self._function_events = None
        self.entered = False
        self._collector = None

    def __enter__(self):
        if not self.enabled:
            return None  # as torch: ``with profile(enabled=False) as p`` binds None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._collector = Collector(self.record_shapes, self.profile_memory, self.with_stack)
        self._collector.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled or self._collector is None:
            return False
        self._function_events = self._collector.stop()
        self._collector = None
        return False

    @property
    def function_events(self):
        """The recorded events (an empty EventList before the profiler has run)."""
        if self._function_events is None:
            return EventList()
        return self._function_events

    def _check_finish(self):
        pass  # as torch 2.x: results of a profiler that never ran are simply empty

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        """The events as torch's text table (see ``EventList.table``)."""
        self._check_finish()
        return self.function_events.table(sort_by, row_limit, max_src_column_width,
                                          max_name_column_width, max_shapes_column_width,
                                          header, top_level_events_only)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """Events grouped by name (and shapes / stack frames)."""
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self):
        """Every event folded into one average."""
        self._check_finish()
        return self.function_events.total_average()

    def export_chrome_trace(self, path):
        """Write a Chrome/Perfetto trace."""
        self._check_finish()
        self.function_events.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write flame-graph stacks (needs ``with_stack=True``)."""
        self._check_finish()
        self.function_events.export_stacks(path, metric)

    @property
    def self_cpu_time_total(self):
        """Total self CPU time of every event (us)."""
        self._check_finish()
        return self.function_events.self_cpu_time_total

    def __str__(self):
        self._check_finish()
        return str(self.function_events)

    __repr__ = __str__


class emit_nvtx:
    """``with emit_nvtx():`` marks each op as an NVTX range for NVIDIA's profilers. numtorch
    emits no ranges; entering synchronizes CUDA as torch does (so a build without CUDA
    raises torch's error when ``enabled``)."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled, self.record_shapes = enabled, record_shapes

    def __enter__(self):
        if self.enabled:
            from .. import cuda

            cuda.synchronize()
        return self

    def __exit__(self, *exc):
        return False


class emit_itt:
    """``with emit_itt():`` marks each op as an Intel ITT range for VTune; numtorch emits
    none (the block runs as usual)."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled, self.record_shapes = enabled, record_shapes

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
