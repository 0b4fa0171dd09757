"""Rank script: async collectives whose Work the program drops at once (torch allows it: the
op still completes and writes its tensor), interleaved with synchronous calls and garbage
collections. A dropped op's buffers must stay alive until MPI is done with them: freed
early, their memory was reused by later calls while MPI still wrote into it (a fingerprint
then carried another call's hash and the ranks were reported as disagreeing).
Run: python -m numtorch.distributed.run --nproc-per-node=2 dropped_works.py"""

import gc

import numtorch as torch
import numtorch.distributed as dist

dist.init_process_group("gloo")
R, N = dist.get_rank(), dist.get_world_size()
total = float(sum(range(1, N + 1)))
kept = []
for i in range(300):
    t = torch.full((56,), float(R + 1))
    dist.all_reduce(t, async_op=True)  # the Work is dropped here
    if i % 3 == 0:
        kept.append(t)
    g = torch.full((56,), float(i))
    dist.reduce_scatter_tensor(torch.empty(56 // N), g * (R + 1),
                               async_op=True)  # dropped too
    out = torch.empty(56 * N)
    dist.all_gather_into_tensor(out, g)
    assert out.tolist() == [float(i)] * (56 * N), (i, out[:4])
    if i % 7 == 0:
        gc.collect()
for _ in range(100):  # each call lets the dropped ops that finished write their results
    if all(t.tolist() == [total] * 56 for t in kept):
        break
    dist.barrier()
assert all(t.tolist() == [total] * 56 for t in kept), [t[0].item() for t in kept]
print(f"rank {R} ok", flush=True)
dist.destroy_process_group()
