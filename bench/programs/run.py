"""Runs real PyTorch programs unchanged under torch and under ``python -m numtorch.run`` on
fabricated data; compares their printed loss trajectories and their CPU time per iteration
(one thread: OMP/OPENBLAS/MKL_NUM_THREADS=1; process CPU time; libraries alternating).

    python bench/programs/run.py --examples /work/ext/examples --mingpt /work/ext/minGPT \
        --nanogpt /work/ext/nanoGPT --tutorials /work/ext/tutorials \
        --yunjey /work/ext/yunjey-tutorial --ngvideo /work/ext/ng-video-lecture \
        --vit /work/ext/vit-pytorch --makemore /work/ext/makemore --timm /work/ext/timm-repo \
        [--only NAME[,NAME]] [--lib torch|numtorch|both] \
        [--repeats 3] [--data DIR] [--json OUT]

Clients without a ``loss`` pattern (tutorials that train nothing) are compared on their whole
printed output, line for line, object addresses masked.
"""
import argparse
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from clients import CLIENTS

SHIM = os.path.join(REPO, "tests", "vision", "v2_programs", "_torch_shim")
_ADDR = re.compile(r"0x[0-9a-fA-F]+")
STUBS = os.path.join(HERE, "stubs")
OFFLINE = os.path.join(HERE, "offline")


def _fill(text, ctx):
    return text.format(**ctx)


def _available(need):
    if need == "vgg16_weights":
        hub = os.path.join(os.path.expanduser("~"), ".cache", "torch", "hub", "checkpoints")
        return os.path.isdir(hub) and any(n.startswith("vgg16") for n in os.listdir(hub))
    return importlib.util.find_spec(need) is not None


def _env(lib, spec, roots, data):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONHASHSEED="0", PROGRAMS_OFFLINE_DIR=data,
               **spec.get("env", {}))
    paths = [roots["mingpt"], STUBS] + ([OFFLINE] if spec.get("offline") else [])
    if lib == "torch" and spec.get("vision"):
        paths.insert(0, SHIM)
    if lib == "numtorch":
        paths.append(REPO)
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _command(lib, script, args, record=None, preload=""):
    py = [sys.executable] + (["-m", "numtorch.run"] if lib == "numtorch" else [])
    if record is None:
        return ["nice", "-n", "19"] + py + [script] + args
    return ["nice", "-n", "19"] + py + [os.path.join(HERE, "_timed.py"), record, preload,
                                        script] + args


