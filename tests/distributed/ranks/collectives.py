"""Rank script: every collective, reduction and point-to-point op against NumPy.

Every rank builds every rank's inputs from per-rank seeds, so it computes the expected
results itself with NumPy. Run on 2 ranks: mpiexec -n 2 python collectives.py OUT_DIR
"""

import datetime
import sys

import ml_dtypes
import numpy as np

import numtorch as torch
import numtorch.distributed as dist
from _common import Recorder

OUT = sys.argv[1]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
R, N = dist.get_rank(), dist.get_world_size()
rec = Recorder(OUT, R)
OPS = dist.ReduceOp

DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
          "bfloat16": torch.bfloat16, "int8": torch.int8, "uint8": torch.uint8,
          "int32": torch.int32, "int64": torch.int64, "bool": torch.bool,
          "complex64": torch.complex64, "complex128": torch.complex128}
LAYOUTS = ["contiguous", "non_contiguous", "zero_dim", "empty"]


def values(rank, name, shape, salt=0):
    rng = np.random.default_rng(1000 * rank + 7 * salt + len(name))
    if name == "bool":
        return rng.random(shape) < 0.5
    if name in ("int8", "int32", "int64"):
        return rng.integers(-3, 4, shape).astype(name)
    if name == "uint8":
        return rng.integers(0, 10, shape).astype(np.uint8)
    if name.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(name)
    x = rng.standard_normal(shape).astype(np.float32)
    return x.astype(ml_dtypes.bfloat16) if name == "bfloat16" else x.astype(name)


def tensor(rank, name, layout, salt=0):
    """(tensor, its values as a NumPy array) for ``rank``; non-contiguous ones are views."""
    if layout == "non_contiguous":
        big = torch.from_numpy(np.ascontiguousarray(values(rank, name, (4, 6), salt)))
        t = big[:, ::2].t()
        assert not t.is_contiguous()
    else:
        shape = {"contiguous": (3, 4), "zero_dim": (), "empty": (0, 3)}[layout]
        t = torch.from_numpy(np.ascontiguousarray(values(rank, name, shape, salt)))
    return t, t._array.copy()  # (bfloat16: numtorch keeps its array)


def same(got, want):
    got = got._array if hasattr(got, "_array") else got
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"shape/dtype {got.shape} {got.dtype} != {want.shape} {want.dtype}"
    if not np.array_equal(got.astype(np.float64) if got.dtype == ml_dtypes.bfloat16 else got,
                          want.astype(np.float64) if want.dtype == ml_dtypes.bfloat16 else want):
        return f"values {got!r} != {want!r}"
    return None


def reference(op, stack, dtype):
    """NumPy's result of reducing ``stack`` over axis 0 (None: the op must raise)."""
    kind = stack.dtype.kind
    if dtype == "bfloat16":
        kind = "f"
    if kind == "c" and op not in ("SUM", "AVG"):
        return None
    if kind == "b":
        f = {"SUM": np.logical_or, "MAX": np.logical_or, "BOR": np.logical_or,
             "PRODUCT": np.logical_and, "MIN": np.logical_and, "BAND": np.logical_and,
             "BXOR": np.logical_xor}.get(op)
        return None if f is None else f.reduce(stack, axis=0)
    if op in ("BAND", "BOR", "BXOR"):
        if kind == "f":
            return None
        f = {"BAND": np.bitwise_and, "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}[op]
        return f.reduce(stack, axis=0)
    if op == "AVG":
        if kind in "iu":
            return None
        return (np.add.reduce(stack, axis=0, dtype=stack.dtype) / stack.dtype.type(N)) \
            .astype(stack.dtype)
    f = {"SUM": np.add, "PRODUCT": np.multiply, "MIN": np.minimum, "MAX": np.maximum}[op]
    return f.reduce(stack, axis=0, dtype=stack.dtype)


# -- reductions: every dtype x op x layout -----------------------------------------------
for dname, dt in DTYPES.items():
    for layout in LAYOUTS:
        for op in ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]:
            case = f"all_reduce/{dname}/{layout}/{op}"
            t, _ = tensor(R, dname, layout)
            stack = np.stack([tensor(r, dname, layout)[1] for r in range(N)])
            want = reference(op, stack, dname)
            if want is None:
                rec.raises(case, lambda: dist.all_reduce(t, op=getattr(OPS, op)),
                           (RuntimeError, ValueError))
                continue
            rec.check(case, lambda: dist.all_reduce(t, op=getattr(OPS, op)) or same(t, want))

