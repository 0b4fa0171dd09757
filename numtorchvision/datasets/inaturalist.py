"""iNaturalist (2017-2019 and 2021 competitions), read from the unpacked image folders only:
2021 versions have one folder per species, ``<version>/NNNNN_<kingdom>_..._<genus>_<species>``;
earlier ones ``<version>/<super category>/<numeric category id>/``."""

import os

from .._pil import pil
from ._listed import (
    NOT_FOUND_OR_CORRUPT,
    as_list,
    check_split,
    fetch_unless_present,
    pick_targets,
    require,
    transformed,
)
from .utils import download_and_extract_archive
from .vision import VisionDataset

CATEGORIES_2021 = ["kingdom", "phylum", "class", "order", "family", "genus"]

_S3 = "https://ml-inat-competition-datasets.s3.amazonaws.com/"
DATASET_URLS = {
    "2017": _S3 + "2017/train_val_images.tar.gz",
    "2018": _S3 + "2018/train_val2018.tar.gz",
    "2019": _S3 + "2019/train_val2019.tar.gz",
    "2021_train": _S3 + "2021/train.tar.gz",
    "2021_train_mini": _S3 + "2021/train_mini.tar.gz",
    "2021_valid": _S3 + "2021/val.tar.gz",
}
DATASET_MD5 = {
    "2017": "7c784ea5e424efaec655bd392f87301f",
    "2018": "b1c6952ce38f31868cc50ea72d066cc3",
    "2019": "c60a6e2962c9b8ccbd458d12c8582644",
    "2021_train": "e0526d53c7f7b2e3167b2b43bb2690ed",
    "2021_train_mini": "db6ed8330e634445efc8fec83ae81442",
    "2021_valid": "f6f6e0e242e3d4c9569ba56400938afc",
}


class INaturalist(VisionDataset):
    """iNaturalist.

    Args:
        root (str or pathlib.Path): folder holding ``<version>``.
        version (str): ``"2017"``, ``"2018"``, ``"2019"``, ``"2021_train"`` (default),
            ``"2021_train_mini"`` or ``"2021_valid"``.
        target_type (str or list of str): ``"full"`` (the category index, default) or, for
            2021, one of ``kingdom`` ... ``genus``; before 2021, ``"super"``. A list gives a
            tuple.
        transform, target_transform (callable, optional): for the image / the target.
        download (bool): fetch and unpack the version's archive (MD5-checked) if needed.
        loader (callable, optional): reads an image from its path (default: PIL, RGB).

    Attributes:
        all_categories (list of str), categories_index ({level: {name: index}}),
        categories_map (list of {level: index}, one per category), index (list of
        (category, file name)).
    """

    def __init__(self, root, version="2021_train", target_type="full", transform=None,
                 target_transform=None, download=False, loader=None):
        self.version = check_split(version, tuple(DATASET_URLS), "version")
        super().__init__(os.path.join(root, version), transform=transform,
                         target_transform=target_transform)
        if download:
            self.download()
        require(self._check_exists(), NOT_FOUND_OR_CORRUPT)
        self.all_categories = []
        self.categories_index = {}
        self.categories_map = []
        levels = ("full", *CATEGORIES_2021) if version.startswith("2021") else ("full", "super")
        self.target_type = [check_split(t, levels, "target_type") for t in as_list(target_type)]
        if version.startswith("2021"):
            self._init_2021()
        else:
            self._init_pre2021()
        self.index = [(cat, name) for cat, folder in enumerate(self.all_categories)
                      for name in os.listdir(os.path.join(self.root, folder))]
        self.loader = loader

    def _init_2021(self):
        """Species folders "NNNNN_<kingdom>_<phylum>_..._<genus>_<species>" numbered from 0;
        each level's names are indexed in order of first appearance."""
        self.all_categories = sorted(os.listdir(self.root))
        self.categories_index = {level: {} for level in CATEGORIES_2021}
        for number, folder in enumerate(self.all_categories):
            parts = folder.split("_")
            if len(parts) != 8:
                raise RuntimeError(f"Unexpected category name {folder}, wrong number of pieces")
            if parts[0] != f"{number:05d}":
                raise RuntimeError(f"Unexpected category id {parts[0]}, expecting {number:05d}")
            entry = {}
            for level, name in zip(CATEGORIES_2021, parts[1:7]):
                names = self.categories_index[level]
                entry[level] = names.setdefault(name, len(names))
            self.categories_map.append(entry)

    def _init_pre2021(self):
        """"<super>/<id>" folders with ids 0..N-1; super categories indexed by sorted name."""
        supers = sorted(os.listdir(self.root))
        self.categories_index = {"super": {name: i for i, name in enumerate(supers)}}
        found = {}
        for name in supers:
            for cat in os.listdir(os.path.join(self.root, name)):
                if not cat.isdigit():
                    raise RuntimeError(f"Unexpected non-numeric dir name: {cat}")
                found[int(cat)] = (f"{name}/{cat}", self.categories_index["super"][name])
        for cat in range(len(found)):
            if cat not in found:
                raise RuntimeError(f"Missing category {cat}")
            self.all_categories.append(found[cat][0])
            self.categories_map.append({"super": found[cat][1]})

    def __getitem__(self, index):
        cat, name = self.index[index]
        path = os.path.join(self.root, self.all_categories[cat], name)
        image = pil().open(path) if self.loader is None else self.loader(path)
        target = pick_targets(self.target_type, lambda t: cat if t == "full"
                              else self.categories_map[cat][t])
        return transformed(self, image, target)

    def __len__(self):
        return len(self.index)

    def category_name(self, category_type, category_id):
        """The name of category ``category_id`` at level ``category_type`` ("full" gives the
        folder name)."""
        if category_type == "full":
            return self.all_categories[category_id]
        level = self.categories_index.get(category_type)
        if level is None:
            raise ValueError(f"Invalid category type '{category_type}'")
        for name, number in level.items():
            if number == category_id:
                return name
        raise ValueError(f"Invalid category id {category_id} for {category_type}")

    def _check_exists(self):
        return os.path.exists(self.root) and len(os.listdir(self.root)) > 0

    def download(self):
        fetch_unless_present(self, self._fetch_and_rename)

    def _fetch_and_rename(self):
        base = os.path.dirname(self.root)
        url = DATASET_URLS[self.version]
        download_and_extract_archive(url, base, filename=f"{self.version}.tgz",
                                     md5=DATASET_MD5[self.version])
        unpacked = os.path.join(base, os.path.basename(url).removesuffix(".tar.gz"))
        if not os.path.exists(unpacked):
            raise RuntimeError(f"Unable to find downloaded files at {unpacked}")
        os.rename(unpacked, self.root)
