"""RPC misuse and failures: torch's errors before ``init_rpc``; a dead worker fails calls.

A worker that dies while another waits on it must make the waiting call raise (not hang),
and the survivors' ``shutdown`` must still return.
"""

import json
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.distributed.autograd as t_dist_autograd
import torch.distributed.rpc as t_rpc

import numtorch
import numtorch.distributed.autograd as n_dist_autograd
import numtorch.distributed.rpc as n_rpc

from .test_rpc import _free_port


def _cases(lib, rpc, dist_autograd):
    return [
        lambda: rpc.rpc_sync("w1", max, args=(1, 2)),
        lambda: rpc.rpc_async("w1", max, args=(1, 2)),
        lambda: rpc.remote("w1", max, args=(1, 2)),
        lambda: rpc.get_worker_info(),
        lambda: rpc.RRef(1),
        lambda: rpc.shutdown(),
        lambda: dist_autograd.context().__enter__(),
        lambda: dist_autograd.backward(5, [lib.ones(1, requires_grad=True)]),
        lambda: dist_autograd.get_gradients(5),
    ]


@pytest.mark.parametrize("case", range(9))
def test_errors_before_init_rpc_match_torch(case):
    got = []
    for lib, rpc, dist_autograd in ((torch, t_rpc, t_dist_autograd),
                                    (numtorch, n_rpc, n_dist_autograd)):
        with pytest.raises(Exception) as info:
            _cases(lib, rpc, dist_autograd)[case]()
        got.append((type(info.value).__name__, str(info.value).splitlines()[0]))
    assert got[1] == got[0]


DEATH = '''
import json, os, sys, time
import torch
import torch.distributed.rpc as rpc
import torch.multiprocessing as mp

def die():
    os._exit(3)

def run(rank, port, out):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    rpc.init_rpc(f"w{rank}", rank=rank, world_size=3)
    if rank == 0:
        t = time.monotonic()
        try:
            rpc.rpc_sync("w1", die)
            res = "returned"
        except RuntimeError as e:
            res = "RuntimeError"
        late = rpc.rpc_sync("w2", max, args=(4, 5))
        with open(out, "w") as f:
            json.dump([res, late, time.monotonic() - t], f)
    rpc.shutdown()

if __name__ == "__main__":
    port, out = int(sys.argv[1]), sys.argv[2]
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=run, args=(r, port, out)) for r in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    print([p.exitcode for p in procs])
'''


def test_dead_worker_fails_the_call_and_shutdown_still_returns(tmp_path):
    prog = tmp_path / "death.py"
    prog.write_text(textwrap.dedent(DEATH))
    out = tmp_path / "out.json"
    p = subprocess.run([sys.executable, "-m", "numtorch.run", str(prog), str(_free_port()),
                        str(out)], capture_output=True, text=True, timeout=90, cwd=tmp_path,
                       check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    res, late, took = json.loads(out.read_text())
    assert (res, late) == ("RuntimeError", 5)
    assert took < 30
    assert p.stdout.strip().splitlines()[-1] == "[0, 3, 0]"
