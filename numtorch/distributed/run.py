"""torchrun's command line on MPI: ``python -m numtorch.distributed.run``.

    python -m numtorch.distributed.run --nproc-per-node 2 train.py --lr 0.1

starts the ranks through ``mpiexec`` (each under a small supervisor,
``numtorch.distributed._bootstrap``, that sets torchrun's environment variables RANK,
LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT, ... and
records how the rank ended). When a rank fails the others are given a few seconds to report
(they raise errors naming it), the rest is stopped, and a summary names the failed ranks,
as torchrun's does.

Several machines: one launcher on one machine starts every rank through MPI's process
manager (ssh or the batch system), so pass the hosts (``--hosts a,b`` or ``--hostfile``,
numtorch options) with ``--nnodes``; see docs/distributed.md.

A PyTorch program that says ``import torch`` runs on numtorch, unchanged, when the launcher
itself is started through ``numtorch.run``: ``numtorch-run -m numtorch.distributed.run
--nproc-per-node 2 train.py`` (torchrun's command line after ``numtorch-run -m``).
"""

import argparse
import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

__all__ = ["main", "get_args_parser", "run"]


def _flag(parser, name, **kw):
    """An option spelled both with dashes and with underscores, as torchrun's."""
    names = [f"--{name}"]
    if "-" in name:
        names.append("--" + name.replace("-", "_"))
    parser.add_argument(*names, **kw)


def get_args_parser():
    """The argument parser (torchrun's options, plus --hosts/--hostfile/--mpiexec-args)."""
    p = argparse.ArgumentParser(
        prog="python -m numtorch.distributed.run",
        description="Start a numtorch.distributed job through MPI (torchrun's command line).")
    _flag(p, "nnodes", type=str, default="1", help="number of machines (or MIN:MAX)")
    _flag(p, "nproc-per-node", type=str, default="1",
          help="ranks per machine: an int, 'cpu' (one per core), 'gpu' or 'auto'")
    _flag(p, "node-rank", type=int, default=0,
          help="this machine's number; with MPI one launcher starts every machine's ranks, "
               "so launchers with node rank > 0 exit at once")
    _flag(p, "master-addr", type=str, default=None, help="exported as MASTER_ADDR")
    _flag(p, "master-port", type=int, default=None, help="exported as MASTER_PORT")
    _flag(p, "rdzv-backend", type=str, default="static")
    _flag(p, "rdzv-endpoint", type=str, default="", help="HOST:PORT, exported as MASTER_*")
    _flag(p, "rdzv-id", type=str, default="none")
    _flag(p, "rdzv-conf", type=str, default="")
    p.add_argument("--standalone", action="store_true", help="single machine, free port")
    _flag(p, "max-restarts", type=int, default=0,
          help="restart every rank this many times at most when one fails")
    _flag(p, "monitor-interval", type=float, default=0.1)
    _flag(p, "start-method", type=str, default="spawn", choices=["spawn", "fork", "forkserver"])
    p.add_argument("--role", type=str, default="default")
    p.add_argument("-m", "--module", action="store_true",
                   help="run the script as a module (python -m)")
    _flag(p, "no-python", action="store_true", help="run the script as an executable")
    _flag(p, "run-path", action="store_true", help="accepted; same as the default")
    _flag(p, "log-dir", type=str, default=None, help="keep each rank's record files here")
    p.add_argument("-r", "--redirects", type=str, default="0")
    p.add_argument("-t", "--tee", type=str, default="0")
    _flag(p, "local-addr", type=str, default=None)
    p.add_argument("--hosts", type=str, default=None,
                   help="comma-separated hosts for several machines (mpiexec -hosts)")
    p.add_argument("--hostfile", type=str, default=None,
                   help="a file of hosts for several machines (mpiexec -f)")
    _flag(p, "mpiexec-args", type=str, default="",
          help="extra mpiexec arguments, e.g. '-launcher ssh -iface eth0'")
    _flag(p, "failure-grace", type=float, default=10.0,
          help="seconds the other ranks get to report a failed rank before they are stopped")
    p.add_argument("training_script", type=str)
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args=None):
    return get_args_parser().parse_args(args)


