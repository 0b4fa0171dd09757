"""Session 49 (benchutil): ``torch.utils.benchmark.Compare`` tables, ``Measurement``
statistics and ``Timer.collect_callgrind``'s errors, each compared with torch at test time.

Compare is fed fixed Measurements (nothing is timed), so both libraries render the same
inputs; the printed tables must be identical, colour codes included.
"""

import os
import re
import shutil
import subprocess
import sys

import pytest
import torch.utils.benchmark as TB
from torch.utils.benchmark.utils.common import TaskSpec as TSpec

import numtorch.utils.benchmark as NB
from numtorch.utils.benchmark.utils.common import TaskSpec as NSpec


def _m(lib, times, label="sum", sub="8", desc="ones", nt=1, number=1, env=None,
       stmt="a.sum()"):
    spec = (TSpec if lib is TB else NSpec)(stmt, "pass", label=label, sub_label=sub,
                                           description=desc, num_threads=nt, env=env)
    return lib.Measurement(number, times, spec)


_W = [1e-3, 1.3e-3, 1.6e-3, 2e-3]  # 33% spread: a warning
_P = [1.234e-3, 1.2341e-3, 1.2342e-3, 1.2339e-3]  # tight: four figures
CASES = {
    "stmt_rows_and_gaps": ([(_W[:3], {"sub": "a long sub label"}),
                            ([12.3456e-3, 12.4e-3], {"sub": None, "stmt": "x+y"}),
                            ([1.5e-3] * 3, {"sub": "q", "desc": "z"})], {}),
    "no_label": ([([1e-3] * 3, {"sub": None, "desc": "d", "label": None})], {}),
    "env_warnings_ns": ([([1e-3, 2e-3, 9e-3], {"sub": "x", "env": "e1"}),
                         ([1e-9, 1.1e-9], {"sub": "x", "desc": "o", "env": "e1"}),
                         ([1e-3, 2e-3, 9e-3], {"sub": "z", "env": "e2"}),
                         ([3e-3] * 2, {"sub": "y", "env": "e1"})], {"highlight_warnings": {}}),
    "colour_thresholds": ([([r * 1e-3] * 3, {"sub": str(r)}) for r in
                           [1, 1.05, 1.1, 1.11, 1.5, 1.99, 2, 2.01, 4.9, 5, 6]],
                          {"colorize": {}}),
    "colour_rowwise": ([([r * 1e-3] * 3, {"desc": str(r)}) for r in [1, 1.1, 1.2, 2, 5]],
                       {"colorize": {"rowwise": True}}),
    "thread_sections": ([([1e-3] * 3, {"sub": "a", "nt": 4}), ([2e-3] * 3, {"sub": "b"}),
                         ([3e-3] * 3, {"sub": "b", "nt": 2})], {}),
    "env_groups": ([([1e-3] * 3, {"sub": "a", "env": "E1"}), ([3e-3] * 3, {"sub": "b", "env": "Env22"}),
                    ([2e-3] * 3, {"sub": "c", "env": "E1"}), ([2e-3] * 3, {"sub": "c", "env": "E1", "nt": 2})],
                   {}),
    "trim": ([(_P, {"sub": "a"}), ([98.7e-3] * 4, {"sub": "b"}),
              ([1.5e-3, 1.6e-3, 1.55e-3], {"sub": "c", "desc": "x"})],
             {"trim_significant_figures": {}}),
    "trim_tie_and_us": ([(_P, {"sub": "a", "number": 7}),
                         ([2.5e-6, 2.6e-6, 2.4e-6], {"sub": "16", "number": 10})],
                        {"trim_significant_figures": {}}),
    "untrimmed": ([(_P, {"sub": "a"}), ([98.7e-3] * 4, {"sub": "b"})], {}),
    "warnings_colour": ([(_W, {"sub": "a"}), ([1e-3, 1.02e-3, 1.4e-3, 1.5e-3], {"sub": "c"}),
                         ([12e-3] * 4, {"sub": "b"}), ([1e-3] * 4, {"sub": "b", "desc": "x"})],
                        {"highlight_warnings": {}, "colorize": {}}),
    "warnings_mixed_widths": ([([1e-3, 2e-3, 9e-3], {"sub": "a"}), (_W, {"sub": "b"}),
                               ([1e-3, 1.05e-3, 1.1e-3, 1.2e-3], {"sub": "c"}),
                               ([25e-3] * 3, {"sub": "d"}), ([2e-3] * 3, {"sub": "d", "nt": 2}),
                               ([2e-3, 5e-3, 6e-3], {"sub": "d", "nt": 2, "desc": "x"})],
                              {"highlight_warnings": {}, "trim_significant_figures": {},
                               "colorize": {}}),
    "labels_and_merge": ([([1e-3] * 3, {"sub": "a"}), ([2e-3] * 3, {"sub": "a"}),
                          ([5e-3] * 3, {"sub": "b", "label": "other"}),
                          ([1.5] * 3, {"sub": "c", "label": "other"})], {}),
}


