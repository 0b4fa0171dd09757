"""numtorchvision.io video functions (PyAV) and the video datasets (VideoClips, UCF101,
HMDB51, Kinetics). torchvision 0.28 decodes video only through TorchCodec (absent here), so
frames are checked against PyAV decoding the same files directly, and the clip sampling
against torchvision's VideoClips / datasets built from the same precomputed timestamps."""

import os
from fractions import Fraction

import numpy as np
import pytest
import torch
import torchvision.datasets as TD

import numtorch
import numtorchvision.datasets as D
import numtorchvision.io as nio
from numtorchvision.datasets import video_utils as nt_vu

from . import _fabricate_b as fab
from .test_datasets_b_dense import raises_alike
from .test_datasets_b_samplers import _same_clips

av = pytest.importorskip("av")


def test_write_then_read_is_lossless_and_ranges_match_pyav(tmp_path):
    clip = fab.rng().integers(0, 256, (9, 16, 24, 3)).astype(np.uint8)
    path = str(tmp_path / "a.mp4")
    nio.write_video(path, numtorch.from_numpy(clip), 12.4, video_codec="libx264rgb",
                    options={"crf": "0"})
    frames, audio, info = nio.read_video(path)
    assert frames.dtype == numtorch.uint8 and tuple(audio.shape) == (1, 0)
    np.testing.assert_array_equal(frames.numpy(), clip)
    assert info == {"video_fps": 12.0}
    pts, fps = nio.read_video_timestamps(path)
    assert pts == fab.decoded_frames(path)[0] and fps == 12.0
    got = nio.read_video(path, pts[2], pts[5], output_format="TCHW")[0].numpy()
    np.testing.assert_array_equal(got, clip[2:6].transpose(0, 3, 1, 2))
    secs, _ = nio.read_video_timestamps(path, pts_unit="sec")
    assert all(isinstance(s, Fraction) for s in secs) and secs[1] == Fraction(1, 12)
    np.testing.assert_array_equal(nio.read_video(path, secs[4], pts_unit="sec")[0].numpy(),
                                  clip[4:])
    np.testing.assert_array_equal(nio.read_video(path, 0.24, 0.45, pts_unit="sec")[0].numpy(),
                                  clip[3:6])


def test_lossy_file_matches_direct_decoding_with_audio(tmp_path):
    path = fab.video(str(tmp_path / "b.mp4"), frames=10, fps=10, audio_rate=8000)
    pts, frames = fab.decoded_frames(path)
    v, a, info = nio.read_video(path)
    np.testing.assert_array_equal(v.numpy(), frames)
    assert info == {"video_fps": 10.0, "audio_fps": 8000}
    assert a.shape[0] == 2 and a.dtype == numtorch.float32 and a.shape[1] >= 8000
    # 0.2 s to 0.5 s inclusive: 2401 samples at 8 kHz, the frames at 0.2, 0.3, 0.4, 0.5 s
    v, a, _ = nio.read_video(path, 0.2, 0.5, pts_unit="sec")
    np.testing.assert_array_equal(v.numpy(), frames[2:6])
    assert tuple(a.shape) == (2, 2401)
    with av.open(path) as c:
        whole = np.concatenate([f.to_ndarray() for f in c.decode(audio=0)], axis=1)
        start = next(iter(c.streams.audio)).start_time or 0
    offset = round(0.2 * 8000) - start * 8000 // 8000
    np.testing.assert_array_equal(a.numpy(), whole[:, offset:offset + 2401])


def test_read_video_errors(tmp_path):
    with pytest.raises(RuntimeError, match="File not found: .*nope.mp4"):
        nio.read_video(str(tmp_path / "nope.mp4"))
    path = fab.video(str(tmp_path / "c.avi"))
    with pytest.raises(ValueError, match="end_pts should be larger than start_pts, got "
                                         "start_pts=5 and end_pts=2"):
        nio.read_video(path, 5, 2)
    with pytest.raises(ValueError, match="output_format should be either 'THWC' or 'TCHW', "
                                         "got CHW."):
        nio.read_video(path, output_format="CHW")
    v, a, info = nio.read_video(path, 10 ** 6)
    assert tuple(v.shape) == (0, 1, 1, 3) and tuple(a.shape) == (1, 0)


