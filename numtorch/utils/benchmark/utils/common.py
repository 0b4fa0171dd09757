"""What a benchmark measured (``Measurement``), what it ran (``TaskSpec``) and the helpers
that format times for people."""

import contextlib
import dataclasses
import math
import textwrap

import numpy as np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

# A spread (interquartile range over median) above these earns a warning in the summary.
_MILD_SPREAD = 0.1
_GROSS_SPREAD = 0.25
_SIGFIG_CAP = 4
_CI_FLOOR = 25e-9  # seconds: no timing is trusted finer than this


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """The statement a Timer runs and the labels it reports it under."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self):
        """A heading: the label (or a one-line statement), with the sub-label."""
        sub = self.sub_label
        if self.label is not None or "\n" not in self.stmt:
            head = self.label if self.label is not None else self.stmt
            return f"{head}: {sub}" if sub else head
        return "stmt:" + (f" ({sub})" if sub else "") + "\n" + textwrap.indent(self.stmt, "  ")

    def setup_str(self):
        """The setup as shown in summaries; empty when there is none."""
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return "setup: " + self.setup

    def summarize(self):
        """Title, description and setup, one block each, blank-line separated when multi-line."""
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_SPEC_FIELDS = frozenset(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(repr=False)
class Measurement:
    """Timings of one statement: ``raw_times[i]`` seconds for ``number_per_run`` runs each.

    Statistics (``median``, ``mean``, ``iqr``) are per run. ``TaskSpec``'s fields
    (``stmt``, ``label``, ``num_threads``...) read through.
    """

    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict | None = None

    def __post_init__(self):
        self._stats = None

    def __getattr__(self, name):
        if name in _SPEC_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def times(self):
        """Seconds per run of each measurement."""
        return [t / self.number_per_run for t in self.raw_times]

    def _statistics(self):
        if self._stats is None:
            per_run = np.sort(np.asarray(self.times, dtype=np.float64))
            p25, med, p75 = np.quantile(per_run, [0.25, 0.5, 0.75])
            self._stats = {"sorted": tuple(per_run.tolist()), "median": float(med),
                           "mean": float(per_run.mean()), "p25": float(p25),
                           "p75": float(p75)}
        return self._stats

    @property
    def median(self):
        return self._statistics()["median"]

    @property
    def mean(self):
        return self._statistics()["mean"]

    @property
    def iqr(self):
        s = self._statistics()
        return s["p75"] - s["p25"]

    def meets_confidence(self, threshold=_MILD_SPREAD):
        """Whether the interquartile range is under ``threshold`` times the median."""
        return self.iqr / self.median < threshold

    @property
    def _warnings(self):
        if self.meets_confidence(_MILD_SPREAD):
            return ()
        why = ("This suggests significant environmental influence."
               if not self.meets_confidence(_GROSS_SPREAD)
               else "This could indicate system fluctuation.")
        share = self.iqr / self.median * 100
        return (f"  WARNING: Interquartile range is {share:.1f}% of the median "
                f"measurement.\n           {why}",)

    @property
    def has_warnings(self):
        return bool(self._warnings)

    @property
    def significant_figures(self):
        """Digits of the median worth trusting, judged from the middle half's spread (1-4)."""
        ordered = self._statistics()["sorted"]
        n = len(ordered)
        middle = np.asarray(ordered[n // 4:math.ceil(3 * n / 4)])
        half_width = max(1.645 * float(middle.std()) / math.sqrt(len(middle)), _CI_FLOOR)
        digits = math.floor(math.log10(self.median / half_width))
        return min(max(digits, 1), _SIGFIG_CAP)

    @property
    def title(self):
        return self.task_spec.title

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        unit, scale = select_unit(self.median)
        n = len(self.raw_times)
        # torch's header names torch's class (a printed line users compare)
        head = f"<torch.utils.benchmark.utils.common.Measurement object at {hex(id(self))}>"
        lines = [head, self.task_spec.summarize()]
        lines.append(f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}")
        if n >= 4:  # a spread of fewer measurements says little
            s = self._statistics()
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({s['p25'] / scale:.2f} to {s['p75'] / scale:.2f})")
        threads = self.num_threads
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads} "
                     f"thread{'s' if threads > 1 else ''}")
        lines.extend(self._warnings)
        return "\n".join(lines)

    @staticmethod
    def merge(measurements):
        """Pool measurements of the same task (times are rescaled to one run each)."""
        groups = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).append(m)
        return [Measurement(1, [t for m in ms for t in m.times], spec)
                for spec, ms in groups.items()]


def select_unit(t):
    """The unit ("ns", "us", "ms" or "s") and its size in seconds for showing ``t`` seconds."""
    power = math.floor(math.log10(t) / 3) if t > 0 else -4
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(power, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u):
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """``x`` rounded to ``n`` significant figures."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    # torch decides the rounding on the single-precision value (so 250.00000000000003
    # to one figure is 200, half to even); the kept digits are scaled back in double.
    step = 10.0 ** (math.ceil(math.log10(abs(x))) - n)
    return round(float(np.float32(x)) / step) * step


def ordered_unique(elements):
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n):
    """Run the block with ``n`` intra-op threads, restoring the previous count after."""
    import numtorch
    before = numtorch.get_num_threads()
    try:
        numtorch.set_num_threads(n)
        yield
    finally:
        numtorch.set_num_threads(before)
