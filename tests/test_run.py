"""``python -m numtorch.run``: programs written for torch run unchanged, in child processes too.

Each program in ``tests/run_programs`` runs twice, under real torch (plain ``python``) and
under the launcher, at the same time; their outputs must agree. The programs print only
facts that do not depend on which library answered (values, flags, module identities).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from numtorch.torch_version import TorchVersion

PROGRAMS = Path(__file__).parent / "run_programs"
LAUNCHER = [sys.executable, "-m", "numtorch.run"]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
       "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parents[1]),
                                                   os.environ.get("PYTHONPATH")]))}


def _start(cmd, cwd):
    return subprocess.Popen(cmd, cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _both(args, workdir, *, module=False):
    """Run ``args`` under torch and under the launcher concurrently, each in its own copy of
    ``workdir`` (subfolders ``torch`` and ``numtorch``); return both (status, out, err)."""
    plain = [sys.executable, *(["-m"] if module else []), *args]
    launched = [*LAUNCHER, *(["-m"] if module else []), *args]
    procs = [_start(plain, workdir / "torch"), _start(launched, workdir / "numtorch")]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=240)
        results.append((p.returncode, out, err))
    return results


def _numbers_close(a, b):
    """Lines equal, except numbers in 'loss' lines, which agree to 1e-4 relative."""
    assert len(a) == len(b), (a, b)
    for x, y in zip(a, b):
        if "loss" in x:
            fx, fy = (float(s.split(":")[1]) for s in (x, y))
            assert abs(fx - fy) <= 1e-4 * max(1.0, abs(fy)), (x, y)
        else:
            assert x == y


@pytest.fixture
def workdir(tmp_path):
    for name in ("torch", "numtorch"):
        (tmp_path / name / "out").mkdir(parents=True)
        os.symlink(PROGRAMS / "userpkg", tmp_path / name / "userpkg")
    return tmp_path


def test_training_program_with_spawned_workers(workdir):
    script = PROGRAMS / "train_spawn.py"
    (torch_run, ours) = _both([str(script), "out", "--epochs", "3"], workdir)
    for rc, out, err in (torch_run, ours):
        assert rc == 0, err
    _numbers_close(ours[1].splitlines(), torch_run[1].splitlines())
    assert "workers: [0, 1]" in ours[1] and "child 0: __mp_main__ True" in ours[1]


def test_program_facts_match_torch(workdir):
    """Module identity, deep imports, pickled names, missing modules, ``__main__``, argv."""
    (torch_run, ours) = _both([str(PROGRAMS / "hook_checks.py"), "a", "--b"], workdir)
    assert torch_run[0] == 0, torch_run[2]
    assert ours[0] == 0, ours[2]
    assert ours[1] == torch_run[1]


def test_module_mode_spawn_children_and_exit_code(workdir):
    """``-m pkg.mod``: children started with spawn re-import the main module by name."""
    (torch_run, ours) = _both(["userpkg.cli", "spawn"], workdir, module=True)
    assert torch_run[0] == 3, torch_run[2]
    assert (ours[0], ours[1], ours[2]) == (3, torch_run[1], torch_run[2])
    assert "'__mp_main__'" in ours[1]
    # the other start methods: forkserver children also re-import the main module; fork
    # children inherit it (and the hook) from the parent
    for method, child_main in [("forkserver", "__mp_main__"), ("fork", "__main__")]:
        done = subprocess.run([*LAUNCHER, "-m", "userpkg.cli", method], cwd=workdir / "numtorch",
                              env=ENV, capture_output=True, text=True, timeout=240)
        want = torch_run[1].replace("'spawn'", repr(method)).replace("'__mp_main__'",
                                                                     repr(child_main))
        assert (done.returncode, done.stdout) == (3, want), done.stderr


def test_torchvision_names_map_to_numtorchvision(workdir):
    (workdir / "vision.py").write_text(
        "import sys, importlib, numtorchvision, torchvision\n"
        "print(torchvision is numtorchvision, sys.modules['torchvision'] is numtorchvision)\n"
        "try:\n    import torchvision.no_such_module\n"
        "except ModuleNotFoundError as exc:\n    print(exc.name, exc)\n")
    done = subprocess.run([*LAUNCHER, "vision.py"], cwd=workdir, env=ENV, capture_output=True,
                          text=True, timeout=240)
    assert done.stdout.splitlines() == [
        "True True",
        "torchvision.no_such_module No module named 'torchvision.no_such_module'"], done.stderr


def test_uncaught_exception_prints_the_programs_traceback(workdir):
    (torch_run, ours) = _both([str(PROGRAMS / "fail.py")], workdir)
    assert torch_run[0] == ours[0] == 1
    assert ours[2] == torch_run[2]
    assert "numtorch" not in ours[2] and ours[2].startswith("Traceback")


def test_launcher_errors(workdir):
    missing = subprocess.run([*LAUNCHER, "no_such.py"], cwd=workdir, env=ENV,
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "can't open file" in missing.stderr
    assert "No such file or directory" in missing.stderr
    no_module = subprocess.run([*LAUNCHER, "-m", "torch.no_such_module"], cwd=workdir, env=ENV,
                               capture_output=True, text=True)
    assert no_module.returncode == 1
    assert "No module named 'torch.no_such_module'" in no_module.stderr
    usage = subprocess.run([*LAUNCHER], cwd=workdir, env=ENV, capture_output=True, text=True)
    assert usage.returncode == 2 and "usage:" in usage.stderr


def test_console_script(workdir):
    """``numtorch-run`` (pyproject [project.scripts]) behaves as ``python -m numtorch.run``."""
    script = Path(sys.executable).with_name("numtorch-run")
    assert script.exists(), "reinstall numtorch (pip install -e .) to create numtorch-run"
    (workdir / "prog.py").write_text(
        "import sys, torch, torch.nn.functional as F\n"
        "print(sys.argv[1:], F.relu(torch.tensor([-1.0, 2.0])).tolist(), "
        "torch.__version__ >= '2.0')\n"
        "sys.exit(int(sys.argv[1]))\n")
    done = subprocess.run([str(script), "prog.py", "4", "x"], cwd=workdir, env=ENV,
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (4, "['4', 'x'] [0.0, 2.0] True\n"), done.stderr


# -- torch.__version__ ----------------------------------------------------------------------
VERSIONS = ["2.13.0+cpu", "2.13.0", "2.13", "2.2.1", "1.13.1", "2.13.0rc1", "2.13.0.dev20250101",
            "2.13.0.post1", "2.13.0a0+git1234", "2.13.0+cpu.1", "1!0.1", "v2.13.0", " 2.13.0 ",
            "abc", "2.13.0+numtorch0.1.0"]
OTHERS = VERSIONS + [(2, 13), (2, 13, 0), (1, 9, 0), (3,)]


@pytest.mark.parametrize("version", VERSIONS)
def test_torch_version_compares_as_torch(version):
    import operator

    from torch.torch_version import TorchVersion as Theirs

    for other in OTHERS:
        for op in (operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge):
            results = []
            for cls in (Theirs, TorchVersion):
                try:
                    results.append(op(cls(version), other))
                except TypeError as exc:
                    results.append(type(exc))
            assert results[1] == results[0], (version, op.__name__, other)
    for bad in [None, 3, (2, "x")]:
        with pytest.raises(TypeError):
            TorchVersion(version) < bad  # noqa: B015


def test_reported_version():
    """Outside the launcher numtorch reports its own release; inside, torch's plus a label."""
    import packaging.version

    import numtorch
    from numtorch import version

    assert numtorch.__version__ == version.numtorch_version
    compat = version.torch_compatible_version()
    assert isinstance(compat, TorchVersion)
    assert re.fullmatch(r"2\.13\.0\+numtorch[0-9.]+", compat)
    assert packaging.version.parse(compat).release == (2, 13, 0)
    assert compat >= "2.0" and compat > "2.13.0rc1" and compat < "2.13.1"
    assert version.cuda is None and version.hip is None and version.debug is False


