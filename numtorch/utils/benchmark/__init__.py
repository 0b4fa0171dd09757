"""``numtorch.utils.benchmark``: timing statements (``Timer``) and their results
(``Measurement``), and their tables (``Compare``), as ``torch.utils.benchmark``. The fuzzers and callgrind
collection are not provided."""

from .utils.common import (
                           Measurement,
                           TaskSpec,
                           ordered_unique,
                           select_unit,
                           set_torch_threads,
                           trim_sigfig,
                           unit_to_english,
)
from .utils.compare import Colorize, Compare
from .utils.timer import Language, Timer, timer

__all__ = [
                           "Colorize",
                           "Compare",
                           "Language",
                           "Measurement",
                           "TaskSpec",
                           "Timer",
                           "ordered_unique",
                           "select_unit",
                           "set_torch_threads",
                           "timer",
                           "trim_sigfig",
                           "unit_to_english",
]
