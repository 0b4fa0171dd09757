"""Where an LSTM layer's training step spends its time: numtorch's parts against torch's
forward and backward, each library in its own processes, alternating.

    python bench/lstm_parts.py [--case lstm|mnist_rnn] [--threads 1,2] [--processes 5]
                               [--iters 40] [--clock cpu|wall]

For every thread count of ``--threads`` each round starts one numtorch and one torch child.
A child times ``--iters`` iterations of ``model(x)[0].sum()`` and its ``backward()`` (the
forward and the backward separately) and keeps the median. The numtorch child also times the
parts of ``numtorch.ops.rnn_lstm`` by wrapping them (the wrappers cost ~1 us a call):

* ``fwd op``: ``LSTMSequence.forward``; inside it ``fwd steps``, the time loop
  (``_plain_lstm_steps``: a GEMM and ~8 elementwise calls per step). ``fwd steps GEMM``
  and ``fwd steps elementwise`` time the same loop on the same arrays in the child again with
  the elementwise calls, then the GEMM calls, replaced by no-ops (``python`` with both).
* ``bwd op``: ``LSTMSequence.backward_arrays``; inside it ``bwd factors`` (the gate-derivative
  factors of all steps, ~11 passes), ``bwd steps`` (the recurrent loop,
  ``_plain_lstm_grads``) and ``bwd weight grads`` (``LSTMWeightGrads.add``: the transposing
  copies of dz and h, one GEMM for [dW_hh dW_ih db] over all steps, the GEMM for dx).

What is left of ``fwd``/``bwd`` outside ``fwd op``/``bwd op`` is the module, the graph and
``sum``. torch's oneDNN layer cannot be split this way; its forward and backward alone are
printed. Process CPU time (``--clock cpu``, the default) with ``--threads 1`` is what a
shared machine measures reliably; the wall clock with two threads shows each library's
second-thread gain, and is only meaningful on an idle machine (numtorch also caps BLAS at
the cores other processes leave free: ``NUMTORCH_BLAS_ADAPT=0`` keeps the count asked for).
A benchmark, not a test.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CASES = {  # name: (input, hidden, steps, batch)
    "lstm": (32, 128, 35, 20),  # train_lstm.py's lstm case
    "mnist_rnn": (28, 64, 28, 64),  # mnist_rnn's layer, time-major here
}


def _parts(clock, lstm_mod, overlap_mod):
    """Wrap the numtorch parts in timers; returns {part: [seconds per call, ...]}."""
    got = {}

    def timed(owner, name, label):
        fn = getattr(owner, name)

        def wrapper(*args, **kwargs):
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                got.setdefault(label, []).append(clock() - t0)

        setattr(owner, name, staticmethod(wrapper) if isinstance(
            owner.__dict__.get(name), staticmethod) else wrapper)

    seq = lstm_mod.LSTMSequence
    timed(seq, "forward", "fwd op")
    timed(lstm_mod, "_plain_lstm_steps", "fwd steps")
    timed(seq, "backward_arrays", "bwd op")
    timed(seq, "_factors", "bwd factors")
    timed(lstm_mod, "_plain_lstm_grads", "bwd steps")
    timed(overlap_mod.LSTMWeightGrads, "add", "bwd weight grads")
    return got


def _loop_split(lstm_mod, case, clock, iters):
    """The forward loop on its own arrays, whole and with the GEMMs or the elementwise calls
    replaced by no-ops: (whole, GEMM, elementwise, python) seconds per call."""
    from numtorch.ops.rnn_sequence_base import _row_blocks

    feat, hidden, steps, batch = case
    gates, rows = 4 * hidden, hidden + feat + 1
    rng = np.random.default_rng(1)
    f32 = np.float32
    wq = (rng.standard_normal((gates, rows)) * 0.1).astype(f32)
    hfull = (rng.standard_normal((steps + 1, rows, batch)) * 0.1).astype(f32)
    acts = np.empty((steps, gates, batch), f32)
    cs = np.zeros((steps + 1, hidden, batch), f32)
    tcs = np.empty((steps, hidden, batch), f32)
    inline = feat + 1 <= hidden
    if not inline:
        return None
    blocks = _row_blocks(wq, gates, rows, batch)

    def noop(*_):
        return None

    class Only:  # the loop's four NumPy names, some of them no-ops
        def __init__(self, gemm, elementwise):
            self.dot = np.dot if gemm else noop
            self.tanh, self.multiply, self.add = ((np.tanh, np.multiply, np.add)
                                                  if elementwise else (noop,) * 3)

    out = []
    for xp in (np, Only(True, False), Only(False, True), Only(False, False)):
        t = []
        for _ in range(iters):
            t0 = clock()
            lstm_mod._plain_lstm_steps(xp, wq, blocks, hfull, hidden, acts, cs, tcs, None)
            t.append(clock() - t0)
        out.append(statistics.median(t[iters // 4:]))
    whole, gemm, elem, py = out
    return {"fwd steps (again)": whole, "fwd steps GEMM": gemm - py,
            "fwd steps elementwise": elem - py, "fwd steps python": py}


def child(lib_name, case_name, threads, clock_name, iters):
    if lib_name == "numtorch":
        sys.path.insert(0, ROOT)
    lib = __import__(lib_name)
    lib.set_num_threads(threads)
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    parts = None
    if lib_name == "numtorch":
        from numtorch.ops import rnn_lstm, rnn_overlap

        parts = _parts(clock, rnn_lstm, rnn_overlap)
    feat, hidden, steps, batch = CASES[case_name]
    lib.manual_seed(0)
    model = lib.nn.LSTM(feat, hidden)
    x = lib.from_numpy(np.random.default_rng(0).standard_normal(
        (steps, batch, feat)).astype(np.float32))
    fwd, bwd = [], []
    for k in range(iters + 10):
        model.zero_grad()
        t0 = clock()
        loss = model(x)[0].sum()
        t1 = clock()
        loss.backward()
        t2 = clock()
        if k >= 10:
            fwd.append(t1 - t0)
            bwd.append(t2 - t1)
    res = {"fwd": statistics.median(fwd), "bwd": statistics.median(bwd)}
    if parts is not None:
        res.update({k: statistics.median(v[10:]) for k, v in parts.items()})
        from numtorch.ops import rnn_lstm

        res.update(_loop_split(rnn_lstm, CASES[case_name], clock, iters) or {})
    print(json.dumps(res))


ORDER = ("fwd", "fwd op", "fwd steps", "fwd steps (again)", "fwd steps GEMM",
         "fwd steps elementwise", "fwd steps python", "bwd", "bwd op", "bwd factors",
         "bwd steps", "bwd weight grads")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", choices=sorted(CASES), default="lstm")
    p.add_argument("--threads", default="1", help="comma-separated thread counts")
    p.add_argument("--processes", type=int, default=5)
    p.add_argument("--iters", type=int, default=40)
    p.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--thread-count", type=int, default=1, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child, args.case, args.thread_count, args.clock, args.iters)
        return
    for threads in (int(t) for t in args.threads.split(",")):
        runs = {"numtorch": [], "torch": []}
        for _ in range(args.processes):
            for lib, got in runs.items():
                cmd = [sys.executable, os.path.abspath(__file__), "--child", lib, "--case",
                       args.case, "--thread-count", str(threads), "--clock", args.clock,
                       "--iters", str(args.iters)]
                out = subprocess.run(cmd, capture_output=True, text=True, check=False)
                if out.returncode:
                    raise SystemExit(f"{lib} child failed:\n{out.stderr[-3000:]}")
                got.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(f"{args.case} {CASES[args.case]} (input, hidden, steps, batch); {args.clock} "
              f"time, {threads} thread(s); medians over {args.processes} processes per "
              "library (range), us per call")
        for key in ORDER:
            vals = [r[key] * 1e6 for r in runs["numtorch"] if key in r]
            if not vals:
                continue
            line = (f"  {key:22s} numtorch {statistics.median(vals):8.1f} "
                    f"({min(vals):.0f}-{max(vals):.0f})")
            if key in ("fwd", "bwd"):
                tv = [r[key] * 1e6 for r in runs["torch"]]
                tm = statistics.median(tv)
                line += (f"   torch {tm:8.1f} ({min(tv):.0f}-{max(tv):.0f})   ratio "
                         f"{statistics.median(vals) / tm:.2f}")
            print(line)


if __name__ == "__main__":
    main()
