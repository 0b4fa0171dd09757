"""download=True for VOC, SBD, Kitti, WIDERFace and Middlebury2014Stereo against the
loopback server (conftest's ``server``), side by side with torchvision 0.28: the same files
fetched and unpacked, the same samples, nothing fetched again on a second run."""

import hashlib
import os
import shutil
import tarfile
import zipfile

import pytest
import torchvision.datasets as TD
import torchvision.datasets._stereo_matching as tv_stereo
import torchvision.datasets.voc as tv_voc
import torchvision.datasets.widerface as tv_widerface

import numtorchvision.datasets as D
import numtorchvision.datasets._stereo_matching as nt_stereo
import numtorchvision.datasets.voc as nt_voc
import numtorchvision.datasets.widerface as nt_widerface
from numtorchvision.datasets.utils import download_url

from . import _fabricate_b as fab
from .test_datasets_b_dense import assert_same_dataset


def _md5(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def _pack(server, name, src, members, kind="tar"):
    """Archive ``members`` (paths relative to ``src``) as ``name`` in the served folder."""
    path = os.path.join(server.root, name)
    if kind == "zip":
        with zipfile.ZipFile(path, "w") as z:
            for m in members:
                for dirpath, _, files in os.walk(os.path.join(src, m)):
                    for f in files:
                        full = os.path.join(dirpath, f)
                        z.write(full, os.path.relpath(full, src))
    else:
        with tarfile.open(path, "w:gz" if name.endswith("gz") else "w") as t:
            for m in members:
                t.add(os.path.join(src, m), m)
    return server.url(name), _md5(path)


def _listing(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, files in os.walk(root) for f in files)


def test_voc_download(server, tmp_path, monkeypatch):
    src = tmp_path / "src"
    fab.voc_tree(str(src))
    url, md5 = _pack(server, "voc2012.tar", str(src), ["VOCdevkit"])
    for module in (nt_voc, tv_voc):
        table = {k: dict(v) for k, v in module.DATASET_YEAR_DICT.items()}
        table["2012"].update(url=url, md5=md5)
        monkeypatch.setattr(module, "DATASET_YEAR_DICT", table)
    a = D.VOCDetection(tmp_path / "nt", download=True)
    b = TD.VOCDetection(tmp_path / "tv", download=True)
    assert_same_dataset(a, b)
    assert _listing(tmp_path / "nt") == _listing(tmp_path / "tv")
    hits = dict(server.hits)
    D.VOCSegmentation(tmp_path / "nt", download=True)  # archive there, MD5 right: not fetched
    assert server.hits == hits


@pytest.mark.parametrize("image_set", ["train", "train_noval"])
def test_sbd_download(server, tmp_path, monkeypatch, image_set):
    src = tmp_path / "src"
    fab.sbd_tree(str(src / "benchmark_RELEASE" / "dataset"))
    os.makedirs(src / "benchmark_RELEASE" / "dataset" / "inst")
    noval = src / "benchmark_RELEASE" / "dataset" / "train_noval.txt"
    os.replace(noval, os.path.join(server.root, "train_noval.txt"))
    url, md5 = _pack(server, "benchmark.tgz", str(src), ["benchmark_RELEASE"])
    for cls in (D.SBDataset, TD.SBDataset):
        monkeypatch.setattr(cls, "url", url)
        monkeypatch.setattr(cls, "md5", md5)
        monkeypatch.setattr(cls, "voc_train_url", server.url("train_noval.txt"))
        monkeypatch.setattr(cls, "voc_split_md5", _md5(os.path.join(server.root,
                                                                     "train_noval.txt")))
    before = server.hits.get("/train_noval.txt", 0)
    a = D.SBDataset(tmp_path / "nt", image_set=image_set, download=True)
    mid = server.hits.get("/train_noval.txt", 0)
    b = TD.SBDataset(tmp_path / "tv", image_set=image_set, download=True)
    # fetched by both or by neither (torchvision asks once more, resolving redirects)
    assert (server.hits.get("/train_noval.txt", 0) > mid) == (mid > before)
    assert_same_dataset(a, b)
    assert _listing(tmp_path / "nt") == _listing(tmp_path / "tv")


def test_kitti_download(server, tmp_path, monkeypatch):
    src = tmp_path / "src"
    raw = fab.kitti_tree(str(src))
    os.makedirs(os.path.join(server.root, "kitti"), exist_ok=True)
    _pack(server, "kitti/data_object_image_2.zip", raw, ["training/image_2", "testing/image_2"],
          "zip")
    _pack(server, "kitti/data_object_label_2.zip", raw, ["training/label_2"], "zip")
    for cls in (D.Kitti, TD.Kitti):
        monkeypatch.setattr(cls, "data_url", server.url("kitti/"))
    for train in (True, False):
        a = D.Kitti(tmp_path / "nt", train=train, download=True)
        b = TD.Kitti(tmp_path / "tv", train=train, download=True)
        assert_same_dataset(a, b)
    assert _listing(tmp_path / "nt") == _listing(tmp_path / "tv")


def test_widerface_download(server, tmp_path, monkeypatch):
    src = tmp_path / "src"
    base = fab.widerface_tree(str(src))
    files = []
    for split in ("train", "val", "test"):
        _, md5 = _pack(server, f"WIDER_{split}.zip", base, [f"WIDER_{split}"], "zip")
        files.append((f"id-{split}", md5, f"WIDER_{split}.zip"))
    url, md5 = _pack(server, "wider_face_split.zip", base, ["wider_face_split"], "zip")

    def from_drive(file_id, root, filename=None, md5=None):
        download_url(server.url(filename), root, filename, md5)

    for module, cls in ((nt_widerface, D.WIDERFace), (tv_widerface, TD.WIDERFace)):
        monkeypatch.setattr(module, "download_file_from_google_drive", from_drive)
        monkeypatch.setattr(cls, "FILE_LIST", files)
        monkeypatch.setattr(cls, "ANNOTATIONS_FILE", (url, md5, "wider_face_split.zip"))
    a = D.WIDERFace(tmp_path / "nt", split="val", download=True)
    b = TD.WIDERFace(tmp_path / "tv", split="val", download=True)
    assert_same_dataset(a, b)
    assert _listing(tmp_path / "nt") == _listing(tmp_path / "tv")


def test_middlebury_download(server, tmp_path, monkeypatch):
    src = tmp_path / "src"
    fab.middlebury_tree(str(src))
    base = src / "Middlebury2014"
    os.makedirs(os.path.join(server.root, "mb"), exist_ok=True)
    scenes = {"train": ["Adirondack", "Piano"], "additional": ["Couch"], "test": ["Plants", "Hoops"]}
    for scene in scenes["train"]:
        for cal in ("perfect", "imperfect"):
            _pack(server, f"mb/{scene}-{cal}.zip", str(base / "train"), [f"{scene}-{cal}"], "zip")
    os.makedirs(src / "MiddEval3" / "testF")
    for scene in scenes["test"]:
        shutil.copytree(base / "test" / scene, src / "MiddEval3" / "testF" / scene)
    _pack(server, "mb/MiddEval3-data-F.zip", str(src), ["MiddEval3"], "zip")

    def redirect(real):
        def fetch(url, *args, **kwargs):
            return real(server.url("mb/" + url.rsplit("/", 1)[1]), *args, **kwargs)
        return fetch

    for module, cls in ((nt_stereo, D.Middlebury2014Stereo), (tv_stereo, TD.Middlebury2014Stereo)):
        monkeypatch.setattr(module, "download_and_extract_archive",
                            redirect(module.download_and_extract_archive))
        monkeypatch.setattr(cls, "splits", scenes)
    for kw in ({"calibration": "both"}, {"split": "test", "calibration": None}):
        a = D.Middlebury2014Stereo(tmp_path / "nt", download=True, **kw)
        b = TD.Middlebury2014Stereo(tmp_path / "tv", download=True, **kw)
        assert_same_dataset(a, b)
    assert _listing(tmp_path / "nt") == _listing(tmp_path / "tv")


def test_corrupt_voc_archive_is_refused(server, tmp_path, monkeypatch):
    src = tmp_path / "src"
    fab.voc_tree(str(src))
    url, md5 = _pack(server, "voc2012-bad.tar", str(src), ["VOCdevkit"])
    for module in (nt_voc, tv_voc):
        table = {k: dict(v) for k, v in module.DATASET_YEAR_DICT.items()}
        table["2012"].update(url=url, md5="0" * 32)  # not the served file's MD5
        monkeypatch.setattr(module, "DATASET_YEAR_DICT", table)
    for lib in (D, TD):
        with pytest.raises(RuntimeError):
            lib.VOCDetection(tmp_path / lib.__name__, download=True)
    # nothing half-written is left where the dataset would be read from
    assert not os.path.exists(tmp_path / D.__name__ / "VOCdevkit")
