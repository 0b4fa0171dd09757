"""Session 49 (programs): what real programs call that numtorch lacked or did differently,
each checked against torch at test time.

- torch.utils.tensorboard.SummaryWriter: add_custom_scalars_multilinechart/marginchart,
  add_mesh, add_image_with_boxes and add_onnx_graph (missing before); the event files' records are compared
  with torch's field by field (wall times aside), images by their decoded pixels.
"""

import glob
import io

import numpy as np
import pytest
import torch

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
from tensorboard.compat.proto.event_pb2 import Event
from torch.utils.tensorboard import SummaryWriter as TorchWriter

import numtorch
from numtorch.utils.tensorboard import SummaryWriter


def _events(path):
    """Every record of the run in ``path`` but the file header: (event without wall time,
    decoded pixels of each image value)."""
    from PIL import Image

    out = []
    for f in sorted(glob.glob(str(path) + "/events*")):
        for raw in RawEventFileLoader(f).Load():
            ev = Event.FromString(raw)
            if ev.HasField("file_version"):
                continue
            ev.wall_time = 0
            pixels = []
            for v in ev.summary.value:
                if v.HasField("image"):
                    pixels.append(np.asarray(Image.open(io.BytesIO(
                        v.image.encoded_image_string))))
                    v.image.encoded_image_string = b""
            out.append((ev, pixels))
    return out


def _same_records(tmp_path, fn):
    """Run ``fn(writer, lib)`` on a torch writer and a numtorch writer; the two runs hold the
    same records."""
    runs = []
    for name, cls, lib in (("pt", TorchWriter, torch), ("nt", SummaryWriter, numtorch)):
        w = cls(str(tmp_path / name))
        fn(w, lib)
        w.close()
        runs.append(_events(tmp_path / name))
    pt, nt = runs
    assert len(pt) == len(nt) > 0
    for (ev_pt, px_pt), (ev_nt, px_nt) in zip(pt, nt):
        if ev_pt.HasField("graph_def") and ev_nt.HasField("graph_def"):
            # a graph is compared as a message: protobuf writes a node's attribute map in an
            # order that depends on its implementation (upb or pure Python)
            from tensorboard.compat.proto.graph_pb2 import GraphDef

            assert GraphDef.FromString(ev_nt.graph_def) == GraphDef.FromString(ev_pt.graph_def)
            ev_pt, ev_nt = (type(e).FromString(e.SerializeToString()) for e in (ev_pt, ev_nt))
            ev_pt.ClearField("graph_def")
            ev_nt.ClearField("graph_def")
        assert ev_nt == ev_pt, f"{ev_nt}\n!=\n{ev_pt}"
        assert len(px_nt) == len(px_pt)
        for a, b in zip(px_nt, px_pt):
            assert a.shape == b.shape
            np.testing.assert_array_equal(a, b)


def test_custom_scalars_charts(tmp_path):
    def log(w, lib):
        w.add_custom_scalars_multilinechart(["loss/train", "lr"])
        w.add_custom_scalars_multilinechart(["a", "b"], category="cat", title="t2")
        w.add_custom_scalars_marginchart(["m", "lo", "hi"], category="c3", title="mm")
    _same_records(tmp_path, log)


def test_marginchart_needs_three_tags(tmp_path):
    for cls in (TorchWriter, SummaryWriter):
        w = cls(str(tmp_path / cls.__module__.split(".")[0]))
        with pytest.raises(AssertionError):
            w.add_custom_scalars_marginchart(["a", "b"])
        w.close()