def _render(lib, case):
    specs, ops = CASES[case]
    c = lib.Compare([_m(lib, t, **kw) for t, kw in specs])
    for op, kw in ops.items():
        getattr(c, op)(**kw)
    return str(c)


@pytest.mark.parametrize("case", sorted(CASES))
def test_compare_table_matches_torch(case):
    assert _render(NB, case) == _render(TB, case)


def test_compare_print_extend_and_errors(capsys):
    outs = []
    for lib in (TB, NB):
        c = lib.Compare([_m(lib, [1e-3] * 3)])
        c.extend_results([_m(lib, [2e-3] * 3, sub="9")])
        c.print()
        outs.append(capsys.readouterr().out)
        with pytest.raises(ValueError) as ei:
            lib.Compare([_m(lib, [1e-3]), 3])
        outs.append(str(ei.value))
        outs.append(str(lib.Compare([])))
        outs.append([e.value for e in lib.Colorize])
    assert outs[:4] == outs[4:]


MEASUREMENTS = {
    "warn": (_W, {"label": "L", "sub_label": "s", "description": "d"}, 3),
    "single": ([5e-6], {}, 1),
    "threads": ([2e-3, 2.1e-3], {"num_threads": 4}, 10),
    "multiline": ([1e-3, 2e-3, 9e-3, 1e-3, 1.2e-3], {"stmt": "x = 1\ny = 2", "setup": "a = 1\nb=2"}, 1),
    "env": ([1e-3] * 6, {"setup": "import math", "env": "E"}, 2),
}


@pytest.mark.parametrize("name", sorted(MEASUREMENTS))
def test_measurement_stats_and_repr(name):
    times, kw, number = MEASUREMENTS[name]
    kw = {"stmt": "a.sum()", "setup": "pass", **kw}
    got = []
    for lib, spec in ((TB, TSpec), (NB, NSpec)):
        m = lib.Measurement(number, times, spec(**kw))
        got.append((re.sub("0x[0-9a-f]+", "X", repr(m)), m.mean, m.median, m.iqr,
                    m.significant_figures, m.has_warnings, m.title, m.as_row_name, m.times))
    assert got[0] == got[1]


def test_measurement_merge():
    got = []
    for lib, spec in ((TB, TSpec), (NB, NSpec)):
        ms = [lib.Measurement(2, [1e-3, 2e-3], spec("a", "pass", label="x")),
              lib.Measurement(1, [3e-3], spec("a", "pass", label="x")),
              lib.Measurement(1, [3e-3], spec("b", "pass"))]
        got.append([(m.number_per_run, m.raw_times, m.stmt, m.label)
                    for m in lib.Measurement.merge(ms)])
    assert got[0] == got[1]


def test_trim_sigfig_rounding():
    for x in (250.00000000000003, 13.792227, 95.0, 1234.5, 2.5):
        for n in (1, 2, 3, 4):
            assert NB.trim_sigfig(x, n) == pytest.approx(TB.trim_sigfig(x, n), rel=1e-6)


def _callgrind_error(lib, **timer_kw):
    with pytest.raises(Exception) as ei:
        lib.Timer("1 + 1", **timer_kw).collect_callgrind(number=5)
    return type(ei.value), str(ei.value)


def test_collect_callgrind_without_valgrind(tmp_path, monkeypatch):
    # torch remembers whether valgrind was found, so its side runs in a fresh interpreter
    os.symlink(shutil.which("which"), tmp_path / "which")  # torch looks tools up with `which`
    code = ("import torch.utils.benchmark as B\n"
            "try:\n    B.Timer('1 + 1', globals={'x': 1}).collect_callgrind(number=5)\n"
            "except Exception as e:\n    print(type(e).__name__ + '|' + str(e))\n")
    env = {**os.environ, "PATH": str(tmp_path)}
    want = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60, check=False).stdout.strip()
    monkeypatch.setenv("PATH", str(tmp_path))
    kind, msg = _callgrind_error(NB, globals={"x": 1})
    assert f"{kind.__name__}|{msg}" == want


@pytest.mark.skipif(not all(shutil.which(t) for t in
                            ("valgrind", "callgrind_control", "callgrind_annotate")),
                    reason="valgrind not installed")
def test_collect_callgrind_unwrapped_globals():
    assert _callgrind_error(NB, globals={"x": 1}) == _callgrind_error(TB, globals={"x": 1})


def test_adaptive_autorange_shape():
    got = []
    for lib in (TB, NB):
        m = lib.Timer("x + 1", globals={"x": 1}, label="L").adaptive_autorange(
            min_run_time=0.005, max_run_time=0.02)
        got.append((type(m).__name__, m.label, m.stmt, len(m.raw_times) >= 1,
                    m.number_per_run >= 1))
    assert got[0] == got[1]
