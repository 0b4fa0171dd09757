"""numtorch.utils.tensorboard against torch.utils.tensorboard: the same calls on both writers,
every file read back with TensorBoard's own EventAccumulator and compared (values, tags, steps,
decoded pixels, plugin payloads), plus the record framing and a writer killed mid-run."""

import glob
import io
import os
import signal
import struct
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import torch
from torch.utils.tensorboard import SummaryWriter as TorchWriter

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa
from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c as tb_crc
from tensorboard.util import tensor_util

import numtorch
from numtorch.utils.tensorboard import SummaryWriter
from numtorch.utils.tensorboard import _record

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RNG = np.random.default_rng(3)


def _text(path):
    with open(path) as f:
        return f.read()


def _both(tmp_path, fn, **kwargs):
    """Run ``fn(writer, lib)`` on a numtorch writer and a torch writer; return both dirs."""
    dirs = []
    for name, cls, lib in (("nt", SummaryWriter, numtorch), ("pt", TorchWriter, torch)):
        d = str(tmp_path / name)
        w = cls(d, **kwargs)
        fn(w, lib)
        w.close()
        dirs.append(d)
    return dirs


def _acc(path):
    acc = EventAccumulator(path, size_guidance={k: 0 for k in (
        "scalars", "histograms", "images", "audio", "tensors", "compressedHistograms")})
    acc.Reload()
    return acc


def test_scalars_and_add_scalars(tmp_path):
    def log(w, lib):
        for step in range(5):
            w.add_scalar("loss", 1.0 / (step + 1), step)
        w.add_scalar("loss", lib.tensor(2.5), 7, walltime=1234.5)
        w.add_scalar("acc", np.float32(0.25), 2)
        w.add_scalar("nv", 3.0, 5, new_style=True)
        w.add_scalar("nvd", 1 / 3, 5, new_style=True, double_precision=True)
        w.add_scalars("run/x", {"a": 1.0, "b": lib.tensor(2.0)}, 1)
        w.add_scalars("run/x", {"a": 3.0, "b": 4.0}, 2)

    nt, pt = _both(tmp_path, log)
    a, b = _acc(nt), _acc(pt)
    assert sorted(a.Tags()["scalars"]) == sorted(b.Tags()["scalars"])
    for tag in ("loss", "acc"):
        got = [(e.step, e.value) for e in a.Scalars(tag)]
        assert got == [(e.step, e.value) for e in b.Scalars(tag)]
    assert a.Scalars("loss")[-1].wall_time == b.Scalars("loss")[-1].wall_time == 1234.5
    for tag in ("nv", "nvd"):
        ta, tb = a.Tensors(tag)[0], b.Tensors(tag)[0]
        assert ta.step == tb.step
        assert tensor_util.make_ndarray(ta.tensor_proto) == \
            tensor_util.make_ndarray(tb.tensor_proto)
        assert ta.tensor_proto.dtype == tb.tensor_proto.dtype
    subs = sorted(os.listdir(nt)), sorted(os.listdir(pt))
    assert [s for s in subs[0] if "events" not in s] == [s for s in subs[1] if "events" not in s]
    for sub in ("run_x_a", "run_x_b"):
        sa, sb = _acc(os.path.join(nt, sub)), _acc(os.path.join(pt, sub))
        assert [(e.step, e.value) for e in sa.Scalars("run/x")] == \
            [(e.step, e.value) for e in sb.Scalars("run/x")]


@pytest.mark.parametrize("bins,max_bins", [("tensorflow", None), (10, None), ("auto", None),
                                           (10, 3), ("fd", 4), ([-1.0, 0.0, 0.5, 3.0], None)])
def test_histograms(tmp_path, bins, max_bins):
    data = [RNG.standard_normal(500), np.arange(10.0), np.array([-3.0, 0.0, 0.0, 2.5, 7.0]),
            RNG.standard_normal((4, 5)).astype(np.float32)]

    def log(w, lib):
        for i, d in enumerate(data):
            w.add_histogram("h", lib.from_numpy(np.array(d)) if i == 3 else d, i, bins=bins,
                            max_bins=max_bins)

    nt, pt = _both(tmp_path, log)
    ha, hb = _acc(nt).Histograms("h"), _acc(pt).Histograms("h")
    assert len(ha) == len(hb) == len(data)
    for x, y in zip(ha, hb):
        assert x.step == y.step
        assert x.histogram_value == y.histogram_value


