"""Per-rank supervisor started by ``numtorch.distributed.run`` through mpiexec.

It turns the MPI launcher's variables (hydra's PMI_RANK/MPI_LOCALRANKID, Open MPI's
OMPI_COMM_WORLD_*, slurm's) into torchrun's (RANK, LOCAL_RANK, ...), runs the training
command as a child process (which joins the MPI job through the inherited PMI connection),
forwards SIGINT/SIGTERM to it, and records how it ended for the launcher's summary. The child
dies with its supervisor (Linux parent-death signal), so a stopped job leaves no orphans.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time

_SOURCES = {
    "rank": ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"),
    "size": ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"),
    "local_rank": ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"),
    "local_size": ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "LOCAL_WORLD_SIZE"),
}


def _first(names, default=None):
    for n in names:
        if n in os.environ:
            return int(os.environ[n])
    return default


def rank_environment():
    """torchrun's per-rank variables computed from the MPI launcher's."""
    rank = _first(_SOURCES["rank"], 0)
    size = _first(_SOURCES["size"], 1)
    local_size = _first(_SOURCES["local_size"], size)
    local_rank = _first(_SOURCES["local_rank"], rank % max(local_size, 1))
    node = rank // max(local_size, 1)
    return {"RANK": str(rank), "WORLD_SIZE": str(size), "LOCAL_RANK": str(local_rank),
            "LOCAL_WORLD_SIZE": str(local_size), "GROUP_RANK": str(node),
            "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": str(size),
            "TORCH_NCCL_ASYNC_ERROR_HANDLING": os.environ.get(
                "TORCH_NCCL_ASYNC_ERROR_HANDLING", "1")}


def wait_for_peers(timeout_s):
    """Under ``numtorch.distributed.run`` on one machine: meet the other ranks before MPI starts.

    MPI's start (MPI_Init) waits, without any time limit and holding Python's lock, for every
    rank of the job; a rank that ended (or never calls init_process_group) would leave the
    others blocked there for good. So each rank first leaves a mark in the launcher's run
    folder and waits, in Python, for every other rank's mark; after ``timeout_s`` it raises
    DistStoreError as torch's rendezvous does. The launcher also reads the marks: a rank that
    failed before its mark stops the others at once (they could not report it).
    Nothing is done outside the launcher or across several machines (no shared run folder).
    """
    run_dir = os.environ.get("NUMTORCH_RUN_DIR")
    if (not run_dir or os.environ.get("NUMTORCH_RUN_RENDEZVOUS") != "1"
            or not os.path.isdir(run_dir) or "RANK" not in os.environ):
        return
    rank, size = int(os.environ["RANK"]), int(os.environ.get("WORLD_SIZE", "1"))
    try:
        with open(os.path.join(run_dir, f"arrive_{rank}"), "w"):
            pass
    except OSError:
        return
    end = time.monotonic() + timeout_s
    delay = 0.005
    try:
        while True:
            missing = [r for r in range(size)
                       if not os.path.exists(os.path.join(run_dir, f"arrive_{r}"))]
            if not missing:
                return
            if time.monotonic() >= end:
                from ._world import DistStoreError

                # torch's words when a peer never publishes its address to the store
                raise DistStoreError(f"wait timeout after {round(timeout_s * 1000)}ms, "
                                     f"keys: /default_pg/0//cpu//0/{missing[0]}")
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
    except KeyboardInterrupt:
        if os.path.exists(os.path.join(run_dir, "stopping")):
            # stopped by the launcher: end as torchrun's stopped ranks do (SIGTERM, no
            # traceback); the summary lists it after the rank that failed
            sys.stdout.flush()
            sys.stderr.flush()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the signal ends the process
        raise


def _die_with_parent():
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # not Linux: no parent-death signal, the launcher still stops us
        pass


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    mode, alias = "python", False
    while argv and argv[0] in ("--no-python", "--module", "--torch"):
        flag = argv.pop(0)
        if flag == "--torch":
            alias = True  # run the program through numtorch.run: `import torch` is numtorch
        else:
            mode = {"--no-python": "exec", "--module": "module"}[flag]
    local_rank_arg = os.environ.get("NUMTORCH_RUN_LOCAL_RANK_ARG") == "1"
    if argv and argv[0] == "--":
        argv.pop(0)
    env = dict(os.environ)
    env.update(rank_environment())
    run_dir = env.get("NUMTORCH_RUN_DIR")
    rank = env["RANK"]
    if run_dir:
        env["TORCHELASTIC_ERROR_FILE"] = os.path.join(run_dir, f"error_{rank}.json")
    script, args = argv[0], argv[1:]
    if local_rank_arg:  # the legacy launcher passes --local-rank to the script
        args = [f"--local-rank={env['LOCAL_RANK']}"] + args
    python = [sys.executable, "-u"] + (["-m", "numtorch.run"] if alias else [])
    if mode == "exec":
        cmd = [script] + args
    elif mode == "module":
        cmd = python + ["-m", script] + args
    else:
        cmd = python + [script] + args
    keep = [int(env[k]) for k in ("PMI_FD",) if env.get(k, "").isdigit()]
    child = subprocess.Popen(cmd, env=env, pass_fds=keep, preexec_fn=_die_with_parent)

    stopping = os.path.join(run_dir, "stopping") if run_dir else None

    def forward(signum, frame):
        if signum == signal.SIGINT and stopping and os.path.exists(stopping):
            # the launcher stops the group through mpiexec's SIGINT; torchrun's ranks get
            # SIGTERM, which ends a rank even while its interpreter is still starting
            # (a SIGINT there is a fatal "Failed to import the site module", exit 1)
            signum = signal.SIGTERM
        try:
            child.send_signal(signum)
        except ProcessLookupError:
            pass

    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, forward)
    # hydra's proxy sends SIGUSR1 to the processes it started when another one ends (it
    # sees this supervisor, not the rank, as the MPI process); the rank learns about a
    # failed peer through numtorch.distributed itself, so the notice is not passed on
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    code = child.wait()
    if run_dir:
        record = {"rank": int(rank), "local_rank": int(env["LOCAL_RANK"]), "pid": child.pid,
                  "host": socket.gethostname(), "exitcode": code, "time": time.time()}
        try:
            with open(os.path.join(run_dir, f"exit_{rank}.json"), "w") as f:
                json.dump(record, f)
        except OSError:
            pass
    sys.stdout.flush()
    sys.stderr.flush()
    # no interpreter shutdown: it would restore SIGUSR1's default (terminate) action
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