def run_once(name, lib, data, roots, work, timeout):
    """One run of client ``name`` under ``lib``: its trajectory, ms/iter and any failure."""
    spec = CLIENTS[name]
    root = roots[spec.get("root", "examples")]
    ctx = {"data": data, "root": root}
    # the programs' "../data" needs a parent of their own
    # (``cwd`` nests deeper for programs that read "../../data")
    cwd = os.path.join(tempfile.mkdtemp(prefix=f"{name}-{lib}-", dir=work), spec.get("cwd", "run"))
    os.makedirs(cwd)
    for link, target in spec.get("links", {}).items():
        path = os.path.join(cwd, link)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(_fill(target, ctx), path)
    for d in spec.get("dirs", ()):
        os.makedirs(os.path.join(cwd, d), exist_ok=True)
    env = _env(lib, spec, roots, data)
    result = {"cwd": cwd, "ok": True, "error": ""}

    def call(script, args, record=None, run_lib=lib):
        cmd = _command(run_lib, os.path.join(root, script), [_fill(a, ctx) for a in args],
                       record, "torch,torchvision" if spec.get("vision") else "torch")
        run_env = env if run_lib == lib else _env(run_lib, spec, roots, data)
        cut = spec.get("cut") if record is not None else None
        try:
            if cut:
                p = _run_cut(cmd, cwd, run_env, cut)
            else:
                p = subprocess.run(cmd, cwd=cwd, env=run_env, capture_output=True, text=True,
                                   check=False, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, f"{script}: timed out after {timeout}s"
        with open(os.path.join(cwd, f"_{os.path.basename(script)}.log"), "w") as f:
            f.write(p.stdout + "\n--- stderr ---\n" + p.stderr)
        if p.returncode != 0:
            tail = (p.stderr.strip().splitlines() or ["(no stderr)"])[-1]
            return p, f"{script}: exit {p.returncode}: {tail}"
        return p, ""

    for script, args in spec.get("pre", ()):
        _, err = call(script, args, run_lib=spec.get("pre_lib", lib))
        if err:
            return dict(result, ok=False, error="pre " + err, losses=[], ms=None)
    record = os.path.join(cwd, "_timing.json")
    script = spec["script"]
    if spec.get("patch"):
        script = _patched_copy(os.path.join(root, script), spec["patch"], cwd)
    p, err = call(script, spec["args"], record)
    losses, ms = [], None
    if p is not None and spec.get("loss") is None:
        losses = _ADDR.sub("0x", p.stdout).splitlines()
    elif p is not None:
        losses = _losses(p.stdout, spec)
    if os.path.exists(record):
        with open(record) as f:
            timing = json.load(f)
        ms = _ms_per_iter(spec, timing)
    if err:
        return dict(result, ok=False, error=err, losses=losses, ms=ms)
    for script, args in spec.get("post", ()):
        _, err = call(script, args)
        if err:
            return dict(result, ok=False, error="post " + err, losses=losses, ms=ms)
    other = "numtorch" if lib == "torch" else "torch"
    for script, args in spec.get("cross", ()):  # what this run saved, read by the other library
        _, err = call(script, args, run_lib=other)
        if err:
            return dict(result, ok=False, error=f"cross ({other}) " + err, losses=losses, ms=ms)
    return dict(result, losses=losses, ms=ms)


def _patched_copy(path, patch, cwd):
    """A program without a command line (ng-video-lecture's constants): a copy in the run's
    directory with each ``old`` line replaced by ``new``; every ``old`` must occur once."""
    with open(path) as f:
        text = f.read()
    for old, new in patch.items():
        if text.count(old) != 1:
            raise ValueError(f"patch {old!r}: {text.count(old)} matches in {path}")
        text = text.replace(old, new)
    copy = os.path.join(cwd, os.path.basename(path))
    with open(copy, "w") as f:
        f.write(text)
    return copy


def _losses(text, spec):
    """The values ``spec["loss"]`` captures, in output order; with ``spec["order"]`` (a
    pattern capturing an integer, e.g. an epoch number) grouped under the last such number
    seen and sorted by it: timm's closing summary lists its epochs best-first, an order that
    a tie or a last digit may change between the libraries."""
    order = spec.get("order")
    found, key = [], -1
    for line in text.splitlines():
        if order:
            m = re.search(order, line)
            if m:
                key = int(m.group(1))
        m = re.search(spec["loss"], line)
        if m:
            found.append((key, len(found), [float(v) for v in m.groups()]))
    found.sort()
    return [v for _, _, values in found for v in values]


def _run_cut(cmd, cwd, env, cut):
    """A program with a hard-coded long loop: stopped after ``cut`` seconds by SIGTERM (on which
    _timed.py still records its timings); what it printed by then is compared."""
    with subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as proc:
        try:
            out, err = proc.communicate(timeout=cut)
        except subprocess.TimeoutExpired:
            proc.terminate()
            out, err = proc.communicate(timeout=60)
            return subprocess.CompletedProcess(cmd, 0, out, err)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _ms_per_iter(spec, timing):
    total = spec.get("total_iters")
    if total is not None:
        if isinstance(total, str):
            found = [re.search(total, line) for _, line in timing["lines"]]
            found = [int(m.group(1)) for m in found if m]
            if not found or not found[-1]:
                return None
            total = found[-1]
        cpu = timing["end"] - timing["start"] + timing["children"]
        return 1000.0 * cpu / total
    if spec.get("loss") is None:
        return None
    tick = re.compile(spec.get("tick", spec["loss"]))
    times = [t for t, line in timing["lines"] if tick.search(line)][spec.get("skip_ticks", 0):]
    if len(times) < 2:
        return None
    return 1000.0 * (times[-1] - times[0]) / ((len(times) - 1) * spec["per_tick"])


def compare(a, b, rtol, whole=False, prefix=False):
    """(matches, description) of trajectory ``b`` (numtorch) against ``a`` (torch); ``whole``:
    both are printed outputs (lists of lines); ``prefix``: runs cut at a time limit, compared
    on their common part."""
    if whole and not a and not b:
        return True, "no output in either"
    if not a or not b:
        return False, "no losses"
    # a client that stops early in one library (an error) is judged on its common prefix
    if rtol is None:  # regression stops at the first batch below a threshold: rounding moves
        # that batch, so only the final losses are shown
        return True, f"stop point chaotic, not compared: final loss {a[-1]:.4g} vs {b[-1]:.4g}"
    if isinstance(a[0], str):  # whole printed output
        same = sum(x == y for x, y in zip(a, b))
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
        text = f"output {len(a)} vs {len(b)} lines, {same} identical"
        if first is not None:
            text += f" (first differing line {first}: {a[first][:60]!r} vs {b[first][:60]!r})"
        return len(a) == len(b) and first is None, text
    n = min(len(a), len(b))
    rel = [abs(x - y) / max(abs(x), 1e-12) for x, y in zip(a[:n], b[:n])]
    worst = max(rel)
    first_off = next((i for i, r in enumerate(rel) if r > rtol), None)
    same_len = len(a) == len(b) or prefix
    text = (f"{len(a)} vs {len(b)} points, {a[0]:.4g}->{a[-1]:.4g} vs {b[0]:.4g}->{b[-1]:.4g},"
            f" max rel diff {worst:.2e}")
    if first_off is not None:
        text += f" (first beyond {rtol:g} at point {first_off})"
    return same_len and first_off is None, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", default="/work/ext/examples")
    ap.add_argument("--mingpt", default="/work/ext/minGPT")
    ap.add_argument("--nanogpt", default="/work/ext/nanoGPT")
    ap.add_argument("--tutorials", default="/work/ext/tutorials",
                    help="pytorch/tutorials' scripts (beginner_source/...)")
    ap.add_argument("--yunjey", default="/work/ext/yunjey-tutorial",
                    help="yunjey/pytorch-tutorial's checkout")
    ap.add_argument("--ngvideo", default="/work/ext/ng-video-lecture",
                    help="karpathy/ng-video-lecture's checkout")
    ap.add_argument("--vit", default="/work/ext/vit-pytorch", help="lucidrains/vit-pytorch")
    ap.add_argument("--makemore", default="/work/ext/makemore", help="karpathy/makemore")
    ap.add_argument("--timm", default="/work/ext/timm-repo",
                    help="huggingface/pytorch-image-models (its train.py/validate.py)")
    ap.add_argument("--only", default="", help="comma-separated client names")
    ap.add_argument("--lib", choices=("torch", "numtorch", "both"), default="both")
    ap.add_argument("--repeats", type=int, default=1, help="runs per library, alternating")
    ap.add_argument("--data", default="", help="fabricated data dir (made if missing)")
    ap.add_argument("--work", default="", help="where the runs' working directories go")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    roots = {"examples": args.examples, "mingpt": args.mingpt, "nanogpt": args.nanogpt,
             "tutorials": args.tutorials, "yunjey": os.path.join(args.yunjey, "tutorials"),
             "ngvideo": args.ngvideo, "drivers": os.path.join(HERE, "drivers"),
             "makemore": args.makemore, "timm": args.timm}
    os.environ["VIT_PYTORCH"] = args.vit
    work = args.work or tempfile.mkdtemp(prefix="programs-")
    os.makedirs(work, exist_ok=True)
    data = args.data or os.path.join(work, "data")
    if not os.path.exists(os.path.join(data, "DONE")):
        subprocess.run([sys.executable, os.path.join(HERE, "fabricate.py"), data], check=True)
    data = os.path.abspath(data)
    libs = ("torch", "numtorch") if args.lib == "both" else (args.lib,)
    names = args.only.split(",") if args.only else list(CLIENTS)
    report = {}
    for name in names:
        spec = CLIENTS[name]
        if spec.get("needs") and not _available(spec["needs"]):
            print(f"{name:26s} skipped: {spec['needs']} is not available", flush=True)
            report[name] = {"skipped": spec["needs"]}
            continue
        runs = {lib: [] for lib in libs}
        for _ in range(args.repeats):
            for lib in libs:
                runs[lib].append(run_once(name, lib, data, roots, work, args.timeout))
        row = {}
        for lib in libs:
            ok = all(r["ok"] for r in runs[lib])
            ms = [r["ms"] for r in runs[lib] if r["ms"] is not None]
            row[lib] = {"ok": ok, "errors": [r["error"] for r in runs[lib] if r["error"]],
                        "losses": runs[lib][0]["losses"],
                        "ms": statistics.median(ms) if ms else None, "ms_all": ms,
                        "cwd": runs[lib][0]["cwd"]}
            print(f"{name:26s} {lib:8s} {'ok' if ok else 'FAIL'}  ms/iter "
                  f"{row[lib]['ms'] if row[lib]['ms'] is None else round(row[lib]['ms'], 2)}"
                  f"  {' | '.join(row[lib]['errors'])[:300]}", flush=True)
        if len(libs) == 2:
            match, text = compare(row["torch"]["losses"], row["numtorch"]["losses"],
                                  spec["rtol"], spec.get("loss") is None,
                                  bool(spec.get("cut")))
            ratio = (row["numtorch"]["ms"] / row["torch"]["ms"]
                     if row["numtorch"]["ms"] and row["torch"]["ms"] else None)
            row.update(match=match, trajectory=text, ratio=ratio)
            print(f"{name:26s} trajectory {'MATCH' if match else 'DIFFERS'}: {text}; ratio "
                  f"{'n/a' if ratio is None else f'{ratio:.2f}'}", flush=True)
        report[name] = row
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