@pytest.mark.parametrize("frame_rate,fmt", [(None, "THWC"), (7, "TCHW"), (20, "THWC")])
def test_videoclips_get_clip_reads_the_sampled_frames(tmp_path, frame_rate, fmt):
    paths = fab.action_tree(str(tmp_path), classes=("A",))
    clips = nt_vu.VideoClips(paths, 3, 2, frame_rate, num_workers=0, output_format=fmt)
    decoded = [fab.decoded_frames(p) for p in paths]
    assert [list(p.numpy()) for p in clips.video_pts] == [d[0] for d in decoded]
    for i in range(clips.num_clips()):
        video, audio, info, video_idx = clips.get_clip(i)
        v, c = clips.get_clip_location(i)
        pts, frames = decoded[video_idx]
        index = [pts.index(int(p)) for p in clips.clips[v][c]]
        if frame_rate is not None:
            picks = clips.resampling_idxs[v][c]
            if isinstance(picks, slice):
                index = list(range(index[0], index[-1] + 1))[picks]
            else:
                index = [index[0] + int(k - picks[0]) for k in picks]
            assert info["video_fps"] == frame_rate
        want = frames[index]
        got = video.numpy() if fmt == "THWC" else video.numpy().transpose(0, 2, 3, 1)
        np.testing.assert_array_equal(got, want)


def _tv_metadata(meta):
    return {"video_paths": meta["video_paths"], "video_fps": meta["video_fps"],
            "video_pts": [torch.from_numpy(p.numpy()) for p in meta["video_pts"]]}


@pytest.fixture(scope="module")
def ucf(tmp_path_factory):
    root = tmp_path_factory.mktemp("ucf")
    fab.action_tree(str(root / "videos"))
    ann = root / "ann"
    for fold in (1, 2, 3):
        names = sorted(os.listdir(root / "videos" / "Archery")) + \
            sorted(os.listdir(root / "videos" / "Biking"))
        train = [n for k, n in enumerate(names) if (k + fold) % 3]
        test = [n for n in names if n not in train]
        fab.text(str(ann / f"trainlist0{fold}.txt"),
                 "".join(f"{n.split('_')[1]}/{n} {1 + (n[2] == 'B')}\n" for n in train))
        fab.text(str(ann / f"testlist0{fold}.txt"), "".join(f"{n.split('_')[1]}/{n}\n" for n in test))
        for c in ("Archery", "Biking"):
            fab.text(str(ann / f"{c}_test_split{fold}.txt"), "".join(
                f"{n} {1 if n in train else 2} \n" for n in names if c in n) + "other.avi 0 \n")
    return root


@pytest.mark.parametrize("name", ["UCF101", "HMDB51"])
@pytest.mark.parametrize("fold,train", [(1, True), (2, False), (3, True)])
def test_ucf101_hmdb51(ucf, name, fold, train):
    kw = dict(fold=fold, train=train, frame_rate=None, step_between_clips=2)
    a = getattr(D, name)(str(ucf / "videos"), str(ucf / "ann"), 3, num_workers=0, **kw)
    b = getattr(TD, name)(str(ucf / "videos"), str(ucf / "ann"), 3,
                          _precomputed_metadata=_tv_metadata(a.metadata), **kw)
    assert len(a) == len(b) > 0
    assert a.indices == b.indices and a.samples == b.samples and a.classes == b.classes
    _same_clips(a.video_clips, b.video_clips)
    for i in range(len(a)):
        video, audio, label = a[i]
        v, _ = a.video_clips.get_clip_location(i)
        assert label == b.samples[b.indices[v]][1]
        assert tuple(video.shape)[1:] == (16, 24, 3)
    raises_alike(lambda: getattr(D, name)(str(ucf / "videos"), str(ucf / "ann"), 3, fold=4),
                 lambda: getattr(TD, name)(str(ucf / "videos"), str(ucf / "ann"), 3, fold=4))