def test_mesh(tmp_path):
    g = np.random.default_rng(0)
    verts = g.random((1, 4, 3), dtype=np.float32)
    cols = g.integers(0, 255, (1, 4, 3))
    cloud = g.random((2, 5, 3), dtype=np.float32)

    def log(w, lib):
        w.add_mesh("mesh", lib.tensor(verts), colors=lib.tensor(cols),
                   faces=lib.tensor([[[0, 1, 2], [1, 2, 3]]]), global_step=0)
        w.add_mesh("pc", lib.tensor(cloud), global_step=3,
                   config_dict={"camera": {"cls": "PerspectiveCamera", "fov": 75}})
        w.add_mesh("np", verts, faces=np.array([[[0, 1, 2]]]))
    _same_records(tmp_path, log)


_IMG = np.random.default_rng(1).random((3, 40, 70), dtype=np.float32)


@pytest.mark.parametrize("case", ["plain", "labels", "float-boxes-rescale", "hwc-uint8",
                                  "one-channel", "hw", "no-boxes", "label-string",
                                  "too-many-labels", "too-few-labels", "rescale-int"])
def test_image_with_boxes(tmp_path, case):
    boxes2 = [[2, 3, 60, 35.], [5, 5, 30, 20]]

    def log(w, lib):
        img = lib.tensor(_IMG)
        if case == "plain":
            w.add_image_with_boxes("b", img, lib.tensor(boxes2), 1)
        elif case == "labels":
            w.add_image_with_boxes("b", img, lib.tensor(boxes2), 2,
                                   labels=["a longer label", "Wg"])
        elif case == "float-boxes-rescale":
            w.add_image_with_boxes("b", _IMG.transpose(1, 2, 0),
                                   np.array([[2.5, 3.7, 60.2, 35.9]]), 0, labels=["xy"],
                                   dataformats="HWC", rescale=1.5)
        elif case == "hwc-uint8":
            w.add_image_with_boxes("b", (img * 255).to(lib.uint8).permute(1, 2, 0),
                                   lib.tensor([[2, 3, 20, 30.]]), 2, dataformats="HWC")
        elif case == "one-channel":
            w.add_image_with_boxes("b", img[:1], lib.tensor([[1, 1, 30, 30.]]), 0)
        elif case == "hw":
            w.add_image_with_boxes("b", img[0], lib.tensor([[1, 1, 80, 80.]]), 0,
                                   dataformats="HW")
        elif case == "no-boxes":
            w.add_image_with_boxes("b", img, lib.zeros(0, 4), 0)
        elif case == "label-string":
            w.add_image_with_boxes("b", img, lib.tensor([[1, 1, 10, 15.]]), labels="ab")
        elif case == "too-many-labels":
            w.add_image_with_boxes("b", img, lib.tensor([[1, 1, 10, 15.]]), labels=["a", "b"])
        elif case == "too-few-labels":
            w.add_image_with_boxes("b", img, lib.tensor(boxes2), labels=["a"])
        elif case == "rescale-int":
            w.add_image_with_boxes("b", img, lib.tensor([[1, 2, 6, 8.]]), rescale=2)
    _same_records(tmp_path, log)


# torch.hub.load_state_dict_from_url names the download on stdout even without a progress bar

@pytest.mark.parametrize("progress", [False, True])
def test_load_state_dict_from_url_names_the_download(tmp_path, capfd, progress):
    src = tmp_path / "w.pth"
    torch.save({"a": torch.arange(3)}, str(src))
    url = "file://" + str(src)
    lines = []
    for name, lib in (("pt", torch), ("nt", numtorch)):
        sd = lib.hub.load_state_dict_from_url(url, model_dir=str(tmp_path / name),
                                              progress=progress)
        assert sd["a"].tolist() == [0, 1, 2]
        lines.append([ln.replace(f"/{name}/", "/DIR/") for ln in
                      capfd.readouterr().out.splitlines() if ln.startswith("Downloading")])
        # a second call finds the cached file and says nothing
        lib.hub.load_state_dict_from_url(url, model_dir=str(tmp_path / name),
                                         progress=progress)
        assert "Downloading" not in capfd.readouterr().out
    assert lines[0] == lines[1] and len(lines[0]) == 1


