"""Stanford Cars: ``stanford_cars/{cars_train,cars_test}/<file>.jpg`` with the labels in
``devkit/cars_train_annos.mat`` / ``cars_test_annos_withlabels.mat`` and the class names in
``devkit/cars_meta.mat``. The original host is gone, so there is no download."""

import os

from ._listed import ListedImages, as_path, check_split, index_of, load_mat, require
from .folder import default_loader


class StanfordCars(ListedImages):
    """Stanford Cars: 16,185 images of 196 car models (needs SciPy for the ``.mat`` files).

    Args:
        root (str or pathlib.Path): folder holding ``stanford_cars``.
        split (str): ``"train"`` (default) or ``"test"``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): kept for compatibility; ``True`` raises ValueError.
        loader (callable): reads an image from its path.

    Attributes:
        classes (list of str), class_to_idx (dict), _samples (list of (path, label)).
    """

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False, loader=default_loader):
        super().__init__(root, transform=transform, target_transform=target_transform,
                         loader=loader)
        self._split = check_split(split, ("train", "test"))
        self._base_folder = as_path(self.root) / "stanford_cars"
        devkit = self._base_folder / "devkit"
        labels_in, images_in = {"train": (devkit / "cars_train_annos.mat", "cars_train"),
                                "test": (self._base_folder / "cars_test_annos_withlabels.mat",
                                         "cars_test")}[self._split]
        self._annotations_mat_path = labels_in
        self._images_base_path = self._base_folder / images_in
        if download:
            self.download()
        require(self._check_exists(), "Dataset not found.")
        records = load_mat(self._annotations_mat_path, squeeze_me=True)["annotations"]
        self._samples = [(str(self._images_base_path / rec["fname"]), rec["class"] - 1)
                         for rec in records]
        self.classes = load_mat(devkit / "cars_meta.mat", squeeze_me=True)["class_names"].tolist()
        self.class_to_idx = index_of(self.classes)

    def __len__(self):
        return len(self._samples)

    def _item(self, idx):
        path, target = self._samples[idx]
        return self.loader(path), target

    def extra_repr(self):
        return ""

    def _check_exists(self):
        return ((self._base_folder / "devkit").is_dir()
                and os.path.isfile(self._annotations_mat_path)
                and self._images_base_path.is_dir())

    def download(self):
        raise ValueError("The original URL is broken so the StanfordCars dataset cannot be "
                         "downloaded anymore.")
