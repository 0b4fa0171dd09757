"""``Timer``: times a Python statement the way ``timeit`` does, with warm-up, automatic
block sizes and numtorch's thread count held fixed while it measures."""

import enum
import shutil
import statistics
import time
import timeit as _timeit

from . import common

__all__ = ["Timer", "timer", "Language"]


def timer():
    """The default clock: ``time.perf_counter``."""
    return time.perf_counter()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


# Doubling past this would overflow the C int torch's timers count runs in.
_MAX_NUMBER = 2147483647


class Timer:
    """Measure how long ``stmt`` takes (``setup`` runs once before each measurement).

    ``globals`` is the namespace the statement runs in; ``torch`` is available in it
    unless the caller names something else ``torch``. Only Python statements are timed
    (``language="c++"`` raises ``ValueError``).
    """

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer,
                 globals=None, label=None, sub_label=None, description=None, env=None,
                 num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            raise ValueError("numtorch.utils.benchmark.Timer times Python statements only")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError("global_setup is only used for C++ statements")
        import numtorch
        self._user_globals = bool(globals)
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", numtorch)
        stmt = stmt.strip() or "pass"
        setup = setup.strip() or "pass"
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label,
            sub_label=sub_label, description=description, env=env, num_threads=num_threads)

    def _time(self, number):
        # No real statement runs in under a nanosecond; the floor keeps ratios finite.
        return max(self._timer.timeit(number), 1e-9)

    def _measurement(self, number, raw_times):
        return common.Measurement(number_per_run=number, raw_times=raw_times,
                                  task_spec=self._task_spec)

    def timeit(self, number=1000000):
        """One measurement of ``number`` runs (after a warm-up of ``number // 100`` runs)."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._time(max(number // 100, 2))
            return self._measurement(number, [self._time(number)])

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time):
        """Runs per block: grows by tens until the clock's own cost is negligible."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = statistics.median(self._time(0) for _ in range(5))
            number = 1
            while True:
                spent = self._time(number)
                if overhead / spent <= 1e-4 and spent >= min_run_time / 1000:
                    return number
                if spent > min_run_time or number * 10 > _MAX_NUMBER:
                    return number
                number *= 10

    def _blocks(self, number, done, min_run_time, max_run_time=None, callback=None):
        times, total, enough = [], 0.0, False
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not enough:
                spent = self._time(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                enough = done(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of equal size until ``min_run_time`` seconds were spent timing."""
        number = self._block_size(min_run_time)
        times = self._blocks(number, lambda times: True, min_run_time, callback=callback)
        return self._measurement(number, times)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Blocks until the spread falls under ``threshold`` of the median (or time runs out)."""
        number = self._block_size(0.05)

        def settled(times):
            return len(times) > 3 and self._measurement(number, times).meets_confidence(threshold)

        times = self._blocks(number, settled, min_run_time, max_run_time, callback)
        return self._measurement(number, times)

    def collect_callgrind(self, number=100, *, repeats=None, collect_baseline=True,
                          retain_out_file=False):
        """Not available: callgrind counts instructions of torch's C++ build. The checks
        torch makes first (the valgrind tools, wrapped globals) give torch's errors."""
        missing = [tool for tool in ("valgrind", "callgrind_control", "callgrind_annotate")
                   if shutil.which(tool) is None]
        if missing:
            raise OSError(f"Missing: {', '.join(missing)}")
        if self._user_globals:
            raise ValueError("`collect_callgrind` requires that globals be wrapped in "
                             "`CopyIfCallgrind` so that serialization is explicit.")
        raise OSError("Failed to collect callgrind profile:\nnumtorch has no C++ build for "
                      "callgrind to instrument.")
