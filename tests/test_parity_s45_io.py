"""Session 45 parity probes for checkpoints and data loading, each checked against real torch
at test time: torch writes, numtorch reads (and the reverse) in one process through bytes."""

import io

import numpy as np
import pytest
import torch

import numtorch


def _torch_bytes(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf, **kw)
    return buf.getvalue()


def _nt_bytes(obj, **kw):
    buf = io.BytesIO()
    numtorch.save(obj, buf, **kw)
    return buf.getvalue()


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the class and words are what is compared
        return (type(e).__name__, str(e))


# -- lazily conjugated / negated views in torch's checkpoints ------------------------------
@pytest.mark.parametrize("legacy", [False, True])
def test_torch_conj_and_neg_views_load_with_their_values(legacy):
    base = torch.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j])
    obj = {"conj": base.conj(), "neg": torch.tensor([1.0, -2.0])._neg_view(),
           "conj_slice": base.conj()[1:], "plain": base,
           "imag_of_conj": torch.tensor([2 - 1j, 0.5j]).conj().imag}
    data = _torch_bytes(obj, _use_new_zipfile_serialization=not legacy)
    want = torch.load(io.BytesIO(data))
    got = numtorch.load(io.BytesIO(data))
    for k in obj:
        np.testing.assert_array_equal(got[k].resolve_conj().resolve_neg().numpy(),
                                      want[k].resolve_conj().resolve_neg().numpy())
        assert str(got[k].dtype) == str(want[k].dtype)
        assert got[k].is_conj() == want[k].is_conj(), k
        assert got[k].shape == tuple(want[k].shape)


# -- layouts -------------------------------------------------------------------------------
def test_layouts_saved_as_torch_reduces_them():
    names = ["strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"]
    data = _nt_bytes({n: getattr(numtorch, n) for n in names})
    got = torch.load(io.BytesIO(data), weights_only=True)
    assert got == {n: getattr(torch, n) for n in names}
    back = numtorch.load(io.BytesIO(_torch_bytes({n: getattr(torch, n) for n in names})))
    assert back == {n: getattr(numtorch, n) for n in names}


# -- map_location forms torch refuses --------------------------------------------------------
@pytest.mark.parametrize("ml", ["foo", "cuda:x", "ipu", "", " cpu", 3, 2.5, [("cpu", "cpu")],
                                {"cpu": "foo"}, {"cpu": "xla"}])
def test_map_location_refusals_match_torch(ml):
    want = _outcome(lambda: torch.load(io.BytesIO(_torch_bytes(torch.ones(2))), map_location=ml))
    got = _outcome(lambda: numtorch.load(io.BytesIO(_nt_bytes(numtorch.ones(2))),
                                         map_location=ml))
    assert want[0] != "ok"
    assert got == want


# -- load_state_dict(assign=True) marks the checkpoint's metadata, as torch does -------------
def _assign_then_copy(lib):
    lib.manual_seed(0)
    src = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
    sd = src.state_dict()
    seen = []
    a, b = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2)), \
        lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
    b[0].register_load_state_dict_pre_hook(
        lambda mod, state, prefix, meta, *rest: seen.append(sorted(meta)))
    a.load_state_dict(sd, assign=True)
    b.load_state_dict(sd)  # same dict, later, without assign
    sd["0.weight"][0, 0] = 42.0
    return (seen, {k: sorted(v) for k, v in sd._metadata.items()},
            b[0].weight[0, 0].item(), a[0].weight[0, 0].item())


def test_assign_load_marks_the_state_dicts_metadata_like_torch():
    assert _assign_then_copy(numtorch) == _assign_then_copy(torch)


# -- torch.utils.data argument checks and iterator classes ------------------------------------
@pytest.mark.parametrize("lengths", [[-0.1, 1.1], [1.2, -0.2], [0.5, 0.5, 0.0], [0.3, 0.7]])
def test_random_split_fraction_checks(lengths):
    def run(lib):
        g = lib.Generator().manual_seed(3)
        return _outcome(lambda: [s.indices for s in lib.utils.data.random_split(
            range(10), lengths, generator=g)])
    assert run(numtorch) == run(torch)


def test_negative_prefetch_factor_refused():
    def run(lib):
        return _outcome(lambda: lib.utils.data.DataLoader(range(3), num_workers=1,
                                                          prefetch_factor=-1) and None)
    assert run(numtorch) == run(torch)