def test_kinetics(tmp_path):
    fab.action_tree(str(tmp_path / "val"), classes=("abseiling", "zumba"), per_class=2, ext="mp4")
    a = D.Kinetics(str(tmp_path), 4, split="val", num_workers=0, frame_rate=15)
    b = TD.Kinetics(str(tmp_path), 4, split="val", frame_rate=15,
                    _precomputed_metadata=_tv_metadata(a.metadata))
    assert a.samples == b.samples and a.classes == b.classes and len(a) == len(b) > 0
    _same_clips(a.video_clips, b.video_clips)
    video, audio, label = a[len(a) - 1]
    assert tuple(video.shape) == (4, 3, 16, 24) and label == 1
    for kw in (dict(num_classes="500"), dict(split="dev"), dict(download=True)):
        raises_alike(lambda: D.Kinetics(str(tmp_path), 4, **kw),
                     lambda: TD.Kinetics(str(tmp_path), 4, **kw))


def test_kinetics_download_matches_torchvision(server, tmp_path, monkeypatch):
    import tarfile

    src = tmp_path / "src"
    rows = [("tai chi", "abc", 3, 13), ("jumpin' (high)", "x_y", 10, 20), ("tai chi", "zzz", 0, 10)]
    tars = []
    for k, (_, ytid, start, end) in enumerate(rows):
        name = f"{ytid}_{start:06}_{end:06}.mp4"
        fab.video(str(src / name), frames=4 + k)
        tar = f"k400/part{k}.tar.gz"
        os.makedirs(os.path.join(server.root, "k400", "val"), exist_ok=True)
        with tarfile.open(os.path.join(server.root, tar), "w:gz") as t:
            t.add(str(src / name), name)
        tars.append(server.url(tar))
    fab.text(os.path.join(server.root, "k400", "val", "k400_val_path.txt"), "\n".join(tars))
    fab.text(os.path.join(server.root, "k400", "val.csv"), "label,youtube_id,time_start,time_end,"
             "split\n" + "".join(f'"{lab}",{y},{s},{e},val\n' for lab, y, s, e in rows))
    for cls in (D.Kinetics, TD.Kinetics):
        monkeypatch.setattr(cls, "_TAR_URLS", {"400": server.url("k400/{split}/k400_{split}_path.txt")})
        monkeypatch.setattr(cls, "_ANNOTATION_URLS", {"400": server.url("k400/{split}.csv")})
    a = D.Kinetics(str(tmp_path / "nt"), 3, split="val", download=True, num_workers=0)
    meta = _tv_metadata(a.metadata)
    meta["video_paths"] = [p.replace(str(tmp_path / "nt"), str(tmp_path / "tv"))
                           for p in meta["video_paths"]]
    b = TD.Kinetics(str(tmp_path / "tv"), 3, split="val", download=True,
                    _precomputed_metadata=meta)
    listing = [sorted(os.path.relpath(os.path.join(d, f), r) for d, _, fs in os.walk(r) for f in fs)
               for r in (tmp_path / "nt", tmp_path / "tv")]
    assert listing[0] == listing[1]
    assert "val/jumpin_high/x_y_000010_000020.mp4" in listing[0]
    assert a.classes == b.classes == ["jumpin_high", "tai_chi"]
    _same_clips(a.video_clips, b.video_clips)
    # a second download=True finds the split folder and fetches nothing, in both
    hits = dict(server.hits)
    again = D.Kinetics(str(tmp_path / "nt"), 3, split="val", download=True, num_workers=0)
    TD.Kinetics(str(tmp_path / "tv"), 3, split="val", download=True, _precomputed_metadata=meta)
    assert server.hits == hits and len(again) == len(a)


def test_kinetics_legacy_layout(tmp_path, capsys):
    fab.action_tree(str(tmp_path), classes=("a", "b"), per_class=1, ext="mp4")
    a = D.Kinetics(str(tmp_path), 2, _legacy=True, num_workers=0)
    b = TD.Kinetics(str(tmp_path), 2, _legacy=True, _precomputed_metadata=_tv_metadata(a.metadata))
    assert (a.split, a.split_folder, a.video_clips.output_format) == \
        (b.split, b.split_folder, b.video_clips.output_format)
    assert capsys.readouterr().out == ""
    _same_clips(a.video_clips, b.video_clips)
    assert tuple(a[0][0].shape) == (2, 16, 24, 3)
    raises_alike(lambda: D.Kinetics(str(tmp_path), 2, _legacy=True, download=True),
                 lambda: TD.Kinetics(str(tmp_path), 2, _legacy=True, download=True))