for dname in ["float32", "int64", "bool", "bfloat16", "complex64"]:
    for layout in LAYOUTS:
        stack = np.stack([tensor(r, dname, layout)[1] for r in range(N)])
        for dst in range(N):
            t, mine = tensor(R, dname, layout)
            want = reference("MAX" if dname != "complex64" else "SUM", stack, dname) \
                if R == dst else mine
            op = OPS.MAX if dname != "complex64" else OPS.SUM
            rec.check(f"reduce/{dname}/{layout}/dst{dst}",
                      lambda: dist.reduce(t, dst=dst, op=op) or same(t, want))
        for src in range(N):
            t, _ = tensor(R, dname, layout)
            want = tensor(src, dname, layout)[1]
            rec.check(f"broadcast/{dname}/{layout}/src{src}",
                      lambda: dist.broadcast(t, src=src) or same(t, want))
        t, _ = tensor(R, dname, layout)
        want = tensor(N - 1, dname, layout)[1]
        rec.check(f"broadcast/{dname}/{layout}/group_src",
                  lambda: dist.broadcast(t, group_src=N - 1) or same(t, want))

# -- gathers and scatters ----------------------------------------------------------------
for dname in ["float32", "float16", "int32", "bool", "bfloat16", "complex128"]:
    for layout in LAYOUTS:
        ins = [tensor(r, dname, layout, salt=1)[1] for r in range(N)]
        t, _ = tensor(R, dname, layout, salt=1)

        def all_gather():
            outs = [torch.zeros(ins[0].shape, dtype=DTYPES[dname]) for _ in range(N)]
            dist.all_gather(outs, t)
            return next((m for o, w in zip(outs, ins) if (m := same(o, w))), None)

        rec.check(f"all_gather/{dname}/{layout}", all_gather)

        def all_gather_into(stacked):
            shape = (N,) + ins[0].shape if stacked or not ins[0].shape else \
                (N * ins[0].shape[0],) + ins[0].shape[1:]
            out = torch.zeros(shape, dtype=DTYPES[dname])
            dist.all_gather_into_tensor(out, t)
            want = np.stack(ins) if stacked or not ins[0].shape else np.concatenate(ins)
            return same(out, want)

        rec.check(f"all_gather_into_tensor/cat/{dname}/{layout}", lambda: all_gather_into(0))
        rec.check(f"all_gather_into_tensor/stack/{dname}/{layout}",
                  lambda: all_gather_into(1))

        for root in range(N):
            def gather():
                outs = [torch.zeros(ins[0].shape, dtype=DTYPES[dname]) for _ in range(N)] \
                    if R == root else None
                dist.gather(t, outs, dst=root)
                if R != root:
                    return None
                return next((m for o, w in zip(outs, ins) if (m := same(o, w))), None)

            rec.check(f"gather/{dname}/{layout}/dst{root}", gather)

            def scatter():
                pieces = [tensor(root, dname, layout, salt=10 + k)[1] for k in range(N)]
                out = tensor(R, dname, layout, salt=5)[0]
                src_list = [torch.from_numpy(np.ascontiguousarray(p)) for p in pieces] \
                    if R == root else None
                dist.scatter(out, src_list, src=root)
                return same(out, pieces[R])

            rec.check(f"scatter/{dname}/{layout}/src{root}", scatter)

for dname in ["float32", "int64", "bool", "float16", "bfloat16"]:
    for layout in ["contiguous", "non_contiguous", "empty"]:
        op = "SUM" if dname != "bool" else "BOR"

        def reduce_scatter():
            lists = [[tensor(r, dname, layout, salt=20 + k)[1] for k in range(N)]
                     for r in range(N)]
            mine = [torch.from_numpy(np.ascontiguousarray(a)) for a in lists[R]]
            out = tensor(R, dname, layout, salt=3)[0]
            dist.reduce_scatter(out, mine, op=getattr(OPS, op))
            want = reference(op, np.stack([lists[r][R] for r in range(N)]), dname)
            return same(out, want)

        rec.check(f"reduce_scatter/{dname}/{layout}", reduce_scatter)

        def reduce_scatter_tensor():
            full = [np.concatenate([tensor(r, dname, layout, salt=30 + k)[1]
                                    for k in range(N)]) for r in range(N)]
            out = tensor(R, dname, layout, salt=3)[0]
            dist.reduce_scatter_tensor(out, torch.from_numpy(full[R]), op=getattr(OPS, op))
            rows = out.shape[0]
            want = reference(op, np.stack([f[R * rows:(R + 1) * rows] for f in full]), dname)
            return same(out, want)

        rec.check(f"reduce_scatter_tensor/{dname}/{layout}", reduce_scatter_tensor)


def a2a_piece(src, dst, dname):
    """What ``src`` sends to ``dst``: uneven sizes (src + dst + 2 rows)."""
    return values(src * 10 + dst, dname, (src + dst + 2, 2), salt=40)


