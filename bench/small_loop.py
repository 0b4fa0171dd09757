"""Small-tensor training step benchmark: numtorch against PyTorch, one library per process.

Run ``python bench/small_loop.py`` (``--repeats N``, ``--rounds R``). Each round starts one
child process per library (``--only numtorch|torch`` runs a single library in this process),
alternating the order, so the two never share an interpreter and a burst of load from
elsewhere hits both. Times are CPU time of the process (``time.process_time``) and wall time
per iteration; the median over rounds is reported with its spread (min-max), and the ratio is
numtorch / torch. OMP/BLAS threads are pinned to one, as the workloads are far too small for
threads.

Workloads:

(a) ``reinforce``: a REINFORCE episode step like pytorch/examples' reinforcement_learning:
    a 4-128-2 policy MLP (dropout, ReLU) on a (1, 4) state, softmax, ``Categorical(probs)``,
    ``sample``, ``log_prob``, appended to a list; after ``EPISODE`` steps the discounted
    returns are normalised, the loss ``sum(-log_prob * R)`` is backpropagated and Adam
    steps. Reported per environment step.
(c) ``actor_critic``: the same examples' actor-critic step: a shared 4-128 layer with an
    action head (softmax, ``Categorical``) and a value head on a (4,) state; per episode the
    advantage ``R - value.item()``, ``smooth_l1_loss(value, tensor([R]))`` and two stacked
    sums, then Adam. Reported per environment step.
(b) ``tiny``: bench/overhead.py's tiny loop: ``(x * 1.0001 + 0.5).tanh().sum().backward()``
    on an (8, 8) float32 tensor. Reported per iteration.

This is a benchmark, not a test: the numbers depend on the machine and its load.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EPISODE = 50  # environment steps per policy update


def load(name):
    """Import ``numtorch`` (from this checkout) or ``torch``."""
    if name == "numtorch":
        sys.path.insert(0, ROOT)
        import numtorch as lib
    else:
        import torch as lib
        lib.set_num_threads(1)
    return lib


def reinforce(lib, steps):
    """Build workload (a); returns a callable that runs ``steps`` environment steps."""
    import numpy as np

    nn, F = lib.nn, lib.nn.functional
    Categorical = lib.distributions.Categorical
    lib.manual_seed(0)

    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            self.affine1 = nn.Linear(4, 128)
            self.dropout = nn.Dropout(p=0.6)
            self.affine2 = nn.Linear(128, 2)

        def forward(self, x):
            x = F.relu(self.dropout(self.affine1(x)))
            return F.softmax(self.affine2(x), dim=1)

    policy = Policy()
    optimizer = lib.optim.Adam(policy.parameters(), lr=1e-2)
    eps = np.finfo(np.float32).eps.item()
    rng = np.random.default_rng(0)
    states = rng.standard_normal((EPISODE, 4)).astype(np.float32)

    def episode():
        log_probs, rewards = [], []
        for t in range(EPISODE):
            state = lib.from_numpy(states[t]).float().unsqueeze(0)
            probs = policy(state)
            m = Categorical(probs)
            action = m.sample()
            log_probs.append(m.log_prob(action))
            rewards.append(1.0 if action.item() == 0 else 0.5)
        R, returns = 0.0, []
        for r in rewards[::-1]:
            R = r + 0.99 * R
            returns.insert(0, R)
        returns = lib.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        loss = []
        for log_prob, R in zip(log_probs, returns):
            loss.append(-log_prob * R)
        optimizer.zero_grad()
        loss = lib.cat(loss).sum()
        loss.backward()
        optimizer.step()

    def run():
        for _ in range(steps // EPISODE):
            episode()

    return run, (steps // EPISODE) * EPISODE


def actor_critic(lib, steps):
    """Build workload (c); returns a callable that runs ``steps`` environment steps."""
    import numpy as np

    nn, F = lib.nn, lib.nn.functional
    Categorical = lib.distributions.Categorical
    lib.manual_seed(0)

    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            self.affine1 = nn.Linear(4, 128)
            self.action_head = nn.Linear(128, 2)
            self.value_head = nn.Linear(128, 1)

        def forward(self, x):
            x = F.relu(self.affine1(x))
            return F.softmax(self.action_head(x), dim=-1), self.value_head(x)

    model = Policy()
    optimizer = lib.optim.Adam(model.parameters(), lr=3e-2)
    eps = np.finfo(np.float32).eps.item()
    rng = np.random.default_rng(0)
    states = rng.standard_normal((EPISODE, 4)).astype(np.float32)

    def episode():
        saved, rewards = [], []
        for t in range(EPISODE):
            probs, value = model(lib.from_numpy(states[t]).float())
            m = Categorical(probs)
            action = m.sample()
            saved.append((m.log_prob(action), value))
            rewards.append(1.0 if action.item() == 0 else 0.5)
        R, returns = 0.0, []
        for r in rewards[::-1]:
            R = r + 0.99 * R
            returns.insert(0, R)
        returns = lib.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        policy_losses, value_losses = [], []
        for (log_prob, value), R in zip(saved, returns):
            advantage = R - value.item()
            policy_losses.append(-log_prob * advantage)
            value_losses.append(F.smooth_l1_loss(value, lib.tensor([R])))
        optimizer.zero_grad()
        loss = lib.stack(policy_losses).sum() + lib.stack(value_losses).sum()
        loss.backward()
        optimizer.step()

    def run():
        for _ in range(steps // EPISODE):
            episode()

    return run, (steps // EPISODE) * EPISODE


def tiny(lib, steps):
    """Build workload (b); returns a callable running ``steps`` tiny forward+backward steps."""
    import numpy as np

    x = lib.from_numpy(np.random.default_rng(0).standard_normal((8, 8)).astype(np.float32))
    x.requires_grad_(True)

    def run():
        for _ in range(steps):
            (x * 1.0001 + 0.5).tanh().sum().backward()

    return run, steps


WORKLOADS = {"reinforce": (reinforce, 500), "actor_critic": (actor_critic, 500),
             "tiny": (tiny, 2000)}


def run_one(name, workloads, repeats):
    """Time each workload on one library in this process; median CPU and wall us/iter."""
    lib = load(name)
    out = {}
    for w in workloads:
        builder, steps = WORKLOADS[w]
        fn, n = builder(lib, steps)
        fn()  # warm-up
        cpu, wall = [], []
        for _ in range(repeats):
            c0, w0 = time.process_time(), time.perf_counter()
            fn()
            cpu.append((time.process_time() - c0) / n * 1e6)
            wall.append((time.perf_counter() - w0) / n * 1e6)
        out[w] = {"cpu": statistics.median(cpu), "wall": statistics.median(wall)}
    return out


def main(argv=None):
    """Alternate the libraries in child processes and print medians, spreads and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["numtorch", "torch"],
                        help="time one library in this process and print JSON")
    parser.add_argument("--workload", action="append", choices=sorted(WORKLOADS),
                        help="workloads to run (default: all)")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats per process")
    parser.add_argument("--rounds", type=int, default=5, help="processes per library")
    args = parser.parse_args(argv)
    workloads = args.workload or sorted(WORKLOADS)
    if args.only:
        print(json.dumps(run_one(args.only, workloads, args.repeats)))
        return None
    results = {lib: {w: {"cpu": [], "wall": []} for w in workloads}
               for lib in ("numtorch", "torch")}
    for r in range(args.rounds):
        order = ("numtorch", "torch") if r % 2 == 0 else ("torch", "numtorch")
        for lib in order:
            cmd = [sys.executable, os.path.abspath(__file__), "--only", lib,
                   "--repeats", str(args.repeats)]
            for w in workloads:
                cmd += ["--workload", w]
            line = subprocess.run(cmd, check=True, capture_output=True,
                                  text=True).stdout.strip().splitlines()[-1]
            for w, t in json.loads(line).items():
                results[lib][w]["cpu"].append(t["cpu"])
                results[lib][w]["wall"].append(t["wall"])
    print(f"median of {args.rounds} processes per library (each the median of "
          f"{args.repeats} repeats); us per iteration; ratio = numtorch / torch")
    print(f"{'workload':10s} {'clock':5s} {'numtorch':>20s} {'torch':>20s} {'ratio':>6s} "
          f"{'ratio range':>12s}")
    for w in workloads:
        for clock in ("cpu", "wall"):
            ours, theirs = results["numtorch"][w][clock], results["torch"][w][clock]
            mo, mt = statistics.median(ours), statistics.median(theirs)
            lo, hi = min(ours) / max(theirs), max(ours) / min(theirs)
            print(f"{w:10s} {clock:5s} {mo:8.1f} ({min(ours):.0f}-{max(ours):.0f}) "
                  f"{mt:8.1f} ({min(theirs):.0f}-{max(theirs):.0f}) {mo / mt:6.2f} "
                  f"{lo:5.2f}-{hi:.2f}")
    return results


if __name__ == "__main__":
    main()
