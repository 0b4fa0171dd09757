"""torch.distributed.checkpoint in one process, against real torch 2.13 in another.

ranks/dcp_state.py builds the same state (a model's and Adam's state dicts, nested lists and
dicts, a strided view, several dtypes, plain values) under either library; ranks/dcp_torch.py
is torch's side: it writes a checkpoint, reads one numtorch wrote, runs the failing loads and
the state-dict helpers, each time dumping what it got as JSON.
"""

import io
import json
import os
import pickle
import subprocess
import sys
import warnings

import pytest

import numtorch
import numtorch.distributed.checkpoint as dcp
from numtorch.distributed.checkpoint import metadata as md_mod

from . import _launch

sys.path.insert(0, _launch.RANKS)
import dcp_state

TORCH_SIDE = os.path.join(_launch.RANKS, "dcp_torch.py")


def _torch(mode, ckpt, out):
    r = subprocess.run([sys.executable, TORCH_SIDE, mode, str(ckpt), str(out)],
                       capture_output=True, text=True, timeout=240, env=_launch.env(),
                       check=False)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    with open(out) as f:
        return json.load(f)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _json(value):
    return json.loads(json.dumps(value))


@pytest.fixture(scope="module")
def torch_ckpt(tmp_path_factory):
    d = tmp_path_factory.mktemp("dcp_torch")
    want = _torch("write", d / "ckpt", d / "written.json")
    return d / "ckpt", want


@pytest.fixture(scope="module")
def numtorch_ckpt(tmp_path_factory):
    d = tmp_path_factory.mktemp("dcp_numtorch")
    sd = dcp_state.build(numtorch)
    written = _json(dcp_state.dump(numtorch, sd))
    meta = _quiet(dcp.save, sd, checkpoint_id=d / "ckpt")
    return d / "ckpt", written, meta


def _without_empty(dumped):
    dumped = json.loads(json.dumps(dumped))
    del dumped["nested"]["empty"]  # an empty dict is not an entry: load leaves it out
    return dumped


def test_torch_checkpoint_loads_in_numtorch(torch_ckpt):
    ckpt, want = torch_ckpt
    sd = dcp_state.template(numtorch)
    view_target = sd["view"]
    _quiet(dcp.load, sd, checkpoint_id=ckpt)
    got = _json(dcp_state.dump(numtorch, sd))
    assert got == _without_empty(want)  # the same bytes: exactly equal
    assert sd["view"] is view_target  # tensors are filled in place


def test_numtorch_checkpoint_loads_in_torch(numtorch_ckpt, tmp_path):
    ckpt, written, _ = numtorch_ckpt
    got = _torch("read", ckpt, tmp_path / "read.json")
    assert got == _without_empty(written)


def test_numtorch_state_equals_torch_state(numtorch_ckpt, torch_ckpt):
    # the two libraries built the same state (the same NumPy draws, two Adam steps)
    dcp_state.close(numtorch_ckpt[1], torch_ckpt[1], 1e-5)


def _describe(meta):
    out = {}
    for fqn, m in meta.state_dict_metadata.items():
        if isinstance(m, md_mod.TensorStorageMetadata):
            p = m.properties
            out[fqn] = [str(p.dtype), str(p.layout), p.requires_grad, str(p.memory_format),
                        p.pin_memory, list(m.size),
                        [(list(c.offsets), list(c.sizes)) for c in m.chunks]]
        else:
            out[fqn] = type(m).__name__
    return out


def test_metadata_equals_torchs(numtorch_ckpt, torch_ckpt):
    ours = _quiet(dcp.FileSystemReader(numtorch_ckpt[0]).read_metadata)
    theirs = _quiet(dcp.FileSystemReader(torch_ckpt[0]).read_metadata)
    assert _describe(ours) == _describe(theirs)
    assert ours.planner_data == theirs.planner_data
    assert ours.version == theirs.version == "1.0.0"
    assert set(ours.storage_data) == set(theirs.storage_data)
    for index, info in ours.storage_data.items():
        assert isinstance(index, md_mod.MetadataIndex)
        assert info.relative_path == "__0_0.distcp" and info.length > 0
    assert str(ours.storage_meta.checkpoint_id) == str(numtorch_ckpt[0])
    assert ours.storage_meta.load_id is not None
    # save returns the metadata it wrote
    assert _describe(numtorch_ckpt[2]) == _describe(ours)


