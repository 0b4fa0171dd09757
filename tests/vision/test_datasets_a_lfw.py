"""LFWPeople / LFWPairs from fabricated lfw-py folders (people and pairs lists in the 10-fold
and Dev layouts, lfw-names.txt, the MD5-checked archive beside them), against torchvision
0.28."""

import pytest
import torchvision.datasets as TD
import torchvision.datasets.lfw as tv_lfw

import numtorchvision.datasets as D
import numtorchvision.datasets.lfw as nt_lfw

from . import _fabricate as fab
from ._datasets_a import image, same_dataset, same_error, text

PEOPLE = {"Aaron_Eckhart": 1, "Abel_Pacheco": 3, "Zico": 2, "Ana_Guevara": 2}
FILES = {
    "lfw-names.txt": "".join(f"{n}\t{k}\n" for n, k in sorted(PEOPLE.items())),
    "people.txt": "2\n2\nAbel_Pacheco\t3\nZico\t2\n1\nAna_Guevara\t2\n",
    "peopleDevTrain.txt": "2\nAaron_Eckhart\t1\nZico\t2\n",
    "peopleDevTest.txt": "1\nAbel_Pacheco\t3\n",
    "pairs.txt": "2\t1\nAbel_Pacheco\t1\t3\nZico\t1\tAaron_Eckhart\t1\n"
                 "Ana_Guevara\t1\t2\nAbel_Pacheco\t2\tAna_Guevara\t2\n",
    "pairsDevTrain.txt": "2\nZico\t1\t2\nAbel_Pacheco\t1\t2\nAaron_Eckhart\t1\tZico\t2\n"
                         "Ana_Guevara\t1\tAbel_Pacheco\t3\n",
    "pairsDevTest.txt": "1\nAna_Guevara\t2\t1\nZico\t2\tAbel_Pacheco\t1\n",
}


@pytest.fixture
def lfw(tmp_path, monkeypatch):
    base = tmp_path / "lfw-py"
    for name, content in FILES.items():
        text(base / name, content)
    file_dict = {}
    for k, (image_set, (folder, archive, _)) in enumerate(tv_lfw._LFW.file_dict.items()):
        for p, (person, count) in enumerate(PEOPLE.items()):
            for no in range(1, count + 1):
                image(base / folder / person / f"{person}_{no:04d}.jpg", seed=k + p + no)
        text(base / archive, f"archive {k}")
        file_dict[image_set] = (folder, archive, fab.md5(base / archive))
    checksums = {name: fab.md5(base / name) for name in FILES}
    for mod in (nt_lfw, tv_lfw):
        monkeypatch.setattr(mod._LFW, "file_dict", file_dict)
        monkeypatch.setattr(mod._LFW, "checksums", checksums)
    return tmp_path


@pytest.mark.parametrize("split", ["10fold", "train", "test"])
@pytest.mark.parametrize("image_set", ["original", "funneled", "deepfunneled"])
def test_lfw_people(lfw, split, image_set):
    same_dataset(D.LFWPeople(lfw, split, image_set), TD.LFWPeople(lfw, split, image_set),
                 ["data", "targets", "class_to_idx", "labels_file", "images_dir", "filename",
                  "md5", "view", "split", "image_set", "root"])


@pytest.mark.parametrize("split", ["10fold", "train", "test"])
def test_lfw_pairs(lfw, split):
    same_dataset(D.LFWPairs(lfw, split), TD.LFWPairs(lfw, split),
                 ["data", "targets", "pair_names", "labels_file", "images_dir"])
    size = lambda im: im.size
    same_dataset(D.LFWPairs(lfw, split, transform=size, target_transform=lambda t: -t),
                 TD.LFWPairs(lfw, split, transform=size, target_transform=lambda t: -t),
                 repr_too=False)


def test_lfw_errors(lfw, tmp_path):
    for kw in (dict(split="val"), dict(image_set="raw"), dict(download=True)):
        same_error(lambda: D.LFWPeople(lfw, **kw), lambda: TD.LFWPeople(lfw, **kw),
                   prefix=False)
    (lfw / "lfw-py" / "lfw-funneled.tgz").unlink()
    same_error(lambda: D.LFWPairs(lfw), lambda: TD.LFWPairs(lfw))
    same_error(lambda: D.LFWPeople(tmp_path / "x"), lambda: TD.LFWPeople(tmp_path / "x"))
