"""Fixes found running Hugging Face transformers 4.46 (and accelerate) model families under
numtorch; each case reproduces the gap without transformers and compares with torch."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import numtorch

torch = pytest.importorskip("torch")

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run_ranks(script, lib, tmp_path, n=2, timeout=120):
    """Run ``script`` on ``n`` ranks (file:// rendezvous) with ``lib`` as torch; per-rank JSON."""
    store = tmp_path / f"store_{lib}"
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([_ROOT, os.environ.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([sys.executable, str(script), lib, str(r), str(n), str(store)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                              start_new_session=True) for r in range(n)]
    outs = []
    try:
        for p in procs:
            so, se = p.communicate(timeout=timeout)
            assert p.returncode == 0, se[-3000:]
            outs.append(json.loads(so.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, 9)
                p.wait()
    return outs


# accelerate imports torch.distributed.algorithms.join at import time (join_uneven_inputs)
_JOIN_SCRIPT = textwrap.dedent("""
    import json, sys
    lib, rank, ws, store = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    torch = __import__(lib)
    dist = torch.distributed
    from importlib import import_module
    join = import_module(lib + ".distributed.algorithms.join")
    Join, Joinable, JoinHook = join.Join, join.Joinable, join.JoinHook

    class Hook(JoinHook):
        def __init__(self, log, shadow):
            self.log, self.shadow = log, shadow
        def main_hook(self):
            self.log.append("main")
            if self.shadow:  # answers the all-reduce the running rank makes each iteration
                t = torch.zeros(1); dist.all_reduce(t)
        def post_hook(self, last):
            self.log.append(["post", last])

    class Counter(Joinable):
        def __init__(self, log, shadow=False):
            super().__init__(); self.log, self.shadow = log, shadow
        def join_hook(self, **kw):
            self.log.append(["hook", sorted(kw)]); return Hook(self.log, self.shadow)
        @property
        def join_device(self):
            return torch.device("cpu")
        @property
        def join_process_group(self):
            return dist.group.WORLD

    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=ws)
    res = {}
    log = []
    a = Counter(log, shadow=True)
    res["config_before"] = list(a._join_config)
    n = 2 + 3 * rank
    total = []
    with Join([a, Counter(log)], extra=1):
        for i in range(n):
            w = Join.notify_join_context(a)
            res.setdefault("work", type(w).__name__)
            t = torch.ones(1) * (rank + 1); dist.all_reduce(t); total.append(t.item())
    res["log"], res["total"] = log, total
    res["config_after"] = list(a._join_config)
    # a joinable that is not first announces nothing
    res["second"] = repr(Join.notify_join_context(Counter([])))
    log2 = []
    b = Counter(log2)
    try:
        with Join([b], throw_on_early_termination=True):
            for i in range(n):
                Join.notify_join_context(b)
                t = torch.ones(1); dist.all_reduce(t)
    except RuntimeError as e:
        res["throw"] = str(e)
    res["log2"] = log2
    # an exception inside the loop passes through without waiting
    try:
        with Join([Counter([])]):
            raise KeyError("inside")
    except KeyError as e:
        res["passes"] = str(e)
    for bad in ([], [1]):
        try:
            Join(bad)
        except Exception as e:
            res.setdefault("errors", []).append([type(e).__name__, str(e)])
    try:
        c = Counter([])
        Join([c, Counter([])], enable=False)
        res["disabled"] = [list(c._join_config), repr(Join.notify_join_context(c))]
    except Exception as e:
        res["disabled"] = repr(e)
    dist.destroy_process_group()
    print(json.dumps(res))
""")


def test_join_uneven_inputs_like_torch(tmp_path):
    script = tmp_path / "join_ranks.py"
    script.write_text(_JOIN_SCRIPT)
    got = _run_ranks(script, "numtorch", tmp_path)
    want = _run_ranks(script, "torch", tmp_path)
    assert got == want
    # rank 0 ran out after 2 iterations and shadowed rank 1's other 3 all-reduces
    assert got[0]["log"].count("main") == 6 and got[1]["log"][-1] == ["post", True]
    assert got[1]["total"] == [3.0, 3.0, 2.0, 2.0, 2.0]


def test_joinable_is_abstract_like_torch():
    from torch.distributed.algorithms import Joinable as TJ

    from numtorch.distributed.algorithms import Joinable as NJ

    def err(cls):
        with pytest.raises(TypeError) as e:
            type("K", (cls,), {})()
        return str(e.value)
    assert err(NJ) == err(TJ)


def _chunk_dataset(lib):
    """transformers' PipelineChunkIterator: an IterableDataset whose __iter__ returns itself
    and whose __next__ walks the chunks of each input (zero-shot classification, QA)."""

    class Chunks(lib.utils.data.IterableDataset):
        def __init__(self, sizes):
            self.sizes = sizes

        def __iter__(self):
            self.it, self.sub = iter(self.sizes), None
            return self

        def __next__(self):
            if self.sub is None:
                self.sub = iter(range(next(self.it)))
            try:
                return next(self.sub)
            except StopIteration:
                self.sub = iter(range(next(self.it)))
                return next(self.sub)

    return Chunks([3, 2, 4])


@pytest.mark.parametrize("batch_size,drop_last",
                         [(1, False), (2, False), (2, True), (None, False)])
def test_iterable_dataset_iterating_itself_is_not_restarted(batch_size, drop_last):
    def batches(lib):
        dl = lib.utils.data.DataLoader(_chunk_dataset(lib), batch_size=batch_size,
                                       drop_last=drop_last, collate_fn=lambda b: b)
        out = []
        for b in dl:
            out.append(b)
            if len(out) > 20:  # numtorch's loader restarted the dataset each batch: never ended
                break
        return out

    assert batches(numtorch) == batches(torch)


def _fill_cases(lib):
    """Random fills of tensors whose memory order is not their logical order (found tracing
    dropout masks through transposed activations): torch walks the memory, numtorch walked the
    logical order."""
    out = []
    for shape, perm in (((2, 4, 3), (0, 2, 1)), ((3, 5), (1, 0)), ((2, 3, 4, 5), (0, 2, 3, 1))):
        base = lib.zeros(*shape).permute(*perm)
        for seed, make in enumerate((
                lambda base=base: lib.empty_like(base).uniform_(-2, 3),
                lambda base=base: lib.empty_like(base).bernoulli_(0.3),
                lambda base=base: lib.empty_like(base).random_(0, 10),
                lambda base=base: lib.rand_like(base),
                lambda base=base: lib.randint_like(base, 0, 7),
                lambda base=base: lib.nn.functional.dropout(lib.ones_like(base), 0.4))):
            lib.manual_seed(seed)
            t = make()
            out.append((tuple(t.stride()), t.double().flatten().tolist()))
    lib.manual_seed(7)
    out.append(lib.zeros(4, 6)[:, ::2].uniform_().flatten().tolist())
    lib.manual_seed(8)
    out.append(lib.zeros(6, 4).t()[::2].uniform_().flatten().tolist())
    return out


def test_random_fills_follow_memory_order_like_torch():
    assert _fill_cases(numtorch) == _fill_cases(torch)