def test_load_errors_match_torch(torch_ckpt, tmp_path):
    ckpt, _ = torch_ckpt
    want = _torch("errors", ckpt, tmp_path / "errors.json")
    for name, make in dcp_state.ERROR_CASES.items():
        with pytest.raises(dcp.CheckpointException) as info:
            _quiet(dcp.load, make(numtorch), checkpoint_id=ckpt)
        lines = str(info.value).splitlines()
        assert [type(info.value).__name__, lines[0], lines[-1]] == want[name], name
        assert list(info.value.failures) == [0]
        exc, stack = info.value.failures[0]
        assert lines[-1].startswith(type(exc).__name__ + ": ") and len(stack) > 0
    with pytest.raises(RuntimeError) as info:
        dcp.load({"a": 1})
    assert ["RuntimeError", str(info.value)] == want["no_checkpoint_id"]
    assert not issubclass(dcp.CheckpointException, Exception)  # a BaseException, as torch's


def test_state_dict_helpers_match_torch(tmp_path):
    want = _torch("optim", "-", tmp_path / "optim.json")
    got = _json(_quiet(dcp_state.optim_cases, numtorch))
    assert set(got) == set(want)
    for key in want:
        dcp_state.close(got[key], want[key], 1e-5, key)


def test_missing_checkpoint_directory(tmp_path):
    with pytest.raises(dcp.CheckpointException) as info:
        _quiet(dcp.load, {"a": numtorch.zeros(1)}, checkpoint_id=tmp_path / "nothing")
    last = str(info.value).splitlines()[-1]
    assert last.startswith("AssertionError: metadata is None; global metadata read failed: "
                           "[Errno 2] No such file or directory: ")
    assert "rank local metadata read failed" in last and "__0.metadata" in last


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