@pytest.mark.filterwarnings("ignore:'pin_memory' argument")
@pytest.mark.parametrize("kw", [{}, {"pin_memory": True}])
def test_loader_iterators_carry_torchs_class_names(kw):
    def run(lib):
        mod = lib.utils.data.dataloader
        it = iter(lib.utils.data.DataLoader(range(4), batch_size=2, **kw))
        return (type(it).__name__, isinstance(it, mod._BaseDataLoaderIter),
                isinstance(it, mod._SingleProcessDataLoaderIter),
                isinstance(it, mod._MultiProcessingDataLoaderIter), next(it).tolist())
    assert run(numtorch) == run(torch)


# -- the zip's version record ------------------------------------------------------------------
def _rezipped(data, key, value):
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as w:
        for n in src.namelist():
            w.writestr(n, value if n.split("/", 1)[1] == key else src.read(n))
    return out.getvalue()


@pytest.mark.parametrize("version", [b"0\n", b"-1\n", b"11\n", b"abc\n", b"", b"3J", b" 3"])
def test_version_record_refusals_in_torchs_words(version):
    data = _rezipped(_torch_bytes(torch.ones(2)), "version", version)
    want = _outcome(lambda: torch.load(io.BytesIO(data)).tolist())
    got = _outcome(lambda: numtorch.load(io.BytesIO(data)).tolist())
    assert got == want


# -- share_memory_ moves the whole block, under every view of it -----------------------------
def _share_views(lib):
    out = []
    x = lib.zeros(4)
    y, z = x[1:], x.view(2, 2)
    x.share_memory_()
    x[1] = 5.0
    y[0] += 2.0
    out.append((x.tolist(), y.tolist(), z.tolist(), y.is_shared(), z.is_shared()))
    b = lib.zeros(4)
    v = b[::2]
    v.share_memory_()
    v[0] = 3.0
    out.append((b.tolist(), v.is_shared(), b.is_shared()))
    f = lib.zeros(3, 4).t().contiguous().t()  # a column-major block
    g = f[1]
    f.share_memory_()
    f[1, 2] = 4.0
    out.append((g.tolist(), g.is_shared(), f.stride()))
    s = lib.arange(6.0).reshape(2, 3)
    t = s.t()
    s.untyped_storage().share_memory_()
    s[0, 1] = 9.0
    out.append((s.is_shared(), t.is_shared(), t.tolist()))
    r = lib.ones(3, requires_grad=True)
    w = r[:2]
    r.share_memory_()
    out.append((w.is_shared(), w.grad_fn is not None, r.requires_grad))
    return out


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_share_memory_moves_views_with_the_block():
    assert _share_views(numtorch) == _share_views(torch)


def _send_view(lib, mp):
    from tests import _mp_targets as targets

    ctx = mp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    proc = ctx.Process(target=targets.add_one_and_report, args=(q_in, q_out))
    proc.start()
    base = lib.zeros(5)
    view, other = base[1:4], base[::2]
    try:
        q_in.put(view)
        report = q_out.get(timeout=60)
        assert q_out.get(timeout=60) == "done"
        q_in.put(None)
    finally:
        proc.join(60)
    return (proc.exitcode, report, base.tolist(), other.tolist(), base.is_shared(),
            other.is_shared())


def test_sending_a_view_moves_its_whole_block_in_the_sender():
    import torch.multiprocessing as thmp

    import numtorch.multiprocessing as ntmp

    assert _send_view(numtorch, ntmp) == _send_view(torch, thmp)


# -- default_collate / default_convert keep mutable containers' kind and state ---------------
class _TaggedDict(dict):
    def __init__(self, *args, tag="t", **kw):
        super().__init__(*args, **kw)
        self.tag = tag


class _PairList(list):
    def __init__(self, a, b):  # no one-argument constructor: torch copies and fills
        super().__init__([a, b])


