"""BLAS thread counts: the user's setting, one-thread blocks, and the cap that follows the load
(numtorch/_threads.py). The load is faked through ``_running_elsewhere``."""

import pytest

import numtorch
from numtorch import _threads

pytestmark = pytest.mark.skipif(_threads._blas() is None, reason="NumPy's BLAS not found")


def _blas_count():
    return int(_threads._blas()[1]())


@pytest.fixture
def load(monkeypatch):
    """Set how many tasks of other processes run; every fit_blas_threads call then looks."""
    box = {"others": 0}
    monkeypatch.setattr(_threads, "_running_elsewhere", lambda: box["others"])
    monkeypatch.setattr(_threads, "_cores", lambda: 2)
    monkeypatch.setitem(_threads._state, "adapt", True)
    monkeypatch.setitem(_threads._state, "cap", None)
    monkeypatch.setitem(_threads._state, "calm", 0)
    monkeypatch.setitem(_threads._state, "busy", 0)
    old = numtorch.get_num_threads()
    numtorch.set_num_threads(2)

    def look(others, times=None):
        # a load that lasts: seen on as many looks in a row as a cap needs
        box["others"] = others
        for _ in range(times or (_threads._BUSY if others else 1)):
            _threads._state["next"] = 0.0
            _threads.fit_blas_threads()

    yield look
    _threads._state["cap"] = None
    numtorch.set_num_threads(old)


def test_busy_cores_cap_blas_but_not_the_users_setting(load):
    load(1)  # one other runnable task: one core left
    assert _blas_count() == 1
    assert numtorch.get_num_threads() == 2
    load(0)  # quiet again: the threads come back only after a few calm looks
    assert _blas_count() == 1
    for _ in range(_threads._CALM):
        load(0)
    assert _blas_count() == 2


def test_a_single_busy_look_takes_no_core(load):
    # an idle machine's kernel threads show up now and then for one look: no cap for that
    load(0)
    for _ in range(5):
        load(1, times=1)
        load(0)
    assert _blas_count() == 2


def test_a_busy_look_resets_the_calm_count(load):
    load(3)
    load(0)
    load(0)
    load(1)
    load(0)
    load(0)
    assert _blas_count() == 1


def test_set_num_threads_under_a_cap_applies_the_capped_count(load):
    load(1)
    numtorch.set_num_threads(4)
    assert numtorch.get_num_threads() == 4
    assert _blas_count() == 1
    for _ in range(_threads._CALM):
        load(0)
    assert _blas_count() == 2  # two cores: the cap, below the user's 4


def test_one_thread_block_restores_the_count_in_force_then(load):
    with _threads.single_blas_thread():
        assert _blas_count() == 1
        load(1)  # the cap changes inside a block: applied when the block ends
        assert numtorch.get_num_threads() == 2
    assert _blas_count() == 1
    numtorch.set_num_threads(2)
    for _ in range(_threads._CALM):
        load(0)
    with _threads.single_blas_thread():
        numtorch.set_num_threads(2)
        assert _blas_count() == 1
    assert _blas_count() == 2


def test_on_a_share_of_the_machine_others_count_in_proportion(load, monkeypatch):
    monkeypatch.setattr(_threads.os, "cpu_count", lambda: 8)  # two of eight cores are ours
    load(3)  # three tasks elsewhere on the machine: most likely not on our cores
    assert _blas_count() == 2
    load(4)  # four: one of them, in proportion, on ours
    assert _blas_count() == 1


def test_adaptation_off_keeps_the_users_count(load, monkeypatch):
    monkeypatch.setitem(_threads._state, "adapt", False)
    load(5)
    assert _blas_count() == 2


def test_matmul_looks_at_the_load(load, monkeypatch):
    box = {"others": 1}
    monkeypatch.setattr(_threads, "_running_elsewhere", lambda: box["others"])
    a = numtorch.ones(64, 64)
    for _ in range(_threads._BUSY):  # the load lasts over several looks
        _threads._state["next"] = 0.0
        assert numtorch.allclose(a @ a, numtorch.full((64, 64), 64.0))
    assert _blas_count() == 1


def test_one_user_thread_skips_the_load_reading(load, monkeypatch):
    # one thread cannot be capped further: the /proc reading is skipped, and the threads
    # come back capped by the load once the user asks for two again
    looks = []
    monkeypatch.setattr(_threads, "_running_elsewhere", lambda: looks.append(1) or 1)
    numtorch.set_num_threads(1)
    for _ in range(_threads._BUSY):
        _threads._state["next"] = 0.0
        _threads.fit_blas_threads()
    assert looks == [] and _blas_count() == 1
    numtorch.set_num_threads(2)
    for _ in range(_threads._BUSY):
        _threads._state["next"] = 0.0
        _threads.fit_blas_threads()
    assert len(looks) == _threads._BUSY and _blas_count() == 1


def test_running_elsewhere_reads_proc():
    if not _threads._state["adapt"] and not _threads.os.path.exists("/proc/loadavg"):
        pytest.skip("no /proc/loadavg")
    n = _threads._running_elsewhere()
    assert isinstance(n, int) and n >= 0


def test_set_num_threads_reaches_scipys_blas():
    pytest.importorskip("scipy.linalg")
    lib = _threads._scipy_blas()
    if lib is None:
        pytest.skip("SciPy's BLAS not found")
    old = numtorch.get_num_threads()
    try:
        numtorch.set_num_threads(1)
        assert int(lib[1]()) == 1
        with _threads.single_blas_thread():
            assert int(lib[1]()) == 1
    finally:
        numtorch.set_num_threads(old)


def test_set_num_threads_rejects_what_torch_rejects():
    import torch

    for bad in (0, -1, 1.5, True):
        with pytest.raises(RuntimeError) as want:
            torch.set_num_threads(bad)
        with pytest.raises(RuntimeError) as got:
            numtorch.set_num_threads(bad)
        assert str(got.value) == str(want.value)