def test_metadata_unpickling_refuses_other_globals(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ckpt = tmp_path / "ckpt"
    _quiet(dcp.save, {"a": numtorch.ones(2)}, checkpoint_id=ckpt)
    with open(ckpt / ".metadata", "wb") as f:
        pickle.dump(_Evil(), f)
    with pytest.raises(pickle.UnpicklingError, match="posix.system|os.system"):
        dcp.FileSystemReader(ckpt).read_metadata()
    with pytest.raises(dcp.CheckpointException):
        _quiet(dcp.load, {"a": numtorch.zeros(2)}, checkpoint_id=ckpt)
    assert not (tmp_path / "PWNED").exists()


def test_metadata_pickle_names_only_torch_classes(numtorch_ckpt):
    seen = set()

    class Names(pickle.Unpickler):
        def find_class(self, module, name):
            seen.add(f"{module}.{name}")
            # a stand-in class: takes any arguments and any state
            return type(name, (), {"__init__": lambda self, *a: None,
                                   "__setstate__": lambda self, state: None})

    with open(numtorch_ckpt[0] / ".metadata", "rb") as f:
        data = f.read()
    assert data[:2] == b"\x80\x04"  # protocol 4, as torch writes it
    import pickletools

    ops = {op.name for op, _, _ in pickletools.genops(data)}
    assert "STACK_GLOBAL" in ops and "GLOBAL" not in ops
    Names(io.BytesIO(data)).load()
    assert not [n for n in seen if "numtorch" in n], seen
    assert {"torch.distributed.checkpoint.metadata.Metadata", "torch.Size",
            "torch.float32", "torch.serialization._get_layout",
            "torch.distributed.checkpoint.filesystem._StorageInfo"} <= seen


class _Counter:
    """A Stateful user object."""

    def __init__(self):
        self.n, self.loaded = 0, None

    def state_dict(self):
        return {"n": self.n, "t": numtorch.full((2,), float(self.n))}

    def load_state_dict(self, sd):
        self.loaded = sd
        self.n = sd["n"]


def test_stateful_modules_optimizers_and_objects(tmp_path):
    numtorch.manual_seed(0)
    m = numtorch.nn.Linear(3, 2)
    opt = numtorch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    m(numtorch.randn(4, 3)).sum().backward()
    opt.step()
    c = _Counter()
    c.n = 5
    _quiet(dcp.save, {"model": m, "optim": opt, "counter": c}, checkpoint_id=tmp_path / "c")
    m2 = numtorch.nn.Linear(3, 2)
    opt2 = numtorch.optim.SGD(m2.parameters(), lr=0.1, momentum=0.9)
    m2(numtorch.randn(4, 3)).sum().backward()
    opt2.step()
    c2 = _Counter()
    _quiet(dcp.load, {"model": m2, "optim": opt2, "counter": c2}, checkpoint_id=tmp_path / "c")
    assert c2.n == 5 and c2.loaded["t"].tolist() == [5.0, 5.0]
    for a, b in zip(m.parameters(), m2.parameters()):
        assert numtorch.equal(a, b)
    for a, b in zip(m.parameters(), m2.parameters()):
        assert numtorch.equal(opt.state[a]["momentum_buffer"], opt2.state[b]["momentum_buffer"])


def test_async_save_and_deprecated_entry_points(tmp_path):
    t = numtorch.arange(6.0)
    fut = _quiet(dcp.async_save, {"t": t, "k": "v"}, checkpoint_id=tmp_path / "a")
    t.add_(100)  # the save works from a copy taken at the call
    import concurrent.futures

    assert isinstance(fut, concurrent.futures.Future)
    assert isinstance(fut.result(timeout=60), dcp.Metadata)
    back = {"t": numtorch.zeros(6), "k": None}
    _quiet(dcp.load, back, checkpoint_id=tmp_path / "a")
    assert back["t"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and back["k"] == "v"
    with pytest.warns(FutureWarning, match="`save_state_dict` is deprecated"):
        dcp.save_state_dict({"t": t}, dcp.FileSystemWriter(tmp_path / "d"), no_dist=True)
    got = {"t": numtorch.zeros(6)}
    with pytest.warns(FutureWarning, match="`load_state_dict` is deprecated"):
        dcp.load_state_dict(got, dcp.FileSystemReader(tmp_path / "d"), no_dist=True)
    assert numtorch.equal(got["t"], t)
    with pytest.warns(UserWarning, match="assuming the intent is to save in a single process"):
        dcp.save({"t": t}, checkpoint_id=tmp_path / "e")
    # without no_dist the deprecated pair needs a process group, as torch's do
    for call in (lambda: dcp.save_state_dict({"t": t}, dcp.FileSystemWriter(tmp_path / "f")),
                 lambda: dcp.load_state_dict(got, dcp.FileSystemReader(tmp_path / "d"))):
        with pytest.raises(ValueError, match="^Default process group has not been "
                                             "initialized, please make sure to call "
                                             "init_process_group.$"):
            _quiet(call)


def test_writer_options_partial_load_and_overwrite(tmp_path, numtorch_ckpt):
    sd = {"a": numtorch.ones(3), "b": numtorch.arange(4), "c": 1, "d": [numtorch.zeros(1)]}
    w = dcp.FileSystemWriter(tmp_path / "w", thread_count=2)
    _quiet(dcp.save, sd, storage_writer=w)
    files = sorted(p.name for p in (tmp_path / "w").iterdir())
    assert files == [".metadata", "__0_0.distcp", "__0_1.distcp"]
    _quiet(dcp.save, sd, storage_writer=dcp.FileSystemWriter(tmp_path / "x",
                                                            single_file_per_rank=False))
    assert len([p for p in (tmp_path / "x").iterdir() if p.suffix == ".distcp"]) == 4
    for where in ("w", "x"):
        back = {"a": numtorch.zeros(3), "b": numtorch.zeros(4, dtype=numtorch.int64), "c": 0,
                "d": [numtorch.ones(1)]}
        _quiet(dcp.load, back, checkpoint_id=tmp_path / where)
        assert back["a"].tolist() == [1, 1, 1] and back["b"].tolist() == [0, 1, 2, 3]
        assert back["c"] == 1 and back["d"][0].tolist() == [0.0]
    # dtype of the destination wins (torch copies into it)
    back = {"a": numtorch.zeros(3, dtype=numtorch.float64)}
    _quiet(dcp.load, back, checkpoint_id=tmp_path / "w",
           planner=dcp.DefaultLoadPlanner(allow_partial_load=True))
    assert back["a"].dtype == numtorch.float64 and back["a"].tolist() == [1, 1, 1]
    partial = {"a": numtorch.zeros(3), "zz": numtorch.full((1,), 7.0)}
    _quiet(dcp.load, partial, checkpoint_id=tmp_path / "w",
           planner=dcp.DefaultLoadPlanner(allow_partial_load=True))
    assert partial["zz"].tolist() == [7.0] and partial["a"].tolist() == [1, 1, 1]
    with pytest.raises(dcp.CheckpointException) as info:
        _quiet(dcp.save, sd, storage_writer=dcp.FileSystemWriter(tmp_path / "w",
                                                                overwrite=False))
    assert str(info.value).splitlines()[-1] == \
        "RuntimeError: Checkpoint already exists and self.overwrite=False."
    with pytest.warns(UserWarning, match="Detected an existing checkpoint in"):
        dcp.save(sd, checkpoint_id=tmp_path / "w", no_dist=True)


def test_format_utils_match_torch(torch_ckpt, numtorch_ckpt, tmp_path):
    from numtorch.distributed.checkpoint import format_utils

    ckpt, _ = torch_ckpt
    want = _torch("convert", ckpt, tmp_path / "convert.json")
    format_utils.dcp_to_torch_save(ckpt, tmp_path / "ours.pt")
    got = _json(dcp_state.dump(numtorch, numtorch.load(tmp_path / "ours.pt",
                                                       weights_only=False)))
    assert got == want  # the whole checkpoint, nested as saved (keys as strings)
    # and back: a torch.save file as a checkpoint torch reads
    numtorch.save({"model": dcp_state.build(numtorch)["model"], "tag": "t"},
                  tmp_path / "plain.pt")
    format_utils.torch_save_to_dcp(tmp_path / "plain.pt", tmp_path / "from_pt")
    again = _torch("convert", tmp_path / "from_pt", tmp_path / "again.json")
    assert again == _json(dcp_state.dump(numtorch, numtorch.load(tmp_path / "plain.pt")))
    # load with an empty dict and the template-free planner: torch's load leaves the dict
    # empty (the planner fills load's own copy); the planner itself rebuilds everything
    from numtorch.distributed.checkpoint.default_planner import _EmptyStateDictLoadPlanner

    empty = {}
    _quiet(dcp.load, empty, checkpoint_id=ckpt, planner=_EmptyStateDictLoadPlanner())
    assert empty == {}


def test_user_planner_subclasses(tmp_path):
    """The hooks users override on the default planners are the ones save/load call."""

    class Prefixing(dcp.DefaultSavePlanner):
        def set_up_planner(self, state_dict, storage_meta=None, is_coordinator=False):
            super().set_up_planner({f"v1.{k}": v for k, v in state_dict.items()},
                                   storage_meta, is_coordinator)

        def transform_object(self, write_item, object):
            if write_item.type.name == "BYTE_IO":
                object = f"<{object}>"
            return super().transform_object(write_item, object)

    class Doubling(dcp.DefaultLoadPlanner):
        def commit_tensor(self, read_item, tensor):
            tensor.mul_(2)

    _quiet(dcp.save, {"w": numtorch.arange(4.0), "tag": "x"}, checkpoint_id=tmp_path / "p",
           planner=Prefixing())
    meta = dcp.FileSystemReader(tmp_path / "p").read_metadata()
    assert sorted(meta.state_dict_metadata) == ["v1.tag", "v1.w"]
    back = {"v1": {"w": numtorch.zeros(4), "tag": None}}
    _quiet(dcp.load, back, checkpoint_id=tmp_path / "p", planner=Doubling())
    assert back["v1"]["w"].tolist() == [0.0, 2.0, 4.0, 6.0] and back["v1"]["tag"] == "<x>"


def test_destinations_of_every_kind(tmp_path):
    """Whole chunks are read straight into contiguous destinations; other destinations
    (strided views, other dtypes, parts of chunks) go through a loaded copy."""
    src = numtorch.arange(12.0).reshape(3, 4)
    _quiet(dcp.save, {"a": src, "b": src, "c": src, "d": src.to(numtorch.bfloat16)},
           checkpoint_id=tmp_path / "k")
    strided = numtorch.zeros(4, 3).t()
    assert not strided.is_contiguous()
    back = {"a": numtorch.zeros(3, 4), "b": strided, "c": numtorch.zeros(3, 4, dtype=numtorch.int32),
            "d": numtorch.zeros(3, 4, dtype=numtorch.bfloat16)}
    _quiet(dcp.load, back, checkpoint_id=tmp_path / "k")
    assert back["a"].tolist() == src.tolist() and back["b"].tolist() == src.tolist()
    assert back["c"].tolist() == src.int().tolist() and back["b"] is strided
    assert back["d"].float().tolist() == src.tolist()


def _hf_files(path):
    """Each safetensors file's header (sharding info parsed) and the index, for comparing."""
    import struct

    out = {}
    for name in sorted(os.listdir(path)):
        with open(os.path.join(path, name), "rb") as f:
            data = f.read()
        if name.endswith(".json"):
            out[name] = json.loads(data)
            continue
        n = struct.unpack("<Q", data[:8])[0]
        header = json.loads(data[8:8 + n])
        meta = header.pop("__metadata__")
        meta["DCP_SHARDING_INFO"] = json.loads(meta["DCP_SHARDING_INFO"])
        out[name] = {"meta": meta, "entries": {k: [v["dtype"], v["shape"]]
                                               for k, v in header.items()}}
    return out


def test_hugging_face_storage_both_directions(tmp_path):
    want = _torch("hf_write", tmp_path / "theirs", tmp_path / "hf_theirs.json")
    sd = dcp_state.hf_state(numtorch)
    _quiet(dcp.save, sd, storage_writer=dcp.HuggingFaceStorageWriter(
        tmp_path / "ours", fqn_to_index_mapping=dcp_state.HF_MAPPING))
    assert _hf_files(tmp_path / "ours") == _hf_files(tmp_path / "theirs")
    # torch reads numtorch's files, numtorch reads torch's
    got = _torch("hf_read", tmp_path / "ours", tmp_path / "hf_read.json")
    assert got == _json(dcp_state.dump(numtorch, sd))
    back = {k: numtorch.zeros_like(v) for k, v in sd.items()}
    _quiet(dcp.load, back, storage_reader=dcp.HuggingFaceStorageReader(tmp_path / "theirs"))
    assert _json(dcp_state.dump(numtorch, back)) == want
    # a plain Hugging Face file (no DCP metadata), loaded with a dtype change
    (tmp_path / "plain").mkdir()
    numtorch.serialization.save_safetensors({"w": numtorch.arange(6.0).reshape(2, 3)},
                                            tmp_path / "plain" / "model.safetensors")
    into = {"w": numtorch.zeros(2, 3, dtype=numtorch.float64)}
    _quiet(dcp.load, into, storage_reader=dcp.HuggingFaceStorageReader(tmp_path / "plain"))
    assert into["w"].tolist() == [[0, 1, 2], [3, 4, 5]] and into["w"].dtype == numtorch.float64
    with pytest.raises(dcp.CheckpointException, match="stores tensors only"):
        _quiet(dcp.save, {"n": 3}, storage_writer=dcp.HuggingFaceStorageWriter(tmp_path / "n"))


def test_device_tensors_round_trip(device, tmp_path):
    """Tensors on the device are written as host data (the checkpoint loads anywhere) and
    loaded back into device tensors, whole chunks and regions alike."""
    src = numtorch.arange(12.0, device=device).reshape(3, 4)
    _quiet(dcp.save, {"a": src, "n": 1}, checkpoint_id=tmp_path / "dev")
    info = dcp.FileSystemReader(tmp_path / "dev").read_metadata()
    assert str(info.state_dict_metadata["a"].properties.dtype) == "torch.float32"
    back = {"a": numtorch.zeros(3, 4, device=device), "n": 0}
    _quiet(dcp.load, back, checkpoint_id=tmp_path / "dev")
    assert back["a"].device.type == src.device.type and back["n"] == 1
    assert back["a"].cpu().tolist() == src.cpu().tolist()
    on_cpu = {"a": numtorch.zeros(3, 4, device="cpu")}
    _quiet(dcp.load, on_cpu, checkpoint_id=tmp_path / "dev")
    assert on_cpu["a"].tolist() == src.cpu().tolist()