def test_histogram_raw(tmp_path):
    def log(w, lib):
        w.add_histogram_raw("r", 0.0, 5.0, 10, 20.0, 50.0, [1.0, 3.0, 5.0], [2, 3, 5], 4)

    nt, pt = _both(tmp_path, log)
    assert _acc(nt).Histograms("r")[0].histogram_value == \
        _acc(pt).Histograms("r")[0].histogram_value
    with pytest.raises(ValueError):
        SummaryWriter(str(tmp_path / "e")).add_histogram_raw("r", 0, 1, 1, 1, 1, [1, 2], [1])


def _pixels(image_event):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(image_event.encoded_image_string)))


IMAGES = [
    ("chw", RNG.random((3, 6, 7)), {}),
    ("chw1", RNG.random((1, 6, 7)), {}),
    ("hwc_u8", RNG.integers(0, 256, (5, 4, 3), dtype=np.uint8), {"dataformats": "HWC"}),
    ("hw", RNG.random((5, 4)), {"dataformats": "HW"}),
    ("rgba", RNG.random((4, 3, 3)), {}),
    ("over", RNG.random((3, 2, 2)) * 3 - 1, {}),
]


def test_images_decode_to_the_same_pixels(tmp_path):
    batch = RNG.random((10, 3, 4, 5)).astype(np.float32)

    def log(w, lib):
        for tag, img, kw in IMAGES:
            w.add_image(tag, img, 1, **kw)
        w.add_image("tensor", lib.from_numpy(batch[0]), 2)
        w.add_images("grid", lib.from_numpy(batch), 3)
        w.add_images("nhwc", batch[:3].transpose(0, 2, 3, 1), 3, dataformats="NHWC")
        w.add_images("gray", batch[:2, :1], 3)

    nt, pt = _both(tmp_path, log)
    a, b = _acc(nt), _acc(pt)
    tags = sorted(a.Tags()["images"])
    assert tags == sorted(b.Tags()["images"]) and len(tags) == len(IMAGES) + 4
    for tag in tags:
        x, y = a.Images(tag)[0], b.Images(tag)[0]
        assert (x.step, x.width, x.height) == (y.step, y.width, y.height)
        np.testing.assert_array_equal(_pixels(x), _pixels(y))
    assert a.Images("grid")[0].width == 8 * 5 and a.Images("grid")[0].height == 2 * 4


def test_image_errors_match(tmp_path):
    w, tw = SummaryWriter(str(tmp_path / "a")), TorchWriter(str(tmp_path / "b"))
    for img, fmt in ((np.zeros((3, 4)), "CHW"), (np.zeros((2, 3, 4)), "CCW")):
        with pytest.raises(AssertionError) as ours:
            w.add_image("x", img, dataformats=fmt)
        with pytest.raises(AssertionError) as theirs:
            tw.add_image("x", img, dataformats=fmt)
        assert " ".join(str(ours.value).split()) == " ".join(str(theirs.value).split())
    with pytest.raises(AssertionError) as ours:
        w.add_scalar("s", np.array([1.0, 2.0]))
    with pytest.raises(AssertionError) as theirs:
        tw.add_scalar("s", np.array([1.0, 2.0]))
    assert " ".join(str(ours.value).split()) == " ".join(str(theirs.value).split())
    w.close()
    tw.close()