def test_video_training_pipeline(ucf):
    """UCF101 clips (TCHW) through the v2 wrapper, v2 video transforms, a RandomClipSampler
    and a DataLoader with a worker into a Conv3d training step."""
    from numtorch import nn
    from numtorch.utils.data import DataLoader
    from numtorchvision.datasets.samplers import RandomClipSampler
    from numtorchvision.transforms import v2

    tf = v2.Compose([v2.Resize((8, 12)), v2.ToDtype(numtorch.float32, scale=True)])
    ds = D.UCF101(str(ucf / "videos"), str(ucf / "ann"), 4, step_between_clips=2,
                  output_format="TCHW", num_workers=0)
    # as in torchvision, the wrapper applies only a dataset's ``transforms`` (UCF101 has a
    # ``transform``): the v2 transforms run on the wrapped samples here
    wrapped = D.wrap_dataset_for_transforms_v2(ds)
    sampler = RandomClipSampler(ds.video_clips, 2)
    loader = DataLoader(wrapped, batch_size=2, sampler=sampler, num_workers=1,
                        collate_fn=lambda batch: (numtorch.stack([tf(b[0]) for b in batch]),
                                                  numtorch.tensor([b[2] for b in batch])))
    model = nn.Sequential(nn.Conv3d(3, 4, 3, padding=1), nn.AdaptiveAvgPool3d(1), nn.Flatten(),
                          nn.Linear(4, 2))
    opt = numtorch.optim.SGD(model.parameters(), lr=0.1)
    seen = 0
    for clips, labels in loader:
        assert tuple(clips.shape[1:]) == (4, 3, 8, 12) and clips.dtype == numtorch.float32
        loss = nn.functional.cross_entropy(model(clips.transpose(1, 2)), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        seen += len(labels)
    assert seen == len(sampler) > 0 and np.isfinite(loss.item())


def test_h264_with_b_frames_and_short_gop(tmp_path):
    import av as _av

    path = str(tmp_path / "g.mp4")
    clip = fab.rng().integers(0, 256, (30, 16, 24, 3)).astype(np.uint8)
    with _av.open(path, "w") as c:
        s = c.add_stream("libx264", rate=25)
        s.width, s.height, s.pix_fmt = 24, 16, "yuv420p"
        s.options = {"g": "6", "bf": "2"}  # a key frame every 6 frames, B-frames between
        for img in clip:
            c.mux(s.encode(_av.VideoFrame.from_ndarray(img, format="rgb24")))
        c.mux(s.encode())
    pts, frames = fab.decoded_frames(path)
    assert nio.read_video_timestamps(path)[0] == pts
    for s, e in ((0, 5), (7, 23), (13, 29), (12, 12), (20, 21)):
        np.testing.assert_array_equal(nio.read_video(path, pts[s], pts[e])[0].numpy(),
                                      frames[s:e + 1])


def test_audio_only_file(tmp_path):
    import av as _av

    path = str(tmp_path / "tone.wav")
    samples = (np.sin(np.arange(2 * 4000).reshape(2, 4000) / 5.0) * 20000).astype(np.int16)
    with _av.open(path, "w") as c:
        s = c.add_stream("pcm_s16le", rate=8000)
        s.layout = "stereo"
        frame = _av.AudioFrame.from_ndarray(samples, format="s16p", layout="stereo")
        frame.sample_rate, frame.pts = 8000, 0
        c.mux(s.encode(frame))
        c.mux(s.encode())
    v, a, info = nio.read_video(path, pts_unit="sec")
    assert tuple(v.shape) == (0, 1, 1, 3) and info == {"audio_fps": 8000}
    np.testing.assert_array_equal(a.numpy(), samples)  # packed s16 back to (channels, samples)
    _, part, _ = nio.read_video(path, 0.1, 0.2, pts_unit="sec")
    np.testing.assert_array_equal(part.numpy(), samples[:, 800:1601])
    assert nio.read_video_timestamps(path) == ([], None)