for dname in ["float32", "int64", "bool", "bfloat16"]:
    def all_to_all():
        ins = [torch.from_numpy(a2a_piece(R, d, dname)) for d in range(N)]
        outs = [torch.zeros((s + R + 2, 2), dtype=DTYPES[dname]) for s in range(N)]
        dist.all_to_all(outs, ins)
        return next((m for s, o in enumerate(outs) if (m := same(o, a2a_piece(s, R, dname)))),
                    None)

    rec.check(f"all_to_all/{dname}", all_to_all)

    def all_to_all_single(splits):
        rows_in = [d + R + 2 for d in range(N)] if splits else [2] * N
        rows_out = [s + R + 2 for s in range(N)] if splits else [2] * N
        pieces = [a2a_piece(R, d, dname)[:rows_in[d]] for d in range(N)]
        inp = torch.from_numpy(np.concatenate(pieces))
        out = torch.zeros((sum(rows_out), 2), dtype=DTYPES[dname])
        dist.all_to_all_single(out, inp, rows_out if splits else None,
                               rows_in if splits else None)
        want = np.concatenate([a2a_piece(s, R, dname)[:rows_out[s]] for s in range(N)])
        return same(out, want)

    rec.check(f"all_to_all_single/equal/{dname}", lambda: all_to_all_single(False))
    rec.check(f"all_to_all_single/splits/{dname}", lambda: all_to_all_single(True))

# -- async handles -----------------------------------------------------------------------


def async_all():
    t = torch.full((5,), float(R + 1))
    w = dist.all_reduce(t, async_op=True)
    if not isinstance(w, dist.Work):
        return f"async_op=True returned {type(w)}"
    outs = [torch.zeros(2) for _ in range(N)]
    w2 = dist.all_gather(outs, torch.full((2,), float(R)), async_op=True)
    b = torch.zeros(3) if R else torch.arange(3.0)
    w3 = dist.broadcast(b, src=0, async_op=True)
    w4 = dist.barrier(async_op=True)
    fut = dist.all_reduce(torch.ones(2), async_op=True).get_future()
    for w in (w, w2, w3, w4):
        if w.wait() is not True:
            return "wait() did not return True"
        if not (w.is_completed() and w.is_success() and w.exception() is None):
            return "completed work not reported as completed"
    if same(t, np.full(5, N * (N + 1) / 2, np.float32)):
        return "async all_reduce value"
    if [o.tolist() for o in outs] != [[float(r)] * 2 for r in range(N)]:
        return "async all_gather value"
    if b.tolist() != [0.0, 1.0, 2.0]:
        return "async broadcast value"
    if [x.tolist() for x in fut.wait()] != [[float(N)] * 2]:
        return "future value"
    return None


rec.check("async/collectives", async_all)


def poll_until_done():
    w = dist.all_reduce(torch.ones(1000), async_op=True)
    for _ in range(100000):
        if w.is_completed():
            return None
    return "is_completed() never became True"


rec.check("async/is_completed_polling", poll_until_done)

# -- point to point ----------------------------------------------------------------------
PEER = 1 - R


def p2p_blocking():
    if R == 0:
        dist.send(torch.arange(6.0).reshape(2, 3), dst=1)
        t = torch.zeros(4, dtype=torch.int64)
        src = dist.recv(t, src=1)
        return same(t, np.arange(4) * 7) or (src != 1 and f"recv returned {src}")
    t = torch.zeros(3, 2).t()  # a non-contiguous receive buffer
    src = dist.recv(t, src=0)
    dist.send(torch.arange(4) * 7, dst=0)
    return same(t, np.arange(6.0, dtype=np.float32).reshape(2, 3)) or \
        (src != 0 and f"recv returned {src}")


rec.check("p2p/send_recv", p2p_blocking)


def p2p_any_source_and_tags():
    if R == 1:
        dist.send(torch.tensor([5.0]), dst=0, tag=7)
        dist.send(torch.tensor([6.0]), dst=0, tag=3)
        return None
    a, b = torch.zeros(1), torch.zeros(1)
    s1 = dist.recv(a, tag=3)  # tags pick the message, not arrival order
    s2 = dist.recv(b, src=None, tag=7)
    return None if (a.item(), b.item(), s1, s2) == (6.0, 5.0, 1, 1) else \
        f"got {(a.item(), b.item(), s1, s2)}"


rec.check("p2p/any_source_tags", p2p_any_source_and_tags)


def p2p_async():
    out = torch.zeros(3, dtype=torch.bfloat16)
    ws = [dist.isend(torch.full((3,), float(R + 2), dtype=torch.bfloat16), dst=PEER),
          dist.irecv(out, src=PEER)]
    for w in ws:
        w.wait()
    if ws[1].source_rank() != PEER:
        return f"source_rank {ws[1].source_rank()}"
    return same(out, np.full(3, PEER + 2, ml_dtypes.bfloat16))


rec.check("p2p/isend_irecv", p2p_async)


