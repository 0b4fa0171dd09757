"""``set_num_threads`` under threads: recurrent layers drop BLAS to one thread while they run,
and that must never undo, or hide, the value another thread set."""

import threading
import time

import pytest

import numtorch


@pytest.mark.parametrize("kind", ["GRU", "RNN"])
def test_set_num_threads_holds_while_recurrent_layers_run_in_threads(kind):
    original = numtorch.get_num_threads()
    numtorch.manual_seed(0)
    net = getattr(numtorch.nn, kind)(8, 16, batch_first=True)
    x = numtorch.randn(4, 20, 8)
    stop = threading.Event()

    def train():
        while not stop.is_set():
            out, _ = net(x)
            out.sum().backward()

    workers = [threading.Thread(target=train) for _ in range(2)]
    for w in workers:
        w.start()
    seen = []
    try:
        for i in range(40):
            value = 2 + i % 3
            numtorch.set_num_threads(value)
            time.sleep(0.002)  # the layers enter and leave their one-thread blocks meanwhile
            seen.append((value, numtorch.get_num_threads()))
    finally:
        stop.set()
        for w in workers:
            w.join()
    try:
        assert [got for _, got in seen] == [want for want, _ in seen]
        assert numtorch.get_num_threads() == seen[-1][0]  # the user's last value, not undone
    finally:
        numtorch.set_num_threads(original)