# torch.utils._pytree: treespec_dumps / treespec_loads / treespec_pprint / arg_tree_leaves were
# missing, and torch.Size was a leaf where torch makes it a node (unflattening to a tuple)

import collections

import torch.utils._pytree as _tpt

import numtorch.utils._pytree as _npt

_PT_NT = collections.namedtuple("_PT_NT", "a b")
_tpt._register_namedtuple(_PT_NT, serialized_type_name="s49.PT_NT")
_npt._register_namedtuple(_PT_NT, serialized_type_name="s49.PT_NT")

_TREES = {
    "list-tuple-none": lambda L: [1, (2, None)],
    "dict-int-keys": lambda L: {1: 2, "b": 3},
    "ordereddict": lambda L: collections.OrderedDict(z=1, a=[2]),
    "defaultdict": lambda L: collections.defaultdict(list, k=[1, 2]),
    "deque": lambda L: collections.deque([1, 2], maxlen=3),
    "leaf": lambda L: 3,
    "empty-list": lambda L: [],
    "namedtuple": lambda L: {"p": [_PT_NT(1, {"q": (2,)})]},
    "size": lambda L: L.Size([2, 3]),
    "tensor-shape": lambda L: (L.ones(2, 3), L.ones(4).shape),
}


@pytest.mark.parametrize("name", list(_TREES))
def test_treespec_dumps_loads(name):
    out = []
    for L, pt in ((torch, _tpt), (numtorch, _npt)):
        tree = _TREES[name](L)
        leaves, spec = pt.tree_flatten(tree)
        text = pt.treespec_dumps(spec)
        back = pt.treespec_loads(text)
        assert back == spec
        rebuilt = pt.tree_unflatten(leaves, back)
        out.append((text, pt.treespec_pprint(spec), [type(x).__name__ for x in leaves],
                    repr(pt.tree_map(lambda v: v * 2 if isinstance(v, int) else v, tree)),
                    type(rebuilt).__name__, spec.num_leaves, spec.num_nodes))
    assert out[0] == out[1]


def test_treespec_dumps_errors():
    class Unnamed:
        pass

    msgs = []
    for L, pt in ((torch, _tpt), (numtorch, _npt)):
        got = []
        nt = collections.namedtuple("NT", "x")
        for call in (lambda pt=pt, nt=nt: pt.treespec_dumps(pt.tree_structure(nt(1))),
                     lambda pt=pt: pt.treespec_dumps(pt.tree_structure([1]), protocol=7),
                     lambda pt=pt: pt.treespec_loads("[9, {}]"),
                     lambda pt=pt: pt.treespec_dumps([1])):
            with pytest.raises(Exception) as e:
                call()
            got.append((type(e.value).__name__, str(e.value).replace("torch", "T")
                        .replace("numtorch", "T")))
        msgs.append(got)
    assert msgs[0] == msgs[1]


def test_custom_node_serialization_and_arg_tree_leaves():
    out = []
    for pt in (_tpt, _npt):
        class Box:
            def __init__(self, a):
                self.a = a

        class Box2(Box):
            pass

        pt.register_pytree_node(Box, lambda b: ([b.a], {"k": 1}), lambda c, x: Box(*c),
                                serialized_type_name="s49.Box")
        pt.register_pytree_node(Box2, lambda b: ([b.a], 5), lambda c, x: Box2(*c),
                                serialized_type_name="s49.Box2",
                                to_dumpable_context=lambda c: [c],
                                from_dumpable_context=lambda c: c[0])
        texts = [pt.treespec_dumps(pt.tree_structure([Box(1), Box2(2)]))]
        spec = pt.treespec_loads(texts[0])
        texts.append(type(pt.tree_unflatten([3, 4], spec)[1]).__name__)
        texts.append(pt.arg_tree_leaves(1, [2], k=(3,), j={"z": [4, None]}))
        texts.append(pt.arg_tree_leaves())
        out.append(texts)
    assert out[0] == out[1]