def p2p_batch():
    got = torch.zeros(2, dtype=torch.bool)
    ops = [dist.P2POp(dist.irecv, got, PEER), dist.P2POp(dist.isend,
                                                        torch.tensor([True, R == 0]), PEER)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    return same(got, np.array([True, PEER == 0]))


rec.check("p2p/batch_isend_irecv", p2p_batch)

# -- objects -----------------------------------------------------------------------------


def objects():
    objs = [{"rank": R, "x": [1, 2]}, "s", None] if R == 1 else [None, None, None]
    dist.broadcast_object_list(objs, src=1)
    if objs != [{"rank": 1, "x": [1, 2]}, "s", None]:
        return f"broadcast_object_list {objs}"
    every = [None] * N
    dist.all_gather_object(every, ("r", R, torch.tensor([R])))
    if [(a, b, c.tolist()) for a, b, c in every] != [("r", r, [r]) for r in range(N)]:
        return f"all_gather_object {every}"
    got = [None] * N if R == 0 else None
    dist.gather_object({"r": R} if R else "zero" * 100, got, dst=0)
    if R == 0 and got != ["zero" * 100] + [{"r": r} for r in range(1, N)]:
        return f"gather_object {got}"
    out = [None]
    dist.scatter_object_list(out, [("for", r) for r in range(N)] if R == 1 else None, src=1)
    if out != [("for", R)]:
        return f"scatter_object_list {out}"
    if R == 0:
        dist.send_object_list([1, {"two": 2}], dst=1)
    else:
        lst = [None, None]
        if dist.recv_object_list(lst, src=0) != 0 or lst != [1, {"two": 2}]:
            return f"recv_object_list {lst}"
    return None


rec.check("objects/all", objects)

# -- groups ------------------------------------------------------------------------------


def groups():
    g_all = dist.new_group([0, 1])
    g_one = dist.new_group([1])
    t = torch.tensor([float(R + 1)])
    dist.all_reduce(t, group=g_all)
    if t.item() != 3.0:
        return f"group all_reduce {t.item()}"
    if R == 1:
        if dist.get_rank(g_one) != 0 or dist.get_world_size(g_one) != 1:
            return "member rank/size"
        b = torch.tensor([9.0])
        dist.broadcast(b, src=1, group=g_one)
    else:
        if g_one != dist.GroupMember.NON_GROUP_MEMBER or dist.get_rank(g_one) != -1:
            return "non-member must get NON_GROUP_MEMBER and rank -1"
    if dist.get_process_group_ranks(g_all) != [0, 1] or dist.get_global_rank(g_all, 1) != 1:
        return "group ranks"
    dist.barrier(group=g_all)
    dist.monitored_barrier(g_all, timeout=datetime.timedelta(seconds=10))
    return None


rec.check("groups/new_group", groups)
rec.check("barrier/default", lambda: dist.barrier())

# -- mismatches give clear errors (each on a fresh group, which it leaves broken) --------
g = dist.new_group([0, 1])
rec.raises("mismatch/all_reduce_shapes", lambda: dist.all_reduce(torch.ones(2 + R), group=g),
           RuntimeError, ["disagree", "rank 0 calls all_reduce", "shape [2]",
                          "rank 1 calls all_reduce", "shape [3]"])
g = dist.new_group([0, 1])
rec.raises("mismatch/dtypes", lambda: dist.broadcast(
    torch.ones(2, dtype=torch.float32 if R else torch.float64), src=0, group=g),
    RuntimeError, ["float32", "float64"])
g = dist.new_group([0, 1])
rec.raises("mismatch/collective_kinds", lambda: (
    dist.all_reduce(torch.ones(2), group=g) if R else dist.broadcast(torch.ones(2), 0, group=g)),
    RuntimeError, ["all_reduce", "broadcast"])
g = dist.new_group([0, 1])
rec.raises("mismatch/all_to_all_sizes", lambda: dist.all_to_all(
    [torch.zeros(2) for _ in range(N)], [torch.ones(2 + R) for _ in range(N)], group=g),
    RuntimeError, ["rank 1 sends 3 elements to rank 0, which expects 2"])


def p2p_size_mismatch():
    if R == 1:
        dist.send(torch.ones(2), dst=0)
        return None
    try:
        dist.recv(torch.zeros(3), src=1)
    except RuntimeError as e:
        return None if "8 bytes" in str(e) and "12" in str(e) else f"message: {e}"
    return "no error for a message of the wrong size"


rec.check("mismatch/recv_size", p2p_size_mismatch)
t = torch.tensor([float(R)])
rec.check("after_mismatch/default_group_still_works",
          lambda: dist.all_reduce(t) or (t.item() != 1.0 and f"{t.item()}"))
dist.destroy_process_group()
rec.check("destroy", lambda: None if not dist.is_initialized() else "still initialised")
rec.save()
