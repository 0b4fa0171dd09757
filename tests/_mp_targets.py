"""Functions run in child processes by tests/test_multiprocessing.py.

They live in a module (not in the test file) so that 'spawn' children can import them. ``lib``
names the library under test ('numtorch' or 'torch'), imported in the child.
"""

import importlib
import os
import signal
import time


def _lib(name):
    return importlib.import_module(name)


def add_one_and_report(q_in, q_out):
    """Receive tensors until None; add 1 in place to each and report what arrived."""
    while True:
        t = q_in.get()
        if t is None:
            return
        q_out.put((type(t).__name__, tuple(t.shape), t.stride(), t.storage_offset(),
                   t.requires_grad, t.grad is None, t.is_shared(), t.detach().tolist()))
        t.data.add_(1)
        q_out.put("done")


def storage_fill(q_in, q_out):
    """Receive a storage and fill it with 7."""
    s = q_in.get()
    s.fill_(7)
    q_out.put((type(s).__name__, s.size()))


def echo(q_in, q_out):
    """Send back what was received (to check a round trip lands on the same memory)."""
    q_out.put(q_in.get())
    q_in.get()  # wait until the parent is done with the answer


def put_ones_and_exit(q_out, lib):
    """Put a new tensor on the queue and exit at once."""
    q_out.put(_lib(lib).ones(3))


def pipe_double(conn):
    """Double the tensor received on ``conn`` in place and answer with a new tensor."""
    t = conn.recv()
    t.mul_(2)
    conn.send(t + 1)
    conn.recv()


def hogwild_train(rank, lib, model, data, target, steps):
    """Train the shared ``model`` with SGD on this rank's half of the data."""
    torch = _lib(lib)
    torch.manual_seed(rank)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = data[rank::2], target[rank::2]
    for _ in range(steps):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()


def raise_on_one(rank, message):
    """Rank 1 raises a ValueError with ``message``."""
    if rank == 1:
        raise ValueError(message)


def kill_rank_zero(rank):
    """Rank 0 dies by SIGKILL; the others wait to be stopped."""
    if rank == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(30)


def exit_code_three(rank):
    """Exit with status 3 (no exception)."""
    os._exit(3)


def write_rank(rank, shared):
    """Write ``rank + 1`` into row ``rank`` of the shared tensor."""
    shared[rank].fill_(rank + 1)


def scale_and_sum(t):
    """For Pool.map: double ``t`` in place and return its sum as a new tensor."""
    t.mul_(2)
    return t.sum()


def echo_many(q_in, q_out):
    """Send back every tensor received, until None."""
    while True:
        t = q_in.get()
        if t is None:
            return
        q_out.put(t)
        del t


def raise_or_nap(rank):
    """Rank 1 raises at once; rank 0 naps a moment and returns."""
    if rank == 1:
        raise ValueError("rank 1 failed")
    time.sleep(0.5)
