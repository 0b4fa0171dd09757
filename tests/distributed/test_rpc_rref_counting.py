"""RRef values are freed on their owner once no worker holds a reference to them.

torch frees them too (its RRef protocol counts forks); numtorch's counting is checked here
directly: after many RRefs are made, passed between three workers (owner to user, user to
user, user back to owner) and dropped, each owner's table returns to its starting size, and
values still referenced stay usable throughout.
"""

import json
import subprocess
import sys
import textwrap

from .test_rpc import _free_port

PROGRAM = '''
import gc, json, os, sys, time
import torch
import torch.distributed.rpc as rpc
import torch.multiprocessing as mp
from torch.distributed.rpc import RRef
from numtorch.distributed.rpc import _rref

def live():
    gc.collect()
    return _rref.live_count()

def settle(baseline):
    deadline = time.monotonic() + 10
    while live() > baseline and time.monotonic() < deadline:
        time.sleep(0.05)
    return live()

def total(rref):
    return rref.to_here().sum().item()

def pass_on(rref, to):
    return rpc.rpc_sync(to, total, args=(rref,))

def give_back(rref):
    return rref

def make_local(n):
    return RRef(torch.full((3,), float(n)))

def run(rank, port, out):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    rpc.init_rpc(f"w{rank}", rank=rank, world_size=3)
    if rank == 0:
        base = [rpc.rpc_sync(f"w{r}", live) for r in range(3)]
        keep = rpc.remote("w1", torch.ones, args=(4,))
        sums = []
        for i in range(20):
            a = rpc.remote("w1", torch.full, args=((2,), float(i)))
            sums.append(rpc.rpc_sync("w2", pass_on, args=(a, "w2")))   # user -> user
            back = rpc.rpc_sync("w1", give_back, args=(a,))            # owner keeps it
            mine = RRef(torch.ones(5) * i)
            sums.append(rpc.rpc_sync("w2", total, args=(mine,)))       # owner -> user
            theirs = rpc.rpc_sync("w2", make_local, args=(i,))         # user gets w2's
            sums.append(theirs.to_here().sum().item())
            del a, back, mine, theirs
        during = rpc.rpc_sync("w1", live)
        kept = keep.to_here().tolist()
        gc.collect()
        after = [rpc.rpc_sync(f"w{r}", settle, args=(base[r] + (1 if r == 1 else 0),))
                 for r in range(3)]
        after[0] = settle(base[0])
        with open(out, "w") as f:
            json.dump({"base": base, "after": after, "during": during, "kept": kept,
                       "sums": sums}, f)
    rpc.shutdown()

if __name__ == "__main__":
    mp.spawn(run, args=(int(sys.argv[1]), sys.argv[2]), nprocs=3)
'''


def test_dropped_rrefs_are_freed_on_their_owners(tmp_path):
    prog = tmp_path / "rrefs.py"
    prog.write_text(textwrap.dedent(PROGRAM))
    out = tmp_path / "out.json"
    p = subprocess.run([sys.executable, "-m", "numtorch.run", str(prog), str(_free_port()),
                        str(out)], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    res = json.loads(out.read_text())
    expect = []
    for i in range(20):
        expect += [2.0 * i, 5.0 * i, 3.0 * i]
    assert res["sums"] == expect
    assert res["kept"] == [1.0] * 4
    assert res["after"] == [res["base"][0], res["base"][1] + 1, res["base"][2]]