def test_figure(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def fig():
        f = plt.figure(figsize=(2, 1.5), dpi=40)
        plt.plot([0, 1, 2], [2, 0, 1])
        return f

    def log(w, lib):
        w.add_figure("one", fig(), 1)
        w.add_figure("two", [fig(), fig()], 2)

    nt, pt = _both(tmp_path, log)
    a, b = _acc(nt), _acc(pt)
    for tag in ("one", "two"):
        np.testing.assert_array_equal(_pixels(a.Images(tag)[0]), _pixels(b.Images(tag)[0]))


def test_text_tensor_pr_curve_audio(tmp_path):
    labels = RNG.integers(0, 2, 200)
    preds = np.clip(labels * 0.3 + RNG.random(200) * 0.7, 0, 1)
    weights = RNG.random(200)
    sound = np.sin(np.arange(300) / 7.0) * 1.2

    def log(w, lib):
        w.add_text("notes", "hello *markdown*", 1)
        w.add_text("notes", "second", 2)
        w.add_tensor("t", lib.arange(6.0).reshape(2, 3), 4)
        w.add_pr_curve("pr", labels, preds, 1)
        w.add_pr_curve("prw", lib.from_numpy(labels), lib.from_numpy(preds), 2,
                       num_thresholds=20, weights=weights)
        w.add_pr_curve_raw("prr", [5, 3, 1], [4, 2, 0], [0, 2, 4], [0, 2, 4], [0.5, 0.6, 1.0],
                           [1.0, 0.6, 0.2], 3, num_thresholds=3)
        w.add_audio("snd", sound, 1, sample_rate=8000)

    nt, pt = _both(tmp_path, log)
    a, b = _acc(nt), _acc(pt)
    assert sorted(a.Tags()["tensors"]) == sorted(b.Tags()["tensors"])
    for tag in a.Tags()["tensors"]:
        for x, y in zip(a.Tensors(tag), b.Tensors(tag), strict=True):
            assert x.step == y.step
            xa, ya = tensor_util.make_ndarray(x.tensor_proto), \
                tensor_util.make_ndarray(y.tensor_proto)
            assert xa.dtype == ya.dtype and xa.shape == ya.shape
            if xa.dtype == object:
                assert xa.tolist() == ya.tolist()
            else:
                np.testing.assert_allclose(xa, ya, rtol=1e-6)
        assert a.SummaryMetadata(tag) == b.SummaryMetadata(tag)
    x, y = a.Audio("snd")[0], b.Audio("snd")[0]
    assert (x.step, x.sample_rate, x.length_frames) == (y.step, y.sample_rate, y.length_frames)
    assert x.encoded_audio_string == y.encoded_audio_string


def test_hparams_and_custom_scalars(tmp_path):
    from tensorboard.plugins.hparams import plugin_data_pb2

    def log(w, lib):
        w.add_hparams({"lr": 0.1, "bs": 4, "opt": "sgd", "flag": True, "t": lib.tensor([0.5])},
                      {"hp/acc": 0.9, "hp/loss": 0.2},
                      hparam_domain_discrete={"opt": ["sgd", "adam"]}, run_name="trial",
                      global_step=3)
        w.add_custom_scalars({"grp": {"lines": ["Multiline", ["a", "b"]],
                                      "band": ["Margin", ["m", "lo", "hi"]]}})

    nt, pt = _both(tmp_path, log)
    a, b = _acc(os.path.join(nt, "trial")), _acc(os.path.join(pt, "trial"))
    for tag in ("_hparams_/experiment", "_hparams_/session_start_info",
                "_hparams_/session_end_info"):
        pa = plugin_data_pb2.HParamsPluginData.FromString(
            a.SummaryMetadata(tag).plugin_data.content)
        pb = plugin_data_pb2.HParamsPluginData.FromString(
            b.SummaryMetadata(tag).plugin_data.content)
        assert pa == pb
    for tag in ("hp/acc", "hp/loss"):
        assert [(e.step, e.value) for e in a.Scalars(tag)] == \
            [(e.step, e.value) for e in b.Scalars(tag)]
    ca = _acc(nt).Tensors("custom_scalars__config__")[0].tensor_proto
    cb = _acc(pt).Tensors("custom_scalars__config__")[0].tensor_proto
    assert ca == cb
    w, tw = SummaryWriter(str(tmp_path / "e1")), TorchWriter(str(tmp_path / "e2"))
    for bad, exc in ((([1], {}), TypeError), (({"a": [1]}, {}), ValueError)):
        with pytest.raises(exc) as ours:
            w.add_hparams(*bad)
        with pytest.raises(exc) as theirs:
            tw.add_hparams(*bad)
        assert str(ours.value) == str(theirs.value)


def test_embedding_files_match(tmp_path):
    from google.protobuf import text_format
    from PIL import Image
    from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

    mat = RNG.standard_normal((6, 4)).astype(np.float32)
    imgs = RNG.random((6, 3, 5, 5)).astype(np.float32)

    def log(w, lib):
        w.add_embedding(lib.from_numpy(mat), metadata=list("abcdef"), global_step=2,
                        tag="my emb", label_img=lib.from_numpy(imgs))
        w.add_embedding(mat, metadata=[[i, i * 2] for i in range(6)],
                        metadata_header=["x", "y"])

    nt, pt = _both(tmp_path, log)
    files = sorted(os.path.relpath(p, nt) for p in glob.glob(nt + "/0*/**/*", recursive=True))
    assert files == sorted(os.path.relpath(p, pt) for p in glob.glob(pt + "/0*/**/*",
                                                                         recursive=True))
    for rel in files:
        if rel.endswith(".tsv"):
            assert _text(os.path.join(nt, rel)) == _text(os.path.join(pt, rel))
        elif rel.endswith(".png"):
            np.testing.assert_array_equal(np.asarray(Image.open(os.path.join(nt, rel))),
                                          np.asarray(Image.open(os.path.join(pt, rel))))
    configs = [text_format.Parse(_text(os.path.join(d, "projector_config.pbtxt")),
                                 ProjectorConfig()) for d in (nt, pt)]
    assert configs[0] == configs[1]


class Net(numtorch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = numtorch.nn.Linear(4, 5)
        self.seq = numtorch.nn.Sequential(numtorch.nn.ReLU(), numtorch.nn.Linear(5, 2))

    def forward(self, x):
        return self.seq(self.fc1(x)) * 2


def test_add_graph(tmp_path):
    net = Net()
    net.train()
    w = SummaryWriter(str(tmp_path / "g"))
    w.add_graph(net, numtorch.randn(3, 4))
    w.close()
    assert net.training and all(m.training for m in net.modules())
    acc = _acc(str(tmp_path / "g"))
    g = acc.Graph()
    names = {n.name: n for n in g.node}
    ops = [n.op for n in g.node]
    assert ops.count("IO Node") == 2
    assert "aten::linear" in ops and "aten::relu" in ops and "aten::mul" in ops
    lin = next(n for n in g.node if n.name.startswith("Net/Linear[fc1]/aten::linear"))
    assert list(lin.input) == ["input/input.0", "Net/Linear[fc1]/weight", "Net/Linear[fc1]/bias"]
    relu = next(n for n in g.node if n.op == "aten::relu")
    assert relu.name.startswith("Net/Sequential[seq]/ReLU[0]/") and list(relu.input) == [lin.name]
    shape = names["output/output.0"].attr["_output_shapes"].list.shape[0]
    assert [d.size for d in shape.dim] == [3, 2]
    meta = acc.RunMetadata("step1")
    assert {s.node_name for s in meta.step_stats.dev_stats[0].node_stats} == \
        {n.name for n in g.node if n.op.startswith("aten::")}
    # torch's own trace of the same architecture has the same scopes and IO nodes
    tw = TorchWriter(str(tmp_path / "tg"))
    tw.add_graph(_TorchNet(), torch.randn(3, 4))
    tw.close()
    tg = _acc(str(tmp_path / "tg")).Graph()
    for scope in ("Linear[fc1]", "Sequential[seq]/ReLU[0]", "Sequential[seq]/Linear[1]"):
        assert any(scope in n.name for n in tg.node) and any(scope in n.name for n in g.node)
    assert [n.op for n in tg.node].count("IO Node") == ops.count("IO Node")


class _TorchNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 5)
        self.seq = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(5, 2))

    def forward(self, x):
        return self.seq(self.fc1(x)) * 2


