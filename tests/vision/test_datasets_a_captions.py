"""FER2013 (its three CSV layouts), Flickr8k (the annotation HTML page), Flickr30k (the
token file) and SBU (archive + photos downloaded from a loopback server), against
torchvision 0.28 on the same files."""

import numpy as np
import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from . import _fabricate as fab
from ._datasets_a import image, image_bytes, same_dataset, same_error, serving, tar_bytes, text

served = pytest.fixture(serving)


def _pixels(rng):
    return " ".join(str(v) for v in rng.integers(0, 256, 48 * 48))


def _fer(base, layout):
    rng = np.random.default_rng(len(layout))
    usage = [(3, "Training"), (0, "PublicTest"), (5, "PrivateTest"), (6, "Training")]
    if layout == "fer":
        text(base / "fer2013.csv", "emotion,pixels,Usage\n"
             + "".join(f"{k},{_pixels(rng)},{u}\n" for k, u in usage))
    elif layout == "icml":
        text(base / "icml_face_data.csv", "emotion, Usage, pixels\n"
             + "".join(f"{k},{u},{_pixels(rng)}\n" for k, u in usage))
    else:
        text(base / "train.csv", "emotion,pixels\n"
             + "".join(f'{k},"{_pixels(rng)}"\n' for k in (3, 0, 2)))
        text(base / "test.csv", "pixels\n" + "".join(f'"{_pixels(rng)}"\n' for _ in range(2)))


@pytest.mark.parametrize("layout", ["fer", "icml", "split"])
def test_fer2013(tmp_path, monkeypatch, layout):
    base = tmp_path / "fer2013"
    _fer(base, layout)
    same_error(lambda: D.FER2013(tmp_path), lambda: TD.FER2013(tmp_path), prefix=False)
    resources = {k: (name, fab.md5(base / name) if (base / name).exists() else md5)
                 for k, (name, md5) in TD.FER2013._RESOURCES.items()}
    for lib in (D, TD):
        monkeypatch.setattr(lib.FER2013, "_RESOURCES", resources)
    for split in ("train", "test"):
        same_dataset(D.FER2013(tmp_path, split), TD.FER2013(tmp_path, split), ["_samples"])
    same_error(lambda: D.FER2013(tmp_path, "val"), lambda: TD.FER2013(tmp_path, "val"),
               prefix=False)


def test_fer2013_prefers_fer_file(tmp_path, monkeypatch):
    base = tmp_path / "fer2013"
    _fer(base, "split")
    text(base / "fer2013.csv", "emotion,pixels,Usage\n")  # present but its MD5 is wrong
    same_error(lambda: D.FER2013(tmp_path), lambda: TD.FER2013(tmp_path), prefix=False)


FLICKR8K_PAGE = """<html><body><h1>Flickr 8k</h1><a href="x">http://x/y/1/</a>
<table>
<tr><td><a href="http://www.flickr.com/photos/u/1000268201/">http://www.flickr.com/photos/u/1000268201/</a></td>
<td><ul><li>A child in a pink dress .</li>
<li> A girl going into a wooden building .</li></ul></td></tr>
<tr><td>Image Not Found</td><td><ul><li>lost caption</li></ul></td></tr>
<tr><td><a href="http://www.flickr.com/photos/v/997722733/">http://www.flickr.com/photos/v/997722733/</a></td>
<td><ul><li>A black dog and a spotted dog are fighting</li></ul></td></tr>
</table></body></html>
"""


def test_flickr8k(tmp_path):
    image(tmp_path / "img" / "1000268201_693b08cb0e.jpg", seed=1)
    image(tmp_path / "img" / "997722733_0cb5439472.jpg", seed=2)
    ann = text(tmp_path / "page.html", FLICKR8K_PAGE)
    same_dataset(D.Flickr8k(tmp_path / "img", str(ann)), TD.Flickr8k(tmp_path / "img", str(ann)),
                 ["ids", "annotations", "ann_file"])
    same_error(lambda: D.Flickr8k(tmp_path, str(tmp_path / "none.html")),
               lambda: TD.Flickr8k(tmp_path, str(tmp_path / "none.html")), prefix=False)


def test_flickr30k(tmp_path):
    lines = []
    for k, name in enumerate(["36979.jpg", "1000092795.jpg"]):
        image(tmp_path / "img" / name, seed=k)
        lines += [f"{name}#{j}\tcaption {j} of {name}" for j in range(3)]
    ann = text(tmp_path / "results_20130124.token", "\n".join(lines) + "\n")
    same_dataset(D.Flickr30k(tmp_path / "img", str(ann)),
                 TD.Flickr30k(tmp_path / "img", str(ann)), ["ids", "annotations", "ann_file"])


def test_sbu_download(tmp_path, served, monkeypatch):
    photos = [f"{k}_abc.jpg" for k in range(4)]
    urls = "".join(served.url(f"photos/{p}") + "\n" for p in photos)
    captions = "".join(f"caption of photo {k}  \n" for k in range(4))
    archive = tar_bytes({"dataset/SBU_captioned_photo_dataset_urls.txt": urls.encode(),
                         "dataset/SBU_captioned_photo_dataset_captions.txt": captions.encode()},
                        gz=True)
    served.files["/SBUCaptionedPhotoDataset.tar.gz"] = archive
    for k, p in enumerate(photos):
        if k != 2:  # one photo is gone from Flickr
            served.files[f"/photos/{p}"] = image_bytes(k, fmt="JPEG")
    same_error(lambda: D.SBU(tmp_path / "nt", download=False),
               lambda: TD.SBU(tmp_path / "tv", download=False))
    for lib in (D, TD):
        monkeypatch.setattr(lib.SBU, "url", served.url("SBUCaptionedPhotoDataset.tar.gz"))
        monkeypatch.setattr(lib.SBU, "md5_checksum", fab.md5(archive))
    a, b = D.SBU(tmp_path / "nt"), TD.SBU(tmp_path / "tv")
    same_dataset(a, b, ["photos", "captions"], repr_too=False)
    assert len(a) == 3
    same_dataset(D.SBU(tmp_path / "tv", download=False), b, ["photos", "captions"])