def test_module_mode_runs_an_aliased_torch_module(workdir):
    """``-m torch.X`` runs numtorch.X (an alias has no code object of its own)."""
    done = subprocess.run([*LAUNCHER, "-m", "torch.utils.collect_env_probe_missing"], cwd=workdir,
                          env=ENV, capture_output=True, text=True)
    assert "No module named" in done.stderr
    (workdir / "probe.py").write_text("import torch; print(torch.distributed.is_available())\n")
    done = subprocess.run([*LAUNCHER, "-m", "torch.distributed.run", "--help"], cwd=workdir,
                          env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "nproc" in done.stdout


def test_aliased_modules_keep_their_own_spec(tmp_path):
    # the import system overwrote an aliased module's __spec__ with the alias's, so its later
    # relative imports warned "__package__ != __spec__.parent" (ImportWarning on 3.11,
    # DeprecationWarning on 3.12: torch.utils.checkpoint under a GPU user's program)
    script = tmp_path / "prog.py"
    script.write_text(
        "import warnings\n"
        "import torch\n"
        "from torch.utils.checkpoint import checkpoint\n"
        "import torch.utils.checkpoint as c\n"
        "m = torch.nn.Linear(2, 2)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    checkpoint(m, torch.ones(1, 2, requires_grad=True), use_reentrant=False)\n"
        "print(c.__spec__.name, [str(x.message) for x in w])\n")
    out = subprocess.run([sys.executable, "-m", "numtorch.run", str(script)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "numtorch.utils.checkpoint []"