def test_purge_step_and_file_names(tmp_path, monkeypatch):
    def log(w, lib):
        for s in range(10):
            w.add_scalar("x", float(s), s)

    def resume(w, lib):
        for s in range(5, 8):
            w.add_scalar("x", 100.0 + s, s)

    nt, pt = _both(tmp_path, log)
    time.sleep(1.05)  # event file names carry the second: resumed files sort after
    _both(tmp_path, resume, purge_step=5, filename_suffix=".resumed")
    a, b = _acc(nt), _acc(pt)
    got = [(e.step, e.value) for e in a.Scalars("x")]
    assert got == [(e.step, e.value) for e in b.Scalars("x")]
    assert [s for s, _ in got] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert len(glob.glob(nt + "/events.out.tfevents.*.resumed")) == 1
    name = os.path.basename(glob.glob(nt + "/*.resumed")[0]).split(".")
    assert name[:3] == ["events", "out", "tfevents"] and name[5] == str(os.getpid())
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1")
    w.close()
    (run,) = os.listdir(tmp_path / "runs")
    assert run.endswith("_" + __import__("socket").gethostname() + "_lr0.1")
    assert w.get_logdir() == os.path.join("runs", run)


def test_flush_close_and_background_flush(tmp_path):
    w = SummaryWriter(str(tmp_path), max_queue=2, flush_secs=0.2)
    for s in range(20):  # more than max_queue: add_scalar waits for the writer thread
        w.add_scalar("a", s * 0.5, s)
    def seen():
        acc = _acc(str(tmp_path))
        return len(acc.Scalars("a")) if "a" in acc.Tags()["scalars"] else 0

    deadline = time.time() + 5
    while time.time() < deadline and seen() < 20:
        time.sleep(0.05)  # no flush(): the thread flushes every flush_secs
    assert [e.step for e in _acc(str(tmp_path)).Scalars("a")] == list(range(20))
    w.close()
    w.close()
    w.add_scalar("a", 1.0, 20)  # after close, a new event file is opened (as torch)
    w.flush()
    assert len(glob.glob(str(tmp_path / "events*"))) == 2
    with SummaryWriter(str(tmp_path / "ctx")) as w2:
        w2.add_text("t", "x")
    assert _acc(str(tmp_path / "ctx")).Tags()["tensors"] == ["t/text_summary"]


