"""numtorch.distributed, DDP, SyncBatchNorm and the launcher in real separate processes.

Each 2-rank scenario script runs once per module (few mpiexec launches keep this file fast);
the tests below read the verdicts the ranks recorded. Every launch has a timeout, so a hang
fails a test instead of blocking the run.
"""

import json
import os
import re
import subprocess
import sys

import pytest

from . import _launch

pytestmark = pytest.mark.skipif(not os.path.exists(_launch.MPIEXEC),
                                reason="MPI (the distributed extra) is not installed")


def _run_ranks(tmp_path_factory, script):
    out = tmp_path_factory.mktemp(script.split(".")[0])
    proc = _launch.mpiexec(script, out, timeout=120)
    try:
        return _launch.results(out)
    except FileNotFoundError:
        pytest.fail(f"{script} left no results:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")


@pytest.fixture(scope="module")
def collectives(tmp_path_factory):
    return _run_ranks(tmp_path_factory, "collectives.py")


@pytest.fixture(scope="module")
def ddp(tmp_path_factory):
    return _run_ranks(tmp_path_factory, "ddp.py")


@pytest.mark.parametrize("family", [
    "all_reduce/", "reduce/", "broadcast/", "all_gather/", "all_gather_into_tensor/",
    "gather/", "scatter/", "reduce_scatter/", "reduce_scatter_tensor/", "all_to_all/",
    "all_to_all_single/", "async/", "p2p/", "objects/", "groups/", "barrier/", "mismatch/",
    "after_mismatch/", "destroy"])
def test_collectives_against_numpy(collectives, family):
    cases = [c for r in collectives for c in r if c.startswith(family)]
    assert cases, f"no {family} cases ran"
    assert not _launch.failures(collectives, family), "\n".join(
        _launch.failures(collectives, family)[:20])


def test_every_dtype_op_and_layout_ran(collectives):
    names = set(collectives[0])
    for dt in ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int32", "int64",
               "bool", "complex64", "complex128"):
        for layout in ("contiguous", "non_contiguous", "zero_dim", "empty"):
            for op in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
                assert f"all_reduce/{dt}/{layout}/{op}" in names


@pytest.mark.parametrize("family", ["ddp_equivalence/", "ddp/", "syncbn/"])
def test_ddp_and_sync_batchnorm(ddp, family):
    cases = [c for r in ddp for c in r if c.startswith(family)]
    assert cases, f"no {family} cases ran"
    assert not _launch.failures(ddp, family), "\n".join(_launch.failures(ddp, family))


def _report(text):
    """Every ``REPORT {json}`` a rank printed (mpiexec may interleave the ranks' lines)."""
    decoder, out = json.JSONDecoder(), []
    for m in re.finditer(r"REPORT ", text):
        out.append(decoder.raw_decode(text, m.end())[0])
    return out


def _normalise(value):
    return json.loads(json.dumps(value).replace("numtorch.", "torch.").replace(
        "numtorch", "torch"))


def test_errors_and_names_match_torch():
    """Misuse in a one-rank job: numtorch's exception classes and messages are torch's."""
    libs = (("torch", 29611), ("numtorch", 29612))
    procs = _launch.run_all([[sys.executable, os.path.join(_launch.RANKS, "torch_misuse.py"),
                              lib, str(port)] for lib, port in libs], timeout=120)
    got = {}
    for (lib, _), proc in zip(libs, procs):
        reports = _report(proc.stdout)
        assert reports, proc.stderr[-3000:]
        got[lib] = reports[0]
    assert got["torch"].keys() == got["numtorch"].keys()
    diff = {k: (got["torch"][k], got["numtorch"][k]) for k in got["torch"]
            if _normalise(got["torch"][k]) != _normalise(got["numtorch"][k])}
    assert not diff, json.dumps(diff, indent=1)


_VOLATILE = ("MASTER_PORT", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_ERROR_FILE",
             "TORCHELASTIC_USE_AGENT_STORE")


def _env_by_rank(reports):
    return {int(r["env"]["RANK"]): r for r in reports}


def test_launcher_environment_matches_torchrun():
    ours, theirs = _launch.run_all([
        _launch.launcher_cmd("env_report.py", "--init", "a", "-b"),
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node=2",
         os.path.join(_launch.RANKS, "env_report.py"), "a", "-b"]], timeout=120)
    assert ours.returncode == 0, ours.stdout[-3000:] + ours.stderr[-3000:]
    assert theirs.returncode == 0, theirs.stderr[-3000:]
    ours_by, theirs_by = _env_by_rank(_report(ours.stdout)), _env_by_rank(_report(theirs.stdout))
    assert sorted(ours_by) == sorted(theirs_by) == [0, 1]
    for rank in (0, 1):
        o, t = ours_by[rank], theirs_by[rank]
        assert o["argv"] == ["--init", "a", "-b"] and t["argv"] == ["a", "-b"]
        assert set(o["env"]) == set(t["env"])
        same = {k: v for k, v in t["env"].items() if k not in _VOLATILE}
        assert {k: o["env"][k] for k in same} == same
        assert o["env"]["MASTER_PORT"].isdigit()
        # env:// rendezvous under the launcher: ranks agree with RANK/WORLD_SIZE
        assert o["dist"] == [rank, 2, 1.0, True]


