"""utils.data against torch: datasets, samplers, collation, DataLoader with and without
worker processes (same batches, crash and timeout detection, sharding)."""

import collections
import os
import signal
import time

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import numtorch
import numtorch.utils.data as ndata


def _conv(x):
    """Nested numtorch/torch values as comparable Python data (type names kept)."""
    if isinstance(x, (numtorch.Tensor, torch.Tensor)):
        return ("T", str(x.dtype), x.detach().numpy().tolist())
    if isinstance(x, dict):
        return {k: _conv(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__,) + tuple(_conv(v) for v in x)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_conv(v) for v in x])
    return x


Point = collections.namedtuple("Point", ["x", "y"])


@pytest.mark.parametrize("make", [
    lambda t: [t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0])],
    lambda t: [np.array([1, 2]), np.array([3, 4])],
    lambda t: [1, 2, 3],
    lambda t: [1.5, 2.5],
    lambda t: [True, False],
    lambda t: ["a", "b"],
    lambda t: [{"x": 1.0, "y": t.tensor([1])}, {"x": 2.0, "y": t.tensor([2])}],
    lambda t: [(t.tensor(1.0), 2), (t.tensor(3.0), 4)],
    lambda t: [[1, 2], [3, 4]],
    lambda t: [Point(1, 2.0), Point(3, 4.0)],
    lambda t: [np.float32(1.5), np.float32(2.5)],
])
def test_default_collate_matches_torch(make):
    assert _conv(ndata.default_collate(make(numtorch))) == \
        _conv(tdata.default_collate(make(torch)))


def test_default_convert_matches_torch():
    data = [np.array([1.0, 2.0]), {"a": np.array([1])}, (np.int64(3), "s")]
    assert _conv(ndata.default_convert(data)) == _conv(tdata.default_convert(data))


def test_collate_errors():
    with pytest.raises(RuntimeError, match="equal size"):
        ndata.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError):
        ndata.default_collate([object(), object()])


