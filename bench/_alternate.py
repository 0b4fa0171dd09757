"""Run a benchmark script's libraries in separate processes, alternating.

Why: with numtorch and torch in one process, torch's OpenMP workers and NumPy's OpenBLAS
workers share the cores and whichever library runs next pays for the other's idle spinning
(the 1024^2 matmul of overhead.py read 1.14-1.28 in one process, 0.99 in separate ones).
The parent starts ``script --only <library> <args>`` once per library per round, the
libraries taking turns; each child imports its library alone and prints one JSON object as
its last line (``time`` in seconds plus anything the script wants to compare).
"""

import json
import os
import resource
import statistics
import subprocess
import sys

from _busy import busy_core

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def have_torch():
    """Whether torch imports here (the ratios need it)."""
    return subprocess.run([sys.executable, "-c", "import torch"], capture_output=True,
                          check=False).returncode == 0


def alternate(script, args, processes, libs=("numtorch", "torch")):
    """``{library: [child result, ...]}`` over ``processes`` rounds of one child per library."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    results = {name: [] for name in libs}
    for _ in range(processes):
        for name in libs:
            cmd = [sys.executable, os.path.abspath(script), "--only", name] + list(args)
            out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            if out.returncode != 0:
                raise SystemExit(f"{name} child failed:\n{out.stderr[-3000:]}")
            results[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    return results


_BASELINE_KB = [None]


def _max_rss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def mark_baseline():
    """Call in a child once its library is imported: :func:`emit` then reports the peak
    resident memory above this point (``rss_peak``, MB) — the workload's own memory."""
    _BASELINE_KB[0] = _max_rss_kb()


def emit(result):
    """A child's last line: ``result`` (a dict with at least ``time``) as JSON, with
    ``rss_peak`` when :func:`mark_baseline` was called."""
    if _BASELINE_KB[0] is not None and "rss_peak" not in result:
        result = dict(result, rss_peak=(_max_rss_kb() - _BASELINE_KB[0]) / 1024)
    print(json.dumps(result), flush=True)


def rss_line(results):
    """Each library's median peak RSS above its import baseline, and their ratio (issue 17
    asks <= 1.3 x torch's), when the children reported it."""
    peaks = {name: [r["rss_peak"] for r in rs if "rss_peak" in r]
             for name, rs in results.items()}
    if not all(peaks.values()):
        return None
    meds = {name: statistics.median(v) for name, v in peaks.items()}
    text = ", ".join(f"{name} {m:.1f} MB" for name, m in meds.items())
    ratio = meds["numtorch"] / meds["torch"] if meds.get("torch") else None
    print(f"  peak RSS above import (median): {text}"
          + ("" if ratio is None else f"; ratio {ratio:.2f} (goal <= 1.3)"))
    return ratio


def ratio_line(results, goal, unit_scale=1e3, unit="ms"):
    """The lines printing each library's median time (with its range) and the ratio of the
    medians numtorch / torch with the range of the per-round ratios; returns the ratio."""
    times = {name: [r["time"] for r in rs] for name, rs in results.items()}
    for name, ts in times.items():
        print(f"  {name:9s} {statistics.median(ts) * unit_scale:9.2f} {unit}  "
              f"(median of {len(ts)} processes; range {min(ts) * unit_scale:.2f}-"
              f"{max(ts) * unit_scale:.2f})")
    if "torch" not in times:
        return None
    ratio = statistics.median(times["numtorch"]) / statistics.median(times["torch"])
    pairs = [a / b for a, b in zip(times["numtorch"], times["torch"])]
    verdict = "" if goal is None else f"; goal <= {goal}  {'PASS' if ratio <= goal else 'MISS'}"
    print(f"  ratio numtorch/torch = {ratio:.2f}  (per-round {min(pairs):.2f}-{max(pairs):.2f}"
          f"{verdict})")
    rss_line(results)
    return ratio


def run_step_script(script, args, label, goal):
    """The default mode of the scripts with ``--only``/``--json`` children that report a time
    per training step and their first-step loss (train_cnn.py, train_resnet.py): alternate
    ``args.processes`` children per library, print the losses, the medians and the ratio."""
    passed = ["--steps", str(args.steps), "--repeats", str(args.repeats), "--clock",
              args.clock, "--json"] + ([] if args.threads is None else
                                        ["--threads", str(args.threads)])
    libs = ("numtorch", "torch") if have_torch() else ("numtorch",)
    busy = getattr(args, "busy", False)
    with busy_core(busy):
        results = alternate(script, passed, args.processes, libs)
    losses = {name: rs[0]["loss"] for name, rs in results.items()}
    print(f"{label}{'; one core kept busy' if busy else ''}; first-step loss "
          + ", ".join(f"{k} {v:.5f}" for k, v in losses.items()))
    return ratio_line(results, goal)