def _nproc(value):
    if value == "cpu":
        return os.cpu_count() or 1
    if value in ("gpu", "auto", "xpu"):
        try:
            from .. import cuda

            if cuda.is_available():
                return cuda.device_count()
        except Exception:
            pass
        if value == "gpu":
            raise ValueError("Cuda is not available.")
        return os.cpu_count() or 1
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"Unsupported nproc_per_node value: {value}") from None
    if n <= 0:
        raise ValueError(f"nproc_per_node must be positive, got {n}")
    return n


def _nnodes(value):
    lo, _, hi = value.partition(":")
    lo, hi = int(lo), int(hi or lo)
    if lo != hi:
        print(f"numtorch.distributed.run: elastic node ranges ({value}) are not supported; "
              f"using {hi} nodes", file=sys.stderr)
    return hi


def find_mpiexec():
    """The mpiexec next to this Python (the mpich wheel), NUMTORCH_MPIEXEC, or PATH's."""
    env = os.environ.get("NUMTORCH_MPIEXEC")
    if env:
        return env
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise RuntimeError("numtorch.distributed.run needs MPI's mpiexec: install the optional "
                           "extra with pip install \"numtorch[distributed]\" (mpi4py and "
                           "MPICH) or put an MPI's mpiexec on PATH")
    return found


def _is_hydra(mpiexec):
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=20)
        return "HYDRA" in (out.stdout + out.stderr).upper()
    except (OSError, subprocess.SubprocessError):
        return False


def _under_torch_alias():
    """True when this launcher runs under ``numtorch.run`` (``import torch`` is numtorch):
    the ranks then run their programs that way too."""
    try:
        from .. import _import_hook

        return _import_hook.is_installed()
    except ImportError:
        return False


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def build_command(args, run_dir, restart_count=0):
    """The mpiexec command line and the environment for a parsed argument namespace.

    ``restart_count``: how many times the ranks were restarted before this start (exported
    as TORCHELASTIC_RESTART_COUNT)."""
    nproc = _nproc(args.nproc_per_node)
    nnodes = _nnodes(args.nnodes)
    mpiexec = find_mpiexec()
    hydra = _is_hydra(mpiexec)
    cmd = [mpiexec]
    if hydra:
        cmd.append("-disable-auto-cleanup")  # survivors report a dead rank by name
    if args.hosts:
        cmd += ["-hosts", args.hosts]
    if args.hostfile:
        cmd += ["-f", args.hostfile]
    if nnodes > 1 or args.hosts or args.hostfile:
        cmd += ["-ppn" if hydra else "--npernode", str(nproc)]
    if args.mpiexec_args:
        cmd += args.mpiexec_args.split()
    cmd += ["-n", str(nproc * nnodes)]
    boot = [sys.executable, "-u", "-m", "numtorch.distributed._bootstrap"]
    if args.no_python:
        boot.append("--no-python")
    elif args.module:
        boot.append("--module")
    if _under_torch_alias():
        boot.append("--torch")  # started as `numtorch-run -m numtorch.distributed.run`
    cmd += boot + ["--", args.training_script] + list(args.training_script_args)

    env = dict(os.environ)
    host, port = None, args.master_port
    if args.rdzv_endpoint and not args.standalone:
        host, _, p = args.rdzv_endpoint.rpartition(":")
        host = host or args.rdzv_endpoint
        port = int(p) if p.isdigit() else port
    host = args.master_addr or host or ("localhost" if nnodes == 1 else socket.gethostname())
    env.update({
        "MASTER_ADDR": host,
        "MASTER_PORT": str(port or _free_port()),
        "LOCAL_WORLD_SIZE": str(nproc),
        "GROUP_WORLD_SIZE": str(nnodes),
        "ROLE_NAME": args.role,
        "TORCHELASTIC_RUN_ID": args.rdzv_id if args.rdzv_id != "none" else uuid.uuid4().hex,
        "TORCHELASTIC_RESTART_COUNT": str(restart_count),
        "TORCHELASTIC_MAX_RESTARTS": str(args.max_restarts),
        "TORCHELASTIC_SIGNALS_TO_HANDLE": "SIGTERM,SIGINT,SIGHUP,SIGQUIT",
        "TORCHELASTIC_USE_AGENT_STORE": "False",  # no torch store: the rendezvous is MPI's
        "NUMTORCH_RUN_DIR": run_dir,
    })
    if _local_marks(args):  # every rank sees run_dir: init_process_group meets there first
        env["NUMTORCH_RUN_RENDEZVOUS"] = "1"
    if nproc > 1 and "OMP_NUM_THREADS" not in os.environ:
        env["OMP_NUM_THREADS"] = "1"
    if nproc > 1 and "OMP_NUM_THREADS" not in os.environ and restart_count == 0:
        print("*****************************************\nSetting OMP_NUM_THREADS environment "
              "variable for each process to be 1 in default, to avoid your system being "
              "overloaded, please further tune the variable for optimal performance in your "
              "application as needed. \n*****************************************",
              file=sys.stderr)
    return cmd, env