def test_legacy_launcher_and_unchanged_torch_programs():
    legacy, alias = _launch.run_all([
        _launch.launcher_cmd("env_report.py", "x", module="numtorch.distributed.launch"),
        [sys.executable, "-m", "numtorch.run", "-m", "numtorch.distributed.run",
         "--nproc-per-node=2", os.path.join(_launch.RANKS, "torch_program.py")]], timeout=120)
    assert legacy.returncode == 0, legacy.stderr[-3000:]
    by = _env_by_rank(_report(legacy.stdout))
    assert [by[r]["argv"] for r in (0, 1)] == [["--local-rank=0", "x"], ["--local-rank=1", "x"]]
    assert "deprecated" in legacy.stderr
    # `import torch` in the ranks is numtorch when the launcher runs under numtorch.run
    assert alias.returncode == 0, alias.stdout[-3000:] + alias.stderr[-3000:]
    reports = sorted(_report(alias.stdout), key=lambda r: r["rank"])
    assert reports == [{"torch": "numtorch", "rank": r, "world": 2, "same_weights": True}
                       for r in (0, 1)]


def test_plain_mpiexec_env_rendezvous():
    proc = _launch.mpiexec("env_report.py", "--init")
    assert proc.returncode == 0, proc.stderr[-3000:]
    reports = _report(proc.stdout)
    assert sorted(r["dist"][0] for r in reports) == [0, 1]
    assert all(r["dist"][1:3] == [2, 1.0] for r in reports)


def _rank0_error(text):
    m = re.search(r"rank 0 failed after ([\d.]+) s: (\w+): (.*)", text)
    assert m, text[-3000:]
    return float(m.group(1)), m.group(2), m.group(3)


@pytest.mark.parametrize("mode, timeout, expect", [
    ("raise", 20, r"rank 1 \(pid \d+ on .+\) failed with ValueError: rank one gives up"),
    ("hang", 2, r"timed out after 2 s: rank 1 did not answer"),
    ("exit", 20, r"rank 1 \(pid \d+ on .+\) left the job"),
])
def test_failing_rank_is_named_plain_mpiexec(mode, timeout, expect):
    proc = _launch.mpiexec("failures.py", mode, timeout, timeout=60)
    waited, kind, message = _rank0_error(proc.stdout)
    assert kind == "DistBackendError"
    assert re.search(expect, message), message
    assert waited < timeout + 3
    assert proc.returncode != 0


def test_killed_rank_is_named_under_launcher():
    proc = _launch.launcher("failures.py", "kill", 20, timeout=90)
    waited, kind, message = _rank0_error(proc.stdout)
    assert kind == "DistBackendError" and waited < 5
    assert re.search(r"rank 1 \(pid \d+ on .+\) is no longer running", message), message
    assert proc.returncode == 1
    report = proc.stderr
    assert "failures.py FAILED" in report and "Root Cause" in report
    root = report[report.index("Root Cause"):]
    assert "rank      : 1 (local_rank: 1)" in root and "Signal 9 (SIGKILL)" in root


def _mpi_env():
    """The environment of a process that must take the MPI transport (started alone)."""
    return dict(_launch.env(), NUMTORCH_DIST_TRANSPORT="mpi")


def test_without_mpi4py_the_error_names_the_extra():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import numtorch.distributed as d\n"
            "assert not d.is_mpi_available()\n"
            "try:\n    d.init_process_group('gloo', world_size=1, rank=0,"
            " init_method='tcp://127.0.0.1:1')\n"
            "except RuntimeError as e:\n    print('ERR', e)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env=_mpi_env())
    assert proc.returncode == 0, proc.stderr
    assert "numtorch[distributed]" in proc.stdout and "mpi4py" in proc.stdout


def test_world_size_that_mpi_did_not_start_is_a_clear_error():
    code = ("import numtorch.distributed as d\n"
            "try:\n    d.init_process_group('gloo', init_method='tcp://127.0.0.1:1',"
            " world_size=2, rank=0)\n"
            "except RuntimeError as e:\n    print('ERR', e)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env=_mpi_env())
    assert "world_size is 2 but MPI started 1 process" in proc.stdout, proc.stderr
    assert "mpiexec -n 2" in proc.stdout and "numtorch.distributed.run" in proc.stdout


def test_killed_rank_under_plain_mpiexec_ends_the_job():
    """MPICH's mpiexec stops every rank when one is killed: the job ends, it never hangs."""
    import time

    start = time.monotonic()
    proc = _launch.mpiexec("failures.py", "kill", 20, timeout=60)
    assert proc.returncode != 0
    assert time.monotonic() - start < 20
    assert "rank 0 finished" not in proc.stdout


def test_root_cause_is_the_dead_peer_even_when_the_survivor_wrote_first():
    """The race behind the flaky launcher test: rank 0 sees killed rank 1 (a zombie) and
    writes its report before rank 1's supervisor reaps it and records the time. The report
    still names rank 1, because rank 0's error file says which peer caused its failure."""
    from numtorch.distributed.run import summary

    base = {"host": "h", "time": 100.0}
    records = {
        0: dict(base, rank=0, local_rank=0, pid=10, exitcode=1,
                error={"time": 100.5, "type": "DistBackendError", "peer": 1,
                       "message": "rank 1 (pid 11 on h) is no longer running"}),
        1: dict(base, rank=1, local_rank=1, pid=11, exitcode=-9, time=100.9),
    }
    root = summary("job.py", records).split("Root Cause")[1]
    assert "rank      : 1 (local_rank: 1)" in root and "Signal 9 (SIGKILL)" in root
    records[0]["error"]["peer"] = None  # without the link, the earlier record wins
    root = summary("job.py", records).split("Root Cause")[1]
    assert "rank      : 0 (local_rank: 0)" in root
