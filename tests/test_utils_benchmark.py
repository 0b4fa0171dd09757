"""numtorch.utils.benchmark (Timer, Measurement) against torch.utils.benchmark.

A scripted clock makes both libraries see the same elapsed times, so block sizes, raw
times, statistics and the printed summaries can be compared exactly."""

import re

import pytest
import torch
import torch.utils.benchmark as tb

import numtorch
import numtorch.utils.benchmark as nb


def _clock(per_run):
    """A clock and a statement: each run of the statement moves the clock on by
    ``per_run(k)`` seconds (k counts runs), each reading by 50 ns."""
    state = {"t": 0.0, "k": 0}

    def read():
        state["t"] += 5e-8
        return state["t"]

    def tick():
        state["k"] += 1
        state["t"] += per_run(state["k"])
    return read, tick


def _text(m):
    return re.sub(r" object at 0x[0-9a-f]+>", ">", repr(m)).replace("numtorch.", "torch.")


CLOCKS = {
    "steady": lambda k: 1e-5,
    "jittery": lambda k: 1e-6 * (1 + (k // 1000) % 3),
    "slow": lambda k: 0.003 + 0.001 * (k % 3),
}


@pytest.mark.parametrize("clock", sorted(CLOCKS))
@pytest.mark.parametrize("how", ["timeit", "blocked", "adaptive"])
def test_timer_matches_torch(clock, how):
    out = []
    for lib, mod in ((torch, tb), (numtorch, nb)):
        read, tick = _clock(CLOCKS[clock])
        t = mod.Timer("tick()", setup="x = torch.ones(4)", timer=read, globals={"tick": tick},
                      label="mul", sub_label="4", description="ones")
        if how == "timeit":
            m = t.timeit(50)
        elif how == "blocked":
            m = t.blocked_autorange(min_run_time=0.01)
        else:
            m = t.adaptive_autorange(threshold=0.05, max_run_time=0.2)
        out.append(m)
    tm, nm = out
    assert nm.number_per_run == tm.number_per_run
    assert nm.raw_times == pytest.approx(tm.raw_times, rel=1e-9)
    for name in ("median", "mean", "iqr", "significant_figures", "has_warnings", "title",
                 "stmt", "label", "num_threads", "env", "as_row_name"):
        assert getattr(nm, name) == pytest.approx(getattr(tm, name)), name
    assert nm.meets_confidence(0.2) == tm.meets_confidence(0.2)
    assert _text(nm) == _text(tm)


@pytest.mark.parametrize("raw", [[3e-9], [2e-3, 1e-3, 5e-3, 4e-3], [1.5, 1.0, 1.1, 1.2, 1.05],
                                 [7e-7] * 6 + [9e-7]])
@pytest.mark.parametrize("spec", [dict(stmt="f(x)", setup="pass"),
                                  dict(stmt="a = 1\nb = a", setup="import os\nx = 1",
                                       sub_label="two", num_threads=4),
                                  dict(stmt="f(x)", setup="x = 1", label="L",
                                       description="d\ne", env="E")])
def test_measurement_summary_matches_torch(raw, spec):
    tm = tb.Measurement(10, raw, tb.TaskSpec(**spec))
    nm = nb.Measurement(10, raw, nb.TaskSpec(**spec))
    assert _text(nm) == _text(tm)
    assert [nm.median, nm.mean, nm.iqr, *nm.times] == pytest.approx(
        [tm.median, tm.mean, tm.iqr, *tm.times])
    assert nm.significant_figures == tm.significant_figures
    assert nm.env == tm.env
    merged_t, merged_n = tb.Measurement.merge([tm, tm]), nb.Measurement.merge([nm, nm])
    assert [t for m in merged_n for t in m.raw_times] == pytest.approx(
        [t for m in merged_t for t in m.raw_times])
    assert [m.number_per_run for m in merged_n] == [m.number_per_run for m in merged_t]


def test_helpers_match_torch():
    for t in (3e-10, 4e-9, 2.5e-6, 0.7, 12.0):
        assert nb.select_unit(t) == tb.select_unit(t)
    for x, n in ((3.14159, 2), (0.0012345, 3), (98765.0, 1)):
        assert nb.trim_sigfig(x, n) == pytest.approx(tb.trim_sigfig(x, n))
    assert nb.unit_to_english("us") == tb.unit_to_english("us")
    assert nb.ordered_unique([3, 1, 3, 2]) == tb.ordered_unique([3, 1, 3, 2])


def test_timer_runs_in_given_globals_and_threads():
    seen = []
    before = numtorch.get_num_threads()
    t = nb.Timer("seen.append((torch.__name__, torch.get_num_threads(), y))",
                 globals={"seen": seen, "y": 5}, num_threads=1)
    m = t.timeit(3)
    assert m.number_per_run == 3 and seen[-1] == ("numtorch", 1, 5)
    assert numtorch.get_num_threads() == before
    with pytest.raises(ValueError):
        nb.Timer("x", language="c++")