def _records(run_dir):
    out = {}
    for name in os.listdir(run_dir):
        if name.startswith("exit_") and name.endswith(".json"):
            try:
                with open(os.path.join(run_dir, name)) as f:
                    rec = json.load(f)
            except (OSError, ValueError):
                continue
            err = os.path.join(run_dir, f"error_{rec['rank']}.json")
            if os.path.exists(err):
                try:
                    with open(err) as f:
                        rec["error"] = json.load(f)
                except (OSError, ValueError):
                    pass
            out[rec["rank"]] = rec
    return out


def _describe(rec):
    code = rec["exitcode"]
    err = rec.get("error")
    if err:
        return f"{err['type']}: {err['message']}"
    if code < 0:
        try:
            sig = signal.Signals(-code).name
        except ValueError:
            sig = f"signal {-code}"
        return f"Signal {-code} ({sig}) received by PID {rec['pid']}"
    return "(no traceback recorded; see the rank's output above)"


def summary(script, records):
    """torchrun's failure report: every failed rank, the first failure as the root cause.

    A rank that failed because it saw another failed rank (its error file names that
    ``peer``) comes after it whatever the times say: the two records are written by different
    processes, and the one that saw the death may write first."""
    failed_ranks = {r["rank"] for r in records.values() if r["exitcode"] != 0}
    failed = sorted((r for r in records.values() if r["exitcode"] != 0),
                    key=lambda r: (r.get("error", {}).get("peer") in failed_ranks,
                                   r.get("error", {}).get("time", r["time"])))
    if not failed:
        return None
    bar = "=" * 60
    lines = [bar, f"{script} FAILED", "-" * 60, "Failures:"]

    def block(r):
        t = datetime.datetime.fromtimestamp(r.get("error", {}).get("time", r["time"]))
        return [f"  time      : {t:%Y-%m-%d_%H:%M:%S}", f"  host      : {r['host']}",
                f"  rank      : {r['rank']} (local_rank: {r['local_rank']})",
                f"  exitcode  : {r['exitcode']} (pid: {r['pid']})",
                f"  error     : {_describe(r)}"]

    if len(failed) == 1:
        lines.append("  <NO_OTHER_FAILURES>")
    for i, r in enumerate(failed[1:], start=1):
        lines += [f"[{i}]:"] + block(r)
    lines += ["-" * 60, "Root Cause (first observed failure):", "[0]:"] + block(failed[0])
    lines.append(bar)
    return "\n".join(lines)