def _records(path):
    with open(path, "rb") as f:
        data = f.read()
    out, pos = [], 0
    while pos + 12 <= len(data):
        header = data[pos:pos + 8]
        (n,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[pos + 8:pos + 12])[0] == tb_crc(header)
        if pos + 16 + n > len(data):
            break  # a record cut short by the kill
        payload = data[pos + 12:pos + 12 + n]
        assert struct.unpack("<I", data[pos + 12 + n:pos + 16 + n])[0] == tb_crc(payload)
        out.append(payload)
        pos += 16 + n
    return out


def test_crc32c_matches_tensorboard():
    for n in (0, 1, 7, 100, 4095, 4096, 5000, 65536 + 13, 300_001):
        data = RNG.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert _record.masked_crc32c(data) == tb_crc(data)


def test_killed_writer_leaves_readable_files(tmp_path):
    script = textwrap.dedent(f"""
        import sys, numpy as np
        sys.path.insert(0, {ROOT!r})
        from numtorch.utils.tensorboard import SummaryWriter
        w = SummaryWriter({str(tmp_path)!r}, flush_secs=0.05)
        img = np.random.default_rng(0).random((3, 64, 64))
        step = 0
        while True:
            w.add_scalar("loss", step * 0.5, step)
            w.add_image("img", img, step)
            if step == 30:
                w.flush()
                print("flushed", flush=True)
            step += 1
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert child.stdout.readline().strip() == b"flushed"
    time.sleep(0.3)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    (path,) = glob.glob(str(tmp_path / "events*"))
    assert len(_records(path)) >= 1 + 2 * 31  # every complete record has valid CRCs
    steps = [e.step for e in _acc(str(tmp_path)).Scalars("loss")]
    assert steps == list(range(len(steps))) and len(steps) >= 31
    assert len(_acc(str(tmp_path)).Images("img")) >= 31


def test_missing_tensorboard_names_the_extra():
    code = ("import sys; sys.modules['tensorboard'] = None\n"
            "try:\n    import numtorch.utils.tensorboard\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=False)
    assert 'pip install "numtorch[tensorboard]"' in out.stdout


def test_video_is_an_animated_gif(tmp_path):
    from PIL import Image

    vid = RNG.random((2, 3, 3, 4, 5))
    w = SummaryWriter(str(tmp_path))
    w.add_video("v", vid, 1, fps=5)
    w.close()
    ev = _acc(str(tmp_path)).Images("v")[0]
    gif = Image.open(io.BytesIO(ev.encoded_image_string))
    assert gif.format == "GIF" and gif.n_frames == 3 and (ev.width, ev.height) == (10, 4)
    gif.seek(1)
    first = np.asarray(gif.convert("RGB"))
    want = (vid[:, 1].transpose(0, 2, 3, 1) * 255).astype(np.uint8)
    want = np.concatenate(list(want), axis=1)
    assert np.abs(first.astype(int) - want).mean() < 12  # GIF quantises to 256 colours
