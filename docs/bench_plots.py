"""Regenerate the benchmark plots of the documentation from ``bench/results.json``.

    python docs/bench_plots.py            # redraw docs/_static/bench_*.png from the JSON
    python docs/bench_plots.py --measure  # first re-run bench/overhead.py, update the JSON

The JSON holds, per workload, the range of the ratio numtorch time / torch time measured by
the scripts in ``bench/`` and the goal; ``--measure`` refreshes the two overhead.py rows
(the other scripts take minutes each; run them by hand and edit their rows). The Sphinx build
calls :func:`make_plots`, so the site always shows the JSON's numbers.
"""

import argparse
import json
import os
import sys

DOCS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(DOCS)
RESULTS = os.path.join(REPO, "bench", "results.json")
STATIC = os.path.join(DOCS, "_static")


def load():
    with open(RESULTS) as f:
        return json.load(f)


def measure(data, repeats=7):
    """Re-run bench/overhead.py (both libraries, one process) and store its ratios."""
    sys.path.insert(0, os.path.join(REPO, "bench"))
    import overhead

    results = overhead.main(["--repeats", str(repeats)])
    by_key = {w.get("key"): w for w in data["workloads"]}
    for label, _ours, _theirs, ratio, _goal in results:
        key = "overhead-a" if label.startswith("(a)") else \
            "overhead-b" if label.startswith("(b)") else None
        if key in by_key:
            by_key[key]["low"] = by_key[key]["high"] = round(ratio, 2)
    with open(RESULTS, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def make_plots(data=None):
    """Draw ``_static/bench_ratios.png``: one bar per workload (its measured range), the
    line where numtorch and torch take the same time, and each workload's goal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = data or load()
    rows = data["workloads"]
    names = [w["name"] for w in rows]
    low = [w["low"] for w in rows]
    high = [w["high"] for w in rows]
    mid = [(a + b) / 2 for a, b in zip(low, high)]
    fig, ax = plt.subplots(figsize=(8, 0.42 * len(rows) + 1.2), dpi=100)
    ys = list(range(len(rows)))[::-1]
    colors = ["#4c72b0" if b <= w["goal"] else "#dd8452" for b, w in zip(high, rows)]
    ax.barh(ys, mid, color=colors, height=0.6,
            xerr=[[m - a for m, a in zip(mid, low)], [b - m for m, b in zip(mid, high)]],
            capsize=3, label="numtorch / torch (range)")
    ax.scatter([w["goal"] for w in rows], ys, marker="|", s=300, color="black", zorder=3,
               label="goal")
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1, label="as fast as torch")
    ax.set_yticks(ys, names, fontsize=8)
    ax.set_xlabel("time ratio numtorch / torch (lower is better)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.4, -0.08 - 1.0 / len(rows)), ncol=3,
              fontsize=8, frameon=False)
    ax.set_xlim(0, max(max(high), max(w["goal"] for w in rows)) * 1.15)
    fig.tight_layout()
    os.makedirs(STATIC, exist_ok=True)
    path = os.path.join(STATIC, "bench_ratios.png")
    fig.savefig(path, metadata={"Software": None})  # no version stamp: stable bytes
    plt.close(fig)
    return [path]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", action="store_true", help="re-run bench/overhead.py")
    args = parser.parse_args(argv)
    data = load()
    if args.measure:
        measure(data)
    for p in make_plots(data):
        print("wrote", os.path.relpath(p, REPO))


if __name__ == "__main__":
    main()
