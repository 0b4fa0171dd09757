"""Autocast's casting wrappers and the ``__torch_function__`` dispatching wrappers come and go
in any order (a lazy module's placeholder ends at garbage collection, a mode can outlive the
autocast region it was entered in): autocast keeps casting as torch does, modes keep seeing
the calls, and once everything has ended the public functions are the plain ones again.

The user corpus showed it first: a lazy module left in a reference cycle by an earlier
program was collected inside an autocast region, and ``bmm``/``conv1d`` stopped casting."""

import gc

import numpy as np
import pytest
import torch

import numtorch

_ORIGINALS = {}


@pytest.fixture(autouse=True)
def _plain_functions():
    """Each test ends with the same plain functions it started with."""
    before = {(o, n): vars(o).get(n) for o, n in _watched()}
    yield
    after = {(o, n): vars(o).get(n) for o, n in _watched()}
    assert after == before


def _watched():
    return [(numtorch, "bmm"), (numtorch, "conv1d"), (numtorch.nn.functional, "linear"),
            (numtorch.nn.functional, "conv1d"), (numtorch.Tensor, "bmm"),
            (numtorch.Tensor, "__matmul__"), (numtorch, "lstm_cell")]


def _ops(lib, x, y, w, v, m):
    return [lib.bmm(x, y).dtype, x.bmm(y).dtype, (x @ y).dtype,
            lib.nn.functional.conv1d(v, w).dtype, lib.conv1d(v, w).dtype,
            lib.nn.functional.linear(m, m).dtype]


def _inputs(lib):
    rng = np.random.default_rng(5)
    return [lib.tensor(rng.standard_normal(s).astype(np.float32))
            for s in [(2, 3, 4), (2, 4, 5), (4, 3, 2), (1, 3, 6), (3, 3)]]


def _lazy_in_cycle(lib):
    lazy = lib.nn.LazyLinear(3)
    cycle = [lazy]
    cycle.append(cycle)  # only the collector frees it, at a moment of its choosing


class _Log:
    def __init__(self, lib):
        class Mode(lib.overrides.TorchFunctionMode):
            def __torch_function__(mode, func, types, args=(), kwargs=None):
                # (torch also reports reading .dtype, as __get__; numtorch does not)
                if getattr(func, "__name__", "") != "__get__":
                    self.seen.append(getattr(func, "__name__", str(func)))
                return func(*args, **(kwargs or {}))

        self.seen = []
        self.mode = Mode()


def _script(lib, order):
    """What a program sees when autocast, a TorchFunctionMode and a lazy placeholder's end
    interleave as ``order`` says."""
    x, y, w, v, m = _inputs(lib)
    out = []
    ac = lib.autocast("cpu", dtype=lib.bfloat16)
    log = _Log(lib)
    if order == "placeholder_collected_inside":
        _lazy_in_cycle(lib)
        with ac:
            out.append(_ops(lib, x, y, w, v, m))
            gc.collect()
            out.append(_ops(lib, x, y, w, v, m))
            with lib.autocast("cpu", enabled=False):
                out.append(_ops(lib, x, y, w, v, m))
            out.append(_ops(lib, x, y, w, v, m))
    elif order == "placeholder_made_inside_collected_after":
        with ac:
            _lazy_in_cycle(lib)
            out.append(_ops(lib, x, y, w, v, m))
        out.append(_ops(lib, x, y, w, v, m))
        gc.collect()
    elif order == "mode_outlives_autocast":
        ac.__enter__()
        log.mode.__enter__()
        out.append(_ops(lib, x, y, w, v, m))
        ac.__exit__(None, None, None)
        out.append(_ops(lib, x, y, w, v, m))
        log.mode.__exit__(None, None, None)
        out.append(sorted(set(log.seen)))
    elif order == "autocast_outlives_mode":
        log.mode.__enter__()
        ac.__enter__()
        out.append(_ops(lib, x, y, w, v, m))
        log.mode.__exit__(None, None, None)
        out.append(_ops(lib, x, y, w, v, m))
        ac.__exit__(None, None, None)
        out.append(sorted(set(log.seen)))
    elif order == "mode_inside_autocast":
        with ac:
            with log.mode:
                out.append(_ops(lib, x, y, w, v, m))
            out.append(_ops(lib, x, y, w, v, m))
        out.append(sorted(set(log.seen)))
    out.append(_ops(lib, x, y, w, v, m))
    return [[str(d) if not isinstance(d, str) else d for d in row] for row in out]


ORDERS = ["placeholder_collected_inside", "placeholder_made_inside_collected_after",
          "mode_outlives_autocast", "autocast_outlives_mode", "mode_inside_autocast"]


@pytest.mark.parametrize("order", ORDERS)
def test_autocast_and_dispatch_wrappers_in_any_order(order):
    gc.collect()
    want = _script(torch, order)
    got = _script(numtorch, order)
    gc.collect()
    assert got == want


def test_the_corpus_sequence_many_times():
    """The reported shape: a nested ``autocast(enabled=False)`` ends while a collected
    placeholder has taken the dispatch wrappers out, repeated."""
    x, y, w, v, m = _inputs(numtorch)
    for _ in range(5):
        _lazy_in_cycle(numtorch)
        with numtorch.autocast("cpu", dtype=numtorch.bfloat16):
            with numtorch.autocast("cpu", enabled=False):
                assert numtorch.bmm(x, y).dtype == numtorch.float32
                gc.collect()
            assert _ops(numtorch, x, y, w, v, m) == [numtorch.bfloat16] * 6
    gc.collect()
