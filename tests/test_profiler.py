"""numtorch.profiler and numtorch.autograd.profiler against torch's: schedules, recorded
event names (ops, backward nodes, optimizer steps, user ranges), shapes, memory, the table's
layout, the Chrome trace schema, flame-graph stacks and the trace handler."""

import gzip
import json
import os
import re
import threading
import warnings

import numpy as np
import pytest
import torch
import torch.profiler as tprof

import numtorch
import numtorch.profiler as nprof
from numtorch.autograd import graph as _graph


def _text(path):
    with open(path) as f:
        return f.read()


def _bytes(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


SCHEDULES = [{"wait": 1, "warmup": 1, "active": 2}, {"wait": 0, "warmup": 2, "active": 1, "repeat": 3},
             {"wait": 2, "warmup": 1, "active": 3, "repeat": 2, "skip_first": 3},
             {"wait": 3, "warmup": 1, "active": 1, "skip_first_wait": 1},
             {"wait": 1, "warmup": 0, "active": 1, "repeat": 1, "skip_first": 2, "skip_first_wait": 1}]


@pytest.mark.parametrize("kw", SCHEDULES)
def test_schedule_matches_torch(kw):
    ours, theirs = nprof.schedule(**kw), tprof.schedule(**kw)
    assert [ours(i).name for i in range(40)] == [theirs(i).name for i in range(40)]


def test_schedule_errors_and_enums():
    for bad in ({"wait": -1, "warmup": 1, "active": 1}, {"wait": 1, "warmup": 1, "active": 0},
                {"wait": 1, "warmup": 1, "active": 1, "repeat": -1}):
        with pytest.raises(AssertionError) as ours:
            nprof.schedule(**bad)
        with pytest.raises(AssertionError) as theirs:
            tprof.schedule(**bad)
        assert str(ours.value) == str(theirs.value)
    warnings.simplefilter("always")
    with pytest.warns(UserWarning, match="won't be using warmup"):
        nprof.schedule(wait=1, warmup=0, active=1)
    for e in ("CPU", "CUDA", "XPU", "MTIA", "HPU"):
        assert getattr(nprof.ProfilerActivity, e).value == getattr(tprof.ProfilerActivity,
                                                                   e).value
    assert [a.name for a in nprof.ProfilerAction] == [a.name for a in tprof.ProfilerAction]
    assert nprof.ProfilerActivity.CPU in nprof.supported_activities()


def _train_step(lib, prof_mod, **kw):
    lib.manual_seed(0)
    m = lib.nn.Linear(4, 3)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    x = lib.from_numpy(np.arange(8, dtype=np.float32).reshape(2, 4))
    acts = [prof_mod.ProfilerActivity.CPU]
    with prof_mod.profile(activities=acts, **kw) as p, prof_mod.record_function("mystep"):
        y = (m(x).relu() * x[:, :3]).sum()
        y.backward()
        opt.step()
    return p


def test_event_names_follow_torch():
    ours = {e.key for e in _train_step(numtorch, nprof).key_averages()}
    theirs = {e.key for e in _train_step(torch, tprof).key_averages()}
    # torch's linear adds a transpose node (TBackward0) that numtorch's fused one does not
    nodes = {"AddmmBackward0", "ReluBackward0", "MulBackward0", "SumBackward0",
             "torch::autograd::AccumulateGrad"}
    backward = {f"autograd::engine::evaluate_function: {n}" for n in nodes}
    for name in backward | nodes | {"mystep", "Optimizer.step#SGD.step", "aten::addmm",
                                    "aten::relu", "aten::mul", "aten::sum"}:
        assert name in theirs
        assert name in ours, name
    assert all(k.startswith(("aten::", "autograd::", "torch::", "mystep", "Optimizer."))
               or k.endswith("Backward0") for k in ours)


def test_nesting_shapes_and_memory():
    p = _train_step(numtorch, nprof, record_shapes=True, profile_memory=True)
    t = _train_step(torch, tprof, record_shapes=True, profile_memory=True)
    ev = {e.name: e for e in p.events()}
    top = ev["mystep"]
    assert top.cpu_parent is None and ev["aten::relu"].cpu_parent is top
    outer = ev["autograd::engine::evaluate_function: ReluBackward0"]
    assert ev["ReluBackward0"].cpu_parent is outer
    assert top.cpu_time_total >= sum(c.cpu_time_total for c in top.cpu_children)
    assert abs(top.self_cpu_time_total + sum(c.cpu_time_total for c in top.cpu_children)
               - top.cpu_time_total) < 1e-6
    ours = {(e.key, str(e.input_shapes)) for e in p.key_averages(group_by_input_shape=True)}
    theirs = {(e.key, str(e.input_shapes)) for e in t.key_averages(group_by_input_shape=True)}
    for key in ("aten::mul", "aten::relu"):  # torch's sum also lists its dtype argument
        assert {s for k, s in ours if k == key} == {s for k, s in theirs if k == key}
    mem, tmem = {}, {}  # the forward calls (the first of each name)
    for events, d in ((p.events(), mem), (t.events(), tmem)):
        for e in events:
            d.setdefault(e.name, e.cpu_memory_usage)  # torch counts it in an inner op
    for key in ("aten::mul", "aten::relu", "aten::addmm"):
        assert mem[key] == tmem[key] == 2 * 3 * 4


TIME = r"-?\d+\.\d{3}(us|ms|s)"


def test_table_layout_matches_torch():
    p = _train_step(numtorch, nprof, profile_memory=True, record_shapes=True)
    t = _train_step(torch, tprof, profile_memory=True, record_shapes=True)
    for kw in ({"sort_by": "self_cpu_time_total", "row_limit": 5},
               {"sort_by": "cpu_time_total", "row_limit": 3, "header": "TITLE"}):
        for group in (False, True):
            ours = p.key_averages(group_by_input_shape=group).table(**kw).split("\n")
            theirs = t.key_averages(group_by_input_shape=group).table(**kw).split("\n")
            assert len(ours) == len(theirs)
            n_head = 5 if "header" in kw else 3
            if not group:
                assert ours[:n_head] == theirs[:n_head]
            else:  # the shapes column's width depends on each op's arguments
                cut = ours[n_head - 2].index("# of Calls") + len("# of Calls")
                assert [r[:cut] for r in ours[:n_head]] == [r[:cut] for r in theirs[:n_head]]
            assert re.fullmatch("Self CPU time total: " + TIME, ours[-2])
            assert ours[-1] == ""
            widths = [len(c) for c in ours[n_head - 1].split("  ")[:-1]]
            for row in ours[n_head:n_head + kw["row_limit"]]:
                cells, pos = [], 0
                for w in widths:
                    cells.append(row[pos:pos + w].strip())
                    pos += w + 2
                assert re.fullmatch(r"-?\d+\.\d{2}%", cells[1]) and re.fullmatch(TIME, cells[2])
                assert re.fullmatch(r"\d+ B|\d+\.\d\d [KMG]b", cells[7])
                assert cells[8].isdigit() and (not group or cells[9].startswith("["))
    row = next(r for r in p.key_averages().table(row_limit=100).split("\n")
               if r.strip().startswith("aten::relu"))
    assert row.split()[-1] == "1" and row.split()[-3:-1] == ["24", "B"]
    ours = p.key_averages().table(sort_by="count")
    counts = [int(r.split()[-1]) for r in ours.split("\n")[3:-3]]
    assert counts == sorted(counts, reverse=True)


def test_chrome_trace_schema(tmp_path):
    p = _train_step(numtorch, nprof, record_shapes=True, profile_memory=True)
    t = _train_step(torch, tprof, record_shapes=True)
    p.export_chrome_trace(str(tmp_path / "nt.json"))
    t.export_chrome_trace(str(tmp_path / "pt.json"))
    ours = json.loads(_text(tmp_path / "nt.json"))
    theirs = json.loads(_text(tmp_path / "pt.json"))
    assert {"traceEvents", "displayTimeUnit", "schemaVersion"} <= set(ours)
    complete = [e for e in ours["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(p.events())
    tkeys = set.intersection(*[set(e) for e in theirs["traceEvents"] if e["ph"] == "X"])
    for e in complete:
        assert tkeys <= set(e)
        assert isinstance(e["ts"], float) and e["dur"] >= 0 and isinstance(e["pid"], int)
        assert isinstance(e["tid"], int) and isinstance(e["args"], dict)
    starts = [e for e in ours["traceEvents"] if e["ph"] == "s"]
    ends = {e["id"] for e in ours["traceEvents"] if e["ph"] == "f"}
    assert starts and {e["id"] for e in starts} == ends
    mul = next(e for e in complete if e["name"] == "aten::mul")
    assert mul["args"]["Input Dims"] == [[2, 3], [2, 3]]
    assert mul["args"]["Input type"] == ["float", "float"]
    assert any(e["name"] == "thread_name" for e in ours["traceEvents"] if e["ph"] == "M")
    p.export_chrome_trace(str(tmp_path / "nt.json.gz"))
    zipped = json.loads(gzip.decompress(_bytes(tmp_path / "nt.json.gz")))
    assert zipped["traceEvents"] == ours["traceEvents"]


def test_export_stacks(tmp_path):
    p = _train_step(numtorch, nprof, with_stack=True)
    p.export_stacks(str(tmp_path / "stacks.txt"))
    lines = _text(tmp_path / "stacks.txt").splitlines()
    assert lines
    this = os.path.basename(__file__)
    for line in lines:
        frames, value = line.rsplit(" ", 1)
        assert int(value) > 0 and " " not in frames
        assert this in frames.split(";")[-1]  # innermost frame: the call site in this file
    with pytest.raises(AssertionError):
        _train_step(numtorch, nprof).export_stacks(str(tmp_path / "x.txt"))


def _scheduled(lib, prof_mod, handler=None):
    windows = []

    def ready(prof):
        windows.append(sorted(e.name for e in prof.events() if e.name in
                              ("ProfilerStep*", "aten::add")))
        if handler is not None:
            handler(prof)

    x = lib.ones(3)
    sched = prof_mod.schedule(wait=1, warmup=1, active=2, repeat=2)
    with prof_mod.profile(schedule=sched, on_trace_ready=ready) as p:
        for _ in range(10):
            x + 1
            p.step()
    return windows


def test_schedule_windows_and_trace_handler(tmp_path):
    handler = nprof.tensorboard_trace_handler(str(tmp_path), worker_name="w0", use_gzip=True)
    assert _scheduled(numtorch, nprof, handler) == _scheduled(torch, tprof)
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 2 and all(re.fullmatch(r"w0\.\d+\.pt\.trace\.json\.gz", f)
                                   for f in files)
    trace = json.loads(gzip.decompress(_bytes(tmp_path / files[0])))
    names = [e["name"] for e in trace["traceEvents"] if e["ph"] == "X"]
    assert names.count("aten::add") == 2 and {"ProfilerStep#2", "ProfilerStep#3"} <= set(names)
    plain = nprof.tensorboard_trace_handler(str(tmp_path / "plain"))
    with nprof.profile(on_trace_ready=plain):
        numtorch.ones(2) * 2
    (f,) = os.listdir(tmp_path / "plain")
    assert f.startswith(f"{os.uname().nodename}_{os.getpid()}.") and f.endswith(".pt.trace.json")


def test_record_function_decorator_threads_and_hook_reset():
    @nprof.record_function("helper")
    def helper(t):
        return t * 3

    def worker(out):
        out.append(numtorch.ones(4) - 1)

    out = []
    assert _graph._hook is None
    with nprof.profile() as p:
        helper(numtorch.ones(2))
        th = threading.Thread(target=worker, args=(out,))
        th.start()
        th.join()
        with pytest.raises(ValueError), nprof.record_function("failing"):
            raise ValueError
    assert _graph._hook is None  # zero cost again after the profiler
    ev = {e.name: e for e in p.events()}
    assert ev["aten::mul"].cpu_parent is ev["helper"]
    assert ev["aten::sub"].thread != ev["aten::mul"].thread
    assert ev["failing"].time_range.end is not None
    with pytest.raises(RuntimeError), nprof.profile():
        raise RuntimeError("boom")
    assert _graph._hook is None
    helper(numtorch.ones(2))  # no profiler: the decorator does nothing


def test_nested_profilers_both_record():
    with nprof.profile() as outer:
        numtorch.ones(2) + 1
        with nprof.profile() as inner:
            numtorch.ones(2) * 2
    assert [e.name for e in inner.events()] == ["aten::mul"]
    assert [e.name for e in outer.events()] == ["aten::add", "aten::mul"]


def test_key_averages_before_recording():
    for mod in (nprof, tprof):
        with pytest.raises(AssertionError, match="Profiler must be initialized"):
            mod.profile().key_averages()


def test_autograd_profiler_spelling():
    from torch.autograd import profiler as tap

    from numtorch.autograd import profiler as ap

    for mod in (ap, tap):  # never run: empty results, as torch 2.x
        prof = mod.profile()
        assert len(prof.key_averages()) == 0 and prof.table() == "" and str(prof) == ""
    x = numtorch.ones(2, 2, requires_grad=True)
    with ap.profile(record_shapes=True) as prof, ap.record_function("block"):
        (x * 2).sum().backward()
    names = [e.name for e in prof.function_events]
    assert names[:3] == ["block", "aten::mul", "aten::sum"]
    assert "autograd::engine::evaluate_function: MulBackward0" in names
    assert "torch::autograd::AccumulateGrad" in names
    assert str(prof).startswith("-" * 20) and "Self CPU time total" in str(prof)
    assert prof.self_cpu_time_total > 0 and prof.total_average().count == len(names)
    assert {e.key for e in prof.key_averages()} == set(names)
    with ap.profile(enabled=False) as off:
        numtorch.ones(1) + 1
    assert off is None  # as torch
    assert numtorch.autograd.profiler is ap and numtorch.profiler.profile is nprof.profile


def test_torch_spellings_under_the_launcher(tmp_path):
    import subprocess
    import sys

    prog = tmp_path / "prog.py"
    prog.write_text(
        "import sys, torch\n"
        "from torch.utils.tensorboard import SummaryWriter\n"
        "from torch.profiler import profile, record_function\n"
        "import torch.autograd.profiler as ap\n"
        "with profile() as p, record_function('step'):\n"
        "    (torch.ones(3, requires_grad=True) * 2).sum().backward()\n"
        "with SummaryWriter(sys.argv[1]) as w:\n"
        "    w.add_scalar('events', float(len(p.events())), 0)\n"
        "print(type(w).__module__, p.events()[0].name, ap.profile.__module__)\n")
    out = subprocess.run([sys.executable, "-m", "numtorch.run", str(prog), str(tmp_path / "tb")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["numtorch.utils.tensorboard.writer", "step",
                                  "numtorch.autograd.profiler"]
