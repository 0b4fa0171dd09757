"""``torch.profiler``: where a program spends its time, op by op.

``profile`` records every numtorch op call (under torch's ``aten::`` names), every backward
node, each optimizer step and each ``record_function`` range, with input shapes and allocated
bytes on request; ``key_averages().table()`` prints torch's summary table, and
``export_chrome_trace`` writes a trace for chrome://tracing or Perfetto. With no profiler
active, ops pay a single ``None`` check.
"""

from ..optim.optimizer import register_optimizer_step_post_hook  # noqa: F401  (as torch)
from ._collector import record_function
from ..ops import profiler as _ops_profiler  # noqa: F401,E402  (torch.ops.profiler)
from ._events import DeviceType
from .profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = [
    "DeviceType",
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


def kineto_available():
    """Always False: numtorch records its own events rather than through Kineto."""
    return False
