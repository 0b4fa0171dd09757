"""The process-wide effects of ``import numtorch`` live in one module, with their opt-outs."""

import sys

import pytest

import numtorch
from numtorch import _process_settings, backend


def test_keep_malloc_leaves_the_allocator_alone(monkeypatch):
    monkeypatch.setenv("NUMTORCH_KEEP_MALLOC", "1")
    assert _process_settings.tune_allocator() is False


def test_glibc_variables_of_the_user_win(monkeypatch):
    monkeypatch.delenv("NUMTORCH_KEEP_MALLOC", raising=False)
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "131072")
    assert _process_settings.tune_allocator() is False


def test_allocator_is_tuned_on_glibc(monkeypatch):
    monkeypatch.delenv("NUMTORCH_KEEP_MALLOC", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    expected = sys.platform.startswith("linux")
    assert _process_settings.tune_allocator() is expected


def test_backend_changes_nothing_process_wide():
    assert not hasattr(backend, "tune_allocator")
    assert numtorch.log(numtorch.zeros(1)).item() == float("-inf")


def _spin_setting(env, code="import numtorch"):
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT")} | env
    out = subprocess.run([sys.executable, "-c", code + "; import os; "
                          "print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))"],
                         env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_openblas_spin_is_shortened_before_numpy_loads():
    assert _spin_setting({}) == "18"


def test_openblas_spin_of_the_user_wins():
    assert _spin_setting({"OPENBLAS_THREAD_TIMEOUT": "5"}) == "5"
    assert _spin_setting({"GOTO_THREAD_TIMEOUT": "7"}) == "None"
    assert _spin_setting({"OPENBLAS_THREAD_TIMEOUT": "5"}, "import numpy, numtorch") == "5"


_NUMPY_FIRST = """
import ctypes, numpy as np
a = np.arange(90000, dtype=np.float32).reshape(300, 300) / 9e4
want = a.astype(np.float64) @ a.astype(np.float64)
a @ a  # OpenBLAS's workers have started and now spin
libs = [ctypes.CDLL(l.split()[-1]) for l in open('/proc/self/maps') if 'openblas' in l]
count = getattr(libs[0], 'scipy_openblas_get_num_threads64_', None) if libs else None
before = count() if count else None
import numtorch
from numtorch import _process_settings as ps
after = count() if count else None
assert before == after, (before, after)
assert np.allclose(a @ a, want, rtol=1e-5)
print(bool(libs) == bool(ps._loaded_openblas_libraries()), end='; ')
pass"""


def test_openblas_spin_is_shortened_when_numpy_came_first():
    if not sys.platform.startswith("linux"):
        pytest.skip("OpenBLAS's loaded libraries are found through /proc")
    assert _spin_setting({}, _NUMPY_FIRST) == "True; 18"


def _freeze_count(env):
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "NUMTORCH_GC_FREEZE"} | env
    out = subprocess.run([sys.executable, "-c", "import gc, numtorch; "
                          "print(gc.get_freeze_count() > 1000, gc.isenabled())"],
                         env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_import_time_objects_leave_the_collectors_walks():
    assert _freeze_count({}) == "True True"  # frozen, and the collector still runs


def test_gc_freeze_opt_out():
    assert _freeze_count({"NUMTORCH_GC_FREEZE": "0"}) == "False True"