# torch.profiler: a schedule with several cycles drops the earlier cycles' events, and torch
# warns about it (once per process) when the second cycle begins unless acc_events=True

import warnings

import torch.profiler.profiler as _tprof

import numtorch.profiler.profiler as _nprof


def _cycle_warnings(L, mod, sched, acc, steps, twice):
    mod._WARNINGS_SHOWN.clear()
    seen = []
    x = L.ones(3)
    kwargs = {"acc_events": acc}
    if sched is not None:
        kwargs["schedule"] = L.profiler.schedule(**sched)
    p = L.profiler.profile(activities=[L.profiler.ProfilerActivity.CPU], **kwargs)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        for _ in range(2 if twice else 1):
            p.start()
            for i in range(steps):
                (x * 2).sum()
                p.step()
                seen.append((i, sum("clears events" in str(w.message) for w in rec)))
            p.stop()
    return seen, sum("clears events" in str(w.message) for w in rec)


@pytest.mark.parametrize("sched,acc,steps,twice", [
    ({"wait": 1, "warmup": 1, "active": 2, "repeat": 2}, False, 10, False),
    ({"wait": 1, "warmup": 1, "active": 2, "repeat": 2}, True, 10, False),
    ({"wait": 0, "warmup": 0, "active": 1, "repeat": 3}, False, 5, False),
    ({"wait": 1, "warmup": 0, "active": 2}, False, 9, False),
    ({"wait": 0, "warmup": 2, "active": 1, "repeat": 1}, False, 6, False),
    ({"wait": 1, "warmup": 1, "active": 1, "repeat": 1, "skip_first": 2}, False, 8, True),
    (None, False, 2, True),
    (None, True, 2, True),
])
def test_profiler_cycle_warning(sched, acc, steps, twice):
    got_t = _cycle_warnings(torch, _tprof, sched, acc, steps, twice)
    got_n = _cycle_warnings(numtorch, _nprof, sched, acc, steps, twice)
    assert got_n == got_t


def test_treespec_children_specs_is_deprecated():
    """torch 2.13 warns FutureWarning on ``treespec.children_specs`` (the internal list
    itself; num_children keeps the count it was built with); children()/child() stay quiet."""
    out = []
    for pt in (_tpt, _npt):
        spec = pt.tree_structure([1, (2, 3)])
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            spec.children(), spec.child(1), spec.num_children
            quiet = len(rec)
            kids = spec.children_specs
            same = kids is spec.children_specs
            kids.append(pt.tree_structure(4))
            msgs = [(w.category.__name__, str(w.message), w.filename) for w in rec]
        out.append((quiet, same, spec.num_children, len(spec.children()), msgs))
    assert out[0] == out[1]
    assert out[0][4][0][2] == __file__


def _onnx_model_file(path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                          group=1),
         helper.make_node("Constant", [], ["k"], value=helper.make_tensor(
             "k", TensorProto.FLOAT, [2], [1.0, 2.5])),
         helper.make_node("Resize", ["c", "", "k"], ["r"], mode="nearest",
                          cubic_coeff_a=-0.75),
         helper.make_node("Relu", ["r"], ["y"]),
         helper.make_node("Add", ["i", "i"], ["j"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4]),
         helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, 10]),
         helper.make_tensor_value_info("j", TensorProto.INT64, [2])],
        [helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 3, 3], [0.1] * 9)])
    onnx.save(helper.make_model(g), str(path))
    return str(path)


def test_add_onnx_graph(tmp_path, capsys):
    model = _onnx_model_file(tmp_path / "m.onnx")
    printed = []

    def log(w, lib):
        w.add_onnx_graph(model)
        printed.append(capsys.readouterr().out)
    _same_records(tmp_path, log)
    assert printed[0] == printed[1] and printed[0].split() == ["x", "i", "y", "j", "c", "k",
                                                               "r", "y", "j"]
