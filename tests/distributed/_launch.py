"""Start rank scripts in real separate processes (mpiexec or the launcher), with timeouts.

Each rank script writes ``{case: "ok" | failure text}`` as JSON to ``<out>/rank<r>.json``; the
tests read those files. A run that exceeds its timeout fails the test instead of blocking CI.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RANKS = os.path.join(HERE, "ranks")
BIN = os.path.dirname(sys.executable)
MPIEXEC = os.path.join(BIN, "mpiexec")


def env():
    e = dict(os.environ)
    e["HYDRA_LAUNCHER"] = "fork"  # local ranks only: never try ssh inside a container
    e["OMP_NUM_THREADS"] = "1"  # two ranks on two cores: no BLAS thread oversubscription
    e["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(HERE)),
                                       e.get("PYTHONPATH", "")])
    return e


def mpiexec_cmd(script, *args, n=2):
    return [MPIEXEC, "-n", str(n), sys.executable, "-u", os.path.join(RANKS, script),
            *map(str, args)]


def launcher_cmd(script, *args, nproc=2, module="numtorch.distributed.run"):
    return [sys.executable, "-m", module, f"--nproc-per-node={nproc}",
            os.path.join(RANKS, script), *map(str, args)]


def mpiexec(script, *args, n=2, timeout=60):
    """Run ``ranks/<script>`` on ``n`` ranks with plain mpiexec; returns CompletedProcess."""
    return run_all([mpiexec_cmd(script, *args, n=n)], timeout)[0]


def launcher(script, *args, nproc=2, timeout=60, module="numtorch.distributed.run"):
    """Run ``ranks/<script>`` through ``python -m numtorch.distributed.run``."""
    return run_all([launcher_cmd(script, *args, nproc=nproc, module=module)], timeout)[0]


def run_all(cmds, timeout=60):
    """Run independent commands at the same time; their CompletedProcess results, in order.

    A command still running after ``timeout`` seconds is killed and raises TimeoutExpired.
    """
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env(), start_new_session=True) for c in cmds]
    out = []
    try:
        for c, p in zip(cmds, procs):
            so, se = p.communicate(timeout=timeout)
            out.append(subprocess.CompletedProcess(c, p.returncode, so, se))
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, 9)  # the whole session: mpiexec and every rank under it
                p.wait()
    return out


def results(out_dir, n=2):
    """The per-rank result dicts a run left in ``out_dir``."""
    got = []
    for r in range(n):
        path = os.path.join(out_dir, f"rank{r}.json")
        with open(path) as f:
            got.append(json.load(f))
    return got


def failures(per_rank, prefix=""):
    """Every case (starting with ``prefix``) that did not pass, as readable lines."""
    bad = []
    for r, res in enumerate(per_rank):
        for case, verdict in res.items():
            if case.startswith(prefix) and verdict != "ok":
                bad.append(f"rank {r}: {case}: {verdict}")
    return bad


def both_launchers(script, out, timeout):
    """(numtorch's run, torch's run) of ``script`` under each library's launcher. torch's
    is started again once when its gloo rendezvous itself failed (a busy CI machine can
    refuse a connection during torch's own init_process_group)."""
    def cmd(tag):
        head = [sys.executable, "-m", "numtorch.run"] if tag == "numtorch" else [sys.executable]
        return head + ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
                       script, str(out), tag]

    ours, theirs = run_all([cmd("numtorch"), cmd("torch")], timeout=timeout)
    if theirs.returncode != 0 and "in init_process_group" in theirs.stderr:
        theirs = run_all([cmd("torch")], timeout=timeout)[0]
    return ours, theirs


def oracle_runs(script, out, timeout):
    """Run ``script`` on two ranks under both libraries (each rank writes
    ``<library>_rank<r>.json`` into ``out``); both runs must succeed. Returns
    {(library, rank): that rank's results}."""
    ours, theirs = both_launchers(script, out, timeout)
    assert theirs.returncode == 0, theirs.stderr[-3000:]
    assert ours.returncode == 0, ours.stdout[-3000:] + ours.stderr[-3000:]
    got = {}
    for tag in ("numtorch", "torch"):
        for r in (0, 1):
            with open(os.path.join(out, f"{tag}_rank{r}.json")) as f:
                got[tag, r] = json.load(f)
    return got
