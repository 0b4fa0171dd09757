"""``numtorch.utils.benchmark``: timing statements (``Timer``) and their results
(``Measurement``), as ``torch.utils.benchmark``. ``Compare``, the fuzzers and callgrind
collection are not provided."""

from .utils.common import (Measurement, TaskSpec, ordered_unique, select_unit,
                           set_torch_threads, trim_sigfig, unit_to_english)
from .utils.timer import Language, Timer, timer

__all__ = ["Timer", "Measurement", "TaskSpec", "Language", "timer", "select_unit",
           "unit_to_english", "trim_sigfig", "ordered_unique", "set_torch_threads"]
