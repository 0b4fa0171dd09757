"""Rank script: large all-reduces (the segmented ring) on 3 ranks against NumPy.

Run as 3 processes with RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT set; argv[1] is OUT_DIR.
Sizes not divisible by 3 and past the 1 MB segment, every reduction, several dtypes.
"""

import sys

import numpy as np

import numtorch as torch
import numtorch.distributed as dist
from _common import Recorder

dist.init_process_group("gloo")
R, N = dist.get_rank(), dist.get_world_size()
rec = Recorder(sys.argv[1], R)


def data(rank, n, dtype):
    rs = np.random.RandomState(rank * 7 + n % 11)
    if np.dtype(dtype).kind == "f":
        return rs.randint(-8, 8, n).astype(dtype)  # integers: every summation order agrees
    return rs.randint(1, 4, n).astype(dtype)


OPS = {"SUM": np.add, "MAX": np.maximum, "MIN": np.minimum, "PRODUCT": np.multiply}
for n in (8193, 300001, 1000003):
    for dtype in ("float32", "float64", "int64"):
        for name, ufunc in OPS.items():
            if name == "PRODUCT" and n > 10000:
                continue

            def check(n=n, dtype=dtype, name=name, ufunc=ufunc):
                t = torch.from_numpy(data(R, n, dtype))
                dist.all_reduce(t, op=getattr(dist.ReduceOp, name))
                want = ufunc.reduce([data(r, n, dtype) for r in range(N)])
                return None if np.array_equal(t.numpy(), want) else "wrong values"

            rec.check(f"{n}/{dtype}/{name}", check)
dist.destroy_process_group()