def run(args):
    """Start the job described by ``args`` and wait for it; returns the exit status.

    When a rank fails and restarts are left (``--max-restarts``), every rank is stopped and
    the whole group is started again with TORCHELASTIC_RESTART_COUNT one higher, as
    torchrun's agent does; the failure report comes only when no restart is left."""
    if args.node_rank > 0 and not (args.hosts or args.hostfile):
        print(f"numtorch.distributed.run: node rank {args.node_rank}: with MPI the launcher on "
              "node 0 starts the ranks of every node (pass --hosts or --hostfile there); "
              "nothing to do here", file=sys.stderr)
        return 0
    max_restarts = max(args.max_restarts, 0)
    for restart_count in range(max_restarts + 1):
        last = restart_count == max_restarts
        status, records = _run_once(args, restart_count, last)
        if status == 0 or last:
            break
        left = max_restarts - restart_count
        print(f"numtorch.distributed.run: [{args.role}] worker group FAILED "
              f"({_failed_ranks(records)}). {left}/{max_restarts} attempts left; will restart "
              "worker group", file=sys.stderr)
    report = summary(args.training_script, records)
    if report:
        print(report, file=sys.stderr)
        return 1
    return status


def _failed_ranks(records):
    ranks = sorted(r["rank"] for r in records.values() if r["exitcode"] != 0)
    return "failed rank(s): " + (", ".join(map(str, ranks)) if ranks else "mpiexec")


def _run_once(args, restart_count, last):
    """One start of every rank: (0 or 1, the ranks' exit records).

    With restarts left (``last`` false) a failed rank stops the others at once; on the last
    attempt they get ``--failure-grace`` seconds to report it first."""
    keep = args.log_dir is not None
    run_dir = tempfile.mkdtemp(prefix="numtorch_run_", dir=args.log_dir)
    try:
        cmd, env = build_command(args, run_dir, restart_count)
        proc = subprocess.Popen(cmd, env=env)
        stop = _forward_signals(proc)
        grace = args.failure_grace if last else 0.0
        first_failure = None
        while proc.poll() is None:
            time.sleep(args.monitor_interval)
            if first_failure is None:
                bad = [r for r in _records(run_dir).values() if r["exitcode"] != 0]
                if bad:
                    first_failure = time.monotonic()
                    if _local_marks(args) and any(not _arrived(run_dir, r["rank"])
                                                  for r in bad):
                        # it failed before joining: the others wait for it in the
                        # rendezvous (or never join), none can report it
                        grace = 0.0
            if first_failure is not None and time.monotonic() - first_failure >= grace:
                _mark_stopping(run_dir)
                proc.send_signal(signal.SIGINT)  # hydra stops every remaining rank
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        stop()
        records = _records(run_dir)
        failed = proc.returncode != 0 or any(r["exitcode"] != 0 for r in records.values())
        return (1 if failed else 0), records
    finally:
        if not keep:
            shutil.rmtree(run_dir, ignore_errors=True)


def _local_marks(args):
    """Whether every rank runs on this machine (and so shares the run folder)."""
    return _nnodes(args.nnodes) == 1 and not (args.hosts or args.hostfile)


def _arrived(run_dir, rank):
    """Whether ``rank`` reached init_process_group's rendezvous (``_bootstrap.wait_for_peers``)."""
    return os.path.exists(os.path.join(run_dir, f"arrive_{rank}"))


def _mark_stopping(run_dir):
    """Tell the ranks still in init_process_group's rendezvous that the launcher stops them."""
    try:
        with open(os.path.join(run_dir, "stopping"), "w"):
            pass
    except OSError:
        pass


def _forward_signals(proc):
    old = {}

    def handler(signum, frame):
        try:
            proc.send_signal(signum)
        except ProcessLookupError:
            pass

    for s in (signal.SIGINT, signal.SIGTERM):
        old[s] = signal.signal(s, handler)

    def restore():
        for s, h in old.items():
            signal.signal(s, h)

    return restore


def main(args=None):
    """Entry point of ``python -m numtorch.distributed.run``."""
    sys.exit(run(parse_args(args)))


if __name__ == "__main__":
    main()
