"""Labeled Faces in the Wild: ``lfw-py/<lfw|lfw_funneled|lfw-deepfunneled>/<name>/
<name>_NNNN.jpg`` with the people / pairs lists (``people[DevTrain|DevTest].txt``,
``pairs[DevTrain|DevTest].txt``) and ``lfw-names.txt``; the image archive must sit beside
them (it is MD5-checked, as torchvision does)."""

import os

from ._listed import NOT_FOUND_OR_CORRUPT, check_split, require, transformed
from .folder import default_loader
from .utils import check_integrity
from .vision import VisionDataset


class _LFW(VisionDataset):
    base_folder = "lfw-py"
    download_url_prefix = "http://vis-www.cs.umass.edu/lfw/"
    file_dict = {
        "original": ("lfw", "lfw.tgz", "a17d05bd522c52d84eca14327a23d494"),
        "funneled": ("lfw_funneled", "lfw-funneled.tgz", "1b42dfed7d15c9b2dd63d5e5840c86ad"),
        "deepfunneled": ("lfw-deepfunneled", "lfw-deepfunneled.tgz",
                         "68331da3eb755a505a502b5aacb3c201"),
    }
    checksums = {
        "pairs.txt": "9f1ba174e4e1c508ff7cdf10ac338a7d",
        "pairsDevTest.txt": "5132f7440eb68cf58910c8a45a2ac10b",
        "pairsDevTrain.txt": "4f27cbf15b2da4a85c1907eb4181ad21",
        "people.txt": "450f0863dd89e85e73936a6d71a3474b",
        "peopleDevTest.txt": "e4bf5be0a43b5dcd9dc5ccfcb8fb19c5",
        "peopleDevTrain.txt": "54eaac34beb6d042ed3a7d883e247a21",
        "lfw-names.txt": "a6d0a479bd074669f656265a6e693f6d",
    }
    annot_file = {"10fold": "", "train": "DevTrain", "test": "DevTest"}
    names = "lfw-names.txt"

    def __init__(self, root, split, image_set, view, transform=None, target_transform=None,
                 download=False, loader=default_loader):
        super().__init__(os.path.join(root, self.base_folder), transform=transform,
                         target_transform=target_transform)
        self.image_set = check_split(image_set, tuple(self.file_dict), "image_set")
        images_folder, self.filename, self.md5 = self.file_dict[self.image_set]
        self.view = check_split(view.lower(), ("people", "pairs"), "view")
        self.split = check_split(split.lower(), tuple(self.annot_file))
        self.labels_file = f"{self.view}{self.annot_file[self.split]}.txt"
        self.data = []
        if download:
            self.download()
        require(self._check_integrity(), NOT_FOUND_OR_CORRUPT, self._checked_files())
        self.images_dir = os.path.join(self.root, images_folder)
        self._loader = loader

    def _checked_files(self):
        files = [(self.filename, self.md5), (self.labels_file, self.checksums[self.labels_file])]
        if self.view == "people":
            files.append((self.names, self.checksums[self.names]))
        return [(os.path.join(self.root, name), md5) for name, md5 in files]

    def _check_integrity(self):
        return all(check_integrity(path, md5) for path, md5 in self._checked_files())

    def download(self):
        raise ValueError("LFW dataset is no longer available for automatic download."
                         "Please download the dataset manually and place it in the specified "
                         "directory.A commonly used mirror is available at: "
                         "https://www.kaggle.com/datasets/jessicali9530/lfw-dataset")

    def _get_path(self, identity, no):
        return os.path.join(self.images_dir, identity, f"{identity}_{int(no):04d}.jpg")

    def _lines(self, name):
        with open(os.path.join(self.root, name)) as f:
            return [line.strip().split("\t") for line in f]

    def _blocks(self, rows, pairs):
        """The blocks of entries of a list file. The "10fold" files start with the number of
        folds (pairs files: and the pairs per fold); each people block starts with its
        length; a pairs block is that many matched then as many mismatched pairs."""
        rows = list(rows)
        folds = int(rows[0][0]) if self.split == "10fold" else 1
        if self.split == "10fold" or pairs:
            header = rows.pop(0)
        for _ in range(folds):
            count = 2 * int(header[-1]) if pairs else int(rows.pop(0)[0])
            yield rows[:count]
            rows = rows[count:]

    def __len__(self):
        return len(self.data)

    def extra_repr(self):
        return f"Alignment: {self.image_set}\nSplit: {self.split}"


class LFWPeople(_LFW):
    """LFW as face identification: items are ``(image, identity index)``.

    Args:
        root (str or pathlib.Path): folder holding ``lfw-py``.
        split (str): ``"10fold"`` (default), ``"train"`` or ``"test"``.
        image_set (str): ``"original"``, ``"funneled"`` (default) or ``"deepfunneled"``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): not supported any more (raises ValueError).
        loader (callable): reads an image from its path.
    """

    def __init__(self, root, split="10fold", image_set="funneled", transform=None,
                 target_transform=None, download=False, loader=default_loader):
        super().__init__(root, split, image_set, "people", transform, target_transform,
                         download, loader=loader)
        self.class_to_idx = self._get_classes()
        self.data, self.targets = self._get_people()

    def _get_people(self):
        paths, targets = [], []
        for block in self._blocks(self._lines(self.labels_file), pairs=False):
            for identity, count in block:
                for no in range(1, int(count) + 1):
                    paths.append(self._get_path(identity, no))
                    targets.append(self.class_to_idx[identity])
        return paths, targets

    def _get_classes(self):
        with open(os.path.join(self.root, self.names)) as f:
            return {line.strip().split()[0]: i for i, line in enumerate(f)}

    def __getitem__(self, index):
        image, target = self._loader(self.data[index]), self.targets[index]
        return transformed(self, image, target)

    def extra_repr(self):
        return super().extra_repr() + f"\nClasses (identities): {len(self.class_to_idx)}"


class LFWPairs(_LFW):
    """LFW as face verification: items are ``(image1, image2, 1 if same person else 0)``.

    Args: as :class:`LFWPeople`.
    """

    def __init__(self, root, split="10fold", image_set="funneled", transform=None,
                 target_transform=None, download=False, loader=default_loader):
        super().__init__(root, split, image_set, "pairs", transform, target_transform,
                         download, loader=loader)
        self.pair_names, self.data, self.targets = self._get_pairs(self.images_dir)

    def _get_pairs(self, images_dir):
        names, paths, targets = [], [], []
        for block in self._blocks(self._lines(self.labels_file), pairs=True):
            for row in block:
                if len(row) == 3:  # "<name> <no1> <no2>": the same person
                    (a, x), (b, y), same = (row[0], row[1]), (row[0], row[2]), 1
                else:  # "<name1> <no1> <name2> <no2>"
                    (a, x), (b, y), same = (row[0], row[1]), (row[2], row[3]), 0
                names.append((a, b))
                paths.append((self._get_path(a, x), self._get_path(b, y)))
                targets.append(same)
        return names, paths, targets

    def __getitem__(self, index):
        first, second = (self._loader(path) for path in self.data[index])
        target = self.targets[index]
        if self.transform is not None:
            first, second = self.transform(first), self.transform(second)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return first, second, target