def test_datasets_and_random_split():
    ds = ndata.TensorDataset(numtorch.arange(10.0), numtorch.arange(10))
    assert len(ds) == 10 and ds[3][1].item() == 3
    cat = ds + ds
    assert len(cat) == 20 and cat[15][1].item() == 5 and cat[-1][1].item() == 9
    numtorch.manual_seed(0)
    parts = ndata.random_split(range(10), [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [5, 3, 2]
    assert sorted(sum((list(p) for p in parts), [])) == list(range(10))
    with pytest.raises(ValueError):
        ndata.random_split(range(10), [3, 3])
    sub = ndata.Subset(range(10), [9, 1])
    assert list(sub) == [9, 1]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):  # as torch
        ndata.TensorDataset(numtorch.ones(3), numtorch.ones(4))
    st = ndata.StackDataset(a=range(3), b=range(3))
    assert st[1] == {"a": 1, "b": 1}


def test_samplers():
    assert list(ndata.SequentialSampler(range(4))) == [0, 1, 2, 3]
    numtorch.manual_seed(1)
    perm = list(ndata.RandomSampler(range(50)))
    assert sorted(perm) == list(range(50))
    huge = ndata.RandomSampler(range(10), replacement=True, num_samples=10 ** 10)
    it = iter(huge)
    assert all(0 <= next(it) < 10 for _ in range(100)) and len(huge) == 10 ** 10
    g = numtorch.Generator().manual_seed(3)
    a = list(ndata.RandomSampler(range(20), generator=g))
    g.manual_seed(3)
    assert a == list(ndata.RandomSampler(range(20), generator=g))
    w = list(ndata.WeightedRandomSampler([0.0, 1.0, 0.0], 10))
    assert w == [1] * 10
    assert list(ndata.BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(ndata.BatchSampler(range(7), 3, True)) == 2
    assert sorted(ndata.SubsetRandomSampler([5, 7, 9])) == [5, 7, 9]
    shards = [list(ndata.DistributedSampler(range(10), 3, r, shuffle=False))
              for r in range(3)]
    tshards = [list(tdata.DistributedSampler(range(10), 3, r, shuffle=False))
               for r in range(3)]
    assert shards == tshards
    with pytest.raises(ValueError):
        ndata.BatchSampler(range(3), 0, False)


def test_dataloader_argument_errors_match_torch():
    for lib, data in ((numtorch, ndata), (torch, tdata)):
        ds = data.TensorDataset(lib.arange(6.0))
        with pytest.raises(ValueError):
            data.DataLoader(ds, shuffle=True, sampler=data.SequentialSampler(ds))
        with pytest.raises(ValueError):
            data.DataLoader(ds, batch_size=2, batch_sampler=[[0, 1]])
        with pytest.raises(ValueError):
            data.DataLoader(ds, num_workers=-1)


def test_dataloader_batches_like_torch_sequential():
    x = np.arange(14, dtype=np.float32).reshape(7, 2)
    for kw in (dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)):
        a = [_conv(b) for b in ndata.DataLoader(ndata.TensorDataset(numtorch.from_numpy(x)),
                                                **kw)]
        b = [_conv(b) for b in tdata.DataLoader(tdata.TensorDataset(torch.from_numpy(x)),
                                                **kw)]
        assert a == b


class _Squares(ndata.Dataset):
    def __len__(self):
        return 23

    def __getitem__(self, i):
        return {"x": numtorch.full((3,), float(i * i)), "i": i}


def test_zero_and_two_workers_give_the_same_batches():
    runs = []
    for nw in (0, 2):
        numtorch.manual_seed(5)
        dl = ndata.DataLoader(_Squares(), batch_size=4, shuffle=True, num_workers=nw)
        runs.append([_conv(b) for b in dl])
    assert runs[0] == runs[1] and len(runs[0]) == 6


def test_persistent_workers_and_worker_init_fn():
    seen = []
    dl = ndata.DataLoader(_Squares(), batch_size=5, num_workers=2, persistent_workers=True,
                          worker_init_fn=lambda wid: None)
    for _ in range(2):
        seen.append([b["i"].tolist() for b in dl])
    assert seen[0] == seen[1] == [list(range(k, min(k + 5, 23))) for k in range(0, 23, 5)]


class _Stream(ndata.IterableDataset):
    def __iter__(self):
        info = ndata.get_worker_info()
        if info is None:
            return iter(range(12))
        return iter(range(info.id, 12, info.num_workers))


def test_iterable_dataset_sharding_with_workers():
    got = sorted(v for b in ndata.DataLoader(_Stream(), batch_size=5, num_workers=3)
                 for v in b.tolist())
    assert got == list(range(12))
    assert ndata.get_worker_info() is None


class _Killer(ndata.Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, i):
        if i == 9 and ndata.get_worker_info() is not None:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


def test_killed_worker_raises_instead_of_hanging():
    t0 = time.time()
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        for _ in ndata.DataLoader(_Killer(), batch_size=2, num_workers=2):
            pass
    assert time.time() - t0 < 10


class _Raiser(ndata.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        raise KeyError("missing sample")


def test_worker_exception_is_reraised_with_its_type():
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process"):
        list(ndata.DataLoader(_Raiser(), num_workers=2))


class _Sleeper(ndata.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(5)
        return i


def test_timeout_raises():
    t0 = time.time()
    with pytest.raises(RuntimeError, match="timed out"):
        list(ndata.DataLoader(_Sleeper(), num_workers=1, timeout=0.5))
    assert time.time() - t0 < 4


def test_worker_seeds_differ_and_reproduce():
    class Rand(ndata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return numtorch.rand(1).item()

    def draw():
        numtorch.manual_seed(11)
        return [b.tolist() for b in ndata.DataLoader(Rand(), batch_size=1, num_workers=2)]

    a, b = draw(), draw()
    assert a == b
    assert a[0] != a[1]  # two workers, two seeds


def test_tensor_dataset_fast_batches_equal_per_sample_collation():
    ds = ndata.TensorDataset(numtorch.arange(40.0).reshape(20, 2), numtorch.arange(20))
    sub = ndata.Subset(ds, list(range(19, -1, -2)))
    for data in (ds, sub):
        numtorch.manual_seed(2)
        fast = [_conv(b) for b in ndata.DataLoader(data, batch_size=3, shuffle=True)]
        numtorch.manual_seed(2)
        slow = [_conv(b) for b in ndata.DataLoader(
            data, batch_size=3, shuffle=True,
            collate_fn=lambda b: ndata.default_collate(list(b)))]
        assert fast == slow


def test_collate_error_in_a_field_as_torch():
    import re

    with pytest.raises(RuntimeError) as want:  # torch's error as it is (no field named)
        tdata.default_collate([{"img": torch.ones(3)}, {"img": torch.ones(4)}])
    with pytest.raises(RuntimeError, match=f"^{re.escape(str(want.value))}$"):
        ndata.default_collate([{"img": numtorch.ones(3)}, {"img": numtorch.ones(4)}])


def _worker_warnings(lib, monkeypatch, cpus, num_workers, persistent=False, start=False):
    import warnings

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loader = lib.utils.data.DataLoader(list(range(4)), batch_size=2, num_workers=num_workers,
                                           persistent_workers=persistent)
        loader.check_worker_number_rationality()
        if start:
            assert [b.tolist() for b in loader] == [[0, 1], [2, 3]]
    return [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("cpus,num_workers", [(1, 2), (2, 2), (2, 0), (3, 4)])
def test_worker_count_warning_matches_torch(monkeypatch, cpus, num_workers):
    # minGPT's trainer asks for 4 workers; torch warns on a 2-CPU machine, once when the
    # loader is made and again when its workers start
    want = _worker_warnings(torch, monkeypatch, cpus, num_workers)
    assert _worker_warnings(numtorch, monkeypatch, cpus, num_workers) == want
    assert len(want) == (2 if num_workers > cpus else 0)


def test_worker_count_warning_when_workers_start(monkeypatch):
    want = _worker_warnings(torch, monkeypatch, 1, 2, persistent=True, start=True)
    assert _worker_warnings(numtorch, monkeypatch, 1, 2, persistent=True, start=True) == want
    assert len(want) == 3