def _plain(x):
    if hasattr(x, "tolist"):
        return ("T", str(x.dtype), x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, getattr(x, "tag", None), getattr(x, "default_factory", None),
                {k: _plain(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_plain(v) for v in x])
    return x


_BATCHES = {
    "tagged": lambda: [_TaggedDict(a=1, tag="x"), _TaggedDict(a=2, tag="y")],
    "defaultdict": lambda: [__import__("collections").defaultdict(list, a=np.ones(2))] * 2,
    "pairs": lambda: [_PairList(1, 2), _PairList(3, 4)],
    "nested": lambda: [{"p": _PairList(np.int64(1), 2.5)}, {"p": _PairList(np.int64(3), 4.5)}],
}


@pytest.mark.parametrize("name", sorted(_BATCHES))
def test_collate_and_convert_keep_container_kinds(name):
    def run(lib):
        data = lib.utils.data
        return (_plain(data.default_collate(_BATCHES[name]())),
                _plain(data.default_convert(_BATCHES[name]()[0])))
    assert run(numtorch) == run(torch)


# -- one memory block saved as two element types is refused, as torch refuses it --------------
def _dtype_views(name, lib):
    c, x = lib.tensor([1 + 2j, 3j]), lib.arange(4.0)
    return {
        "real": lambda: [c, c.real],
        "view_as_real": lambda: [lib.view_as_real(c), c],
        "int_view": lambda: [x, x.view(lib.int32)],
        "empty_slice": lambda: [x[:0], x.view(lib.int32)],
        "storage": lambda: [x.untyped_storage(), x.view(lib.int32)],
        "storage_same": lambda: [x.untyped_storage(), x],
        "alone": lambda: [x.view(lib.int32)],
        "real_alone": lambda: [c.real, c.imag[1:]],
        "bytes_alone": lambda: [x[1:].view(lib.uint8)],
        "fresh_blocks": lambda: [lib.ones(2), lib.ones(2).view(lib.int32)],
    }[name]()


_DTYPE_VIEWS = ["real", "view_as_real", "int_view", "empty_slice", "storage", "storage_same",
                "alone", "real_alone", "bytes_alone", "fresh_blocks"]


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("name", _DTYPE_VIEWS)
def test_dtype_views_of_one_block_refused_like_torch(name, legacy):
    def run(lib):
        def save_load():
            buf = io.BytesIO()
            lib.save(_dtype_views(name, lib), buf, _use_new_zipfile_serialization=not legacy)
            buf.seek(0)
            return [(x.tolist(), x.stride(), x.storage_offset()) if hasattr(x, "tolist")
                    else bytes(x) for x in lib.load(buf)]
        return _outcome(save_load)
    assert run(numtorch) == run(torch)


# -- a worker whose arguments do not pickle: torch's hint, then the pickling error ---------------
class _Unpicklable:
    def __init__(self):
        self.f = lambda: 1

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return i


def test_unpicklable_worker_arguments_warn_like_torch():
    import warnings

    def run(lib):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = _outcome(lambda: list(lib.utils.data.DataLoader(
                _Unpicklable(), num_workers=1, multiprocessing_context="spawn")))
        return got, [str(w.message) for w in seen if "pickle" in str(w.message)]
    want = run(torch)
    assert want[0][0] != "ok" and want[1]
    assert run(numtorch) == want


# -- loading from a stream that cannot seek ----------------------------------------------------
class _NoSeekReader(io.RawIOBase):
    def __init__(self, data):
        self._b = io.BytesIO(data)

    def readable(self):
        return True

    def readinto(self, m):
        d = self._b.read(len(m))
        m[:len(d)] = d
        return len(d)

    def seekable(self):
        return False


@pytest.mark.parametrize("source", ["no_seek", "int", "none"])
def test_unseekable_sources_refused_in_torchs_words(source):
    def run(lib, data):
        f = {"no_seek": lambda: _NoSeekReader(data), "int": lambda: 3, "none": lambda: None}
        return _outcome(lambda: lib.load(f[source]()))
    assert run(numtorch, _nt_bytes(numtorch.ones(2))) == run(torch, _torch_bytes(torch.ones(2)))


# -- TensorDataset batches: indices that are not in-range integers go the per-sample way --------
@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
@pytest.mark.parametrize("sampler", ["float", "bool", "str", "neg", "past_end", "np_ints"])
@pytest.mark.parametrize("subset", [False, True])
def test_tensor_dataset_batches_with_odd_indices(sampler, subset):
    def run(lib):
        data = lib.utils.data
        ds = data.TensorDataset(lib.arange(10.0), lib.arange(10))
        if subset:
            ds = data.Subset(ds, [9, 8, 7, 6])
        indices = {"float": [1.5, 2.0], "bool": [True, False], "str": ["a"], "neg": [-1, 2],
                   "past_end": [1, 10], "np_ints": np.array([3, 1])}[sampler]
        return _outcome(lambda: [[x.tolist() for x in b] for b in data.DataLoader(
            ds, batch_size=2, sampler=indices)])
    assert run(numtorch) == run(torch)


def test_collate_errors_name_no_field():
    def run(lib):
        batch = [{"a": (lib.ones(2), 1)}, {"a": (lib.ones(3), 2)}]
        return _outcome(lambda: lib.utils.data.default_collate(batch))
    want = run(torch)
    assert want[0] == "RuntimeError"
    assert run(numtorch) == want


# -- map_location='meta': views keep their geometry over one meta storage ----------------------
@pytest.mark.parametrize("ml", ["meta", "device", "dict"])
@pytest.mark.parametrize("form", ["zip", "legacy", "mmap"])
def test_meta_loads_keep_view_geometry(ml, form, tmp_path):
    def run(lib):
        base = lib.arange(12.0).reshape(3, 4)
        path = tmp_path / f"{lib.__name__}.pt"
        lib.save({"a": base, "v": base[1:, ::2], "t": base.t(), "o": base[2]}, path,
                 _use_new_zipfile_serialization=form != "legacy")
        where = {"meta": "meta", "device": lib.device("meta"), "dict": {"cpu": "meta"}}[ml]
        got = lib.load(path, map_location=where, mmap=form == "mmap")
        ptr = got["a"].untyped_storage().data_ptr()
        # (torch's legacy meta load sizes a view's storage by its extent: not compared)
        return {k: (tuple(v.shape), v.stride(), v.storage_offset(), str(v.device),
                    v.untyped_storage().nbytes() if form != "legacy" else None,
                    v.untyped_storage().data_ptr() == ptr)
                for k, v in got.items()}
    assert run(numtorch) == run(torch)


# -- hub: check_hash takes whatever lowercase hex part the name has, as torch ---------------------
@pytest.mark.parametrize("name", ["x-abcdef.pt", "plain.pt", "x-.pt", "x-ABCDEF12.pt"])
def test_hub_check_hash_file_names(name, tmp_path, capsys):
    src = tmp_path / "src.pt"
    src.write_bytes(_torch_bytes({"w": torch.ones(2)}))

    def run(lib):
        got = _outcome(lambda: lib.hub.load_state_dict_from_url(
            src.as_uri(), model_dir=str(tmp_path / lib.__name__), file_name=name,
            check_hash=True, progress=False))
        return got if got[0] != "ok" else ("ok", {k: v.tolist() for k, v in got[1].items()})
    assert run(numtorch) == run(torch)


# -- WorkerInfo and multiprocessing_context, as torch's -------------------------------------------
def test_worker_info_record_like_torch():
    from torch.utils.data._utils.worker import WorkerInfo as TorchInfo

    from numtorch.utils.data._utils.worker import WorkerInfo as NtInfo

    def run(cls):
        w = cls(id=0, num_workers=2, seed=7, dataset=None)
        return repr(w), _outcome(lambda: setattr(w, "id", 3)), w == cls(0, 2, 7, None)
    assert run(NtInfo) == run(TorchInfo)


class _InfoDataset:
    def __init__(self, lib):
        self.lib = lib.__name__

    def __len__(self):
        return 2

    def __getitem__(self, i):
        info = __import__(self.lib).utils.data.get_worker_info()
        return (repr(info).replace(str(info.seed), "SEED").replace(hex(id(info.dataset)), "ID"),
                info.rng, info.worker_method)


def test_worker_info_in_a_worker_like_torch():
    def run(lib):
        return list(lib.utils.data.DataLoader(_InfoDataset(lib), batch_size=None, num_workers=1,
                                              multiprocessing_context="fork"))
    assert run(numtorch) == run(torch)


@pytest.mark.parametrize("value", ["spawn", "fork", "bogus", 3, None])
@pytest.mark.parametrize("when", ["init", "later", "no_workers"])
def test_multiprocessing_context_checked_and_converted(value, when):
    def run(lib):
        dl = lib.utils.data.DataLoader
        def go():
            if when == "init":
                loader = dl(range(3), num_workers=1, multiprocessing_context=value)
            else:
                loader = dl(range(3), num_workers=1 if when == "later" else 0)
                loader.multiprocessing_context = value
            return type(loader.multiprocessing_context).__name__
        return _outcome(go)
    assert run(numtorch) == run(torch)
