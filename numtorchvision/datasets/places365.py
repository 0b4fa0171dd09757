"""Places365: scene images listed by the devkit's file lists
(``places365_<split>.txt``: "<relative path> [<label>]") with the class names in
``categories_places365.txt``; images in ``data_<size>_<variant>/``, ``val_<size>/`` or
``test_<size>/`` (size ``large`` or ``256``)."""

import os
from urllib.parse import urljoin

from ._listed import transformed
from .folder import default_loader
from .utils import check_integrity, download_and_extract_archive, verify_str_arg
from .vision import VisionDataset


class Places365(VisionDataset):
    """Places365-Standard / -Challenge scene recognition (365 categories).

    Args:
        root (str or pathlib.Path): the folder with the file lists and image folders.
        split (str): ``"train-standard"`` (default), ``"train-challenge"``, ``"val"`` or
            ``"test"`` (test targets are ``None``).
        small (bool): the 256x256 images instead of the full-size ones.
        download (bool): fetch the devkit and this split's images (MD5-checked) if needed.
        transform, target_transform (callable, optional): for the image / the label.
        loader (callable): reads an image from its path.

    Attributes:
        classes (list of str), class_to_idx (dict), imgs (list of (path, label)),
        targets (list).
    """

    _SPLITS = ("train-standard", "train-challenge", "val", "test")
    _BASE_URL = "http://data.csail.mit.edu/places/places365/"
    _DEVKIT_META = {"standard": ("filelist_places365-standard.tar",
                                 "35a0585fee1fa656440f3ab298f8479c"),
                    "challenge": ("filelist_places365-challenge.tar",
                                  "70a8307e459c3de41690a7c76c931734")}
    _CATEGORIES_META = ("categories_places365.txt", "06c963b85866bd0649f97cb43dd16673")
    _FILE_LIST_META = {
        "train-standard": ("places365_train_standard.txt", "30f37515461640559006b8329efbed1a"),
        "train-challenge": ("places365_train_challenge.txt",
                            "b2931dc997b8c33c27e7329c073a6b57"),
        "val": ("places365_val.txt", "e9f2fd57bfd9d07630173f4e8708e4b1"),
        "test": ("places365_test.txt", "2fce8233fe493576d724142e45d93653"),
    }
    _IMAGES_META = {
        ("train-standard", False): ("train_large_places365standard.tar",
                                    "67e186b496a84c929568076ed01a8aa1"),
        ("train-challenge", False): ("train_large_places365challenge.tar",
                                     "605f18e68e510c82b958664ea134545f"),
        ("val", False): ("val_large.tar", "9b71c4993ad89d2d8bcbdc4aef38042f"),
        ("test", False): ("test_large.tar", "41a4b6b724b1d2cd862fb3871ed59913"),
        ("train-standard", True): ("train_256_places365standard.tar",
                                   "53ca1c756c3d1e7809517cc47c5561c5"),
        ("train-challenge", True): ("train_256_places365challenge.tar",
                                    "741915038a5e3471ec7332404dfb64ef"),
        ("val", True): ("val_256.tar", "e27b17d8d44f4af9a78502beb927f808"),
        ("test", True): ("test_256.tar", "f532f6ad7b582262a2ec8009075e186b"),
    }

    def __init__(self, root, split="train-standard", small=False, download=False,
                 transform=None, target_transform=None, loader=default_loader):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = self._verify_split(split)
        self.small, self.loader = small, loader
        self.classes, self.class_to_idx = self.load_categories(download)
        self.imgs, self.targets = self.load_file_list(download)
        if download:
            self.download_images()

    def __getitem__(self, index):
        path, target = self.imgs[index]
        image = self.loader(path)
        return transformed(self, image, target)

    def __len__(self):
        return len(self.imgs)

    @property
    def variant(self):
        return "challenge" if "challenge" in self.split else "standard"

    @property
    def images_dir(self):
        size = "256" if self.small else "large"
        folder = (f"data_{size}_{self.variant}" if self.split.startswith("train")
                  else f"{self.split}_{size}")
        return os.path.join(self.root, folder)

    def _list_file(self, name, md5, download):
        path = os.path.join(self.root, name)
        if not self._check_integrity(path, md5, download):
            self.download_devkit()
        return path

    def load_categories(self, download=True):
        path = self._list_file(*self._CATEGORIES_META, download)
        with open(path) as f:
            pairs = [line.strip().split(" ") for line in f if line.strip()]
        class_to_idx = {name: int(idx) for name, idx in pairs}
        return sorted(class_to_idx), class_to_idx

    def load_file_list(self, download=True):
        path = self._list_file(*self._FILE_LIST_META[self.split], download)
        images = []
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                rel, *label = line.strip().split(" ")
                images.append((os.path.join(self.images_dir, rel.lstrip("/").replace("/", os.sep)),
                               int(label[0]) if label else None))
        return images, [target for _, target in images]

    def download_devkit(self):
        name, md5 = self._DEVKIT_META[self.variant]
        download_and_extract_archive(urljoin(self._BASE_URL, name), self.root, md5=md5)

    def download_images(self):
        if os.path.isdir(self.images_dir):
            return
        name, md5 = self._IMAGES_META[(self.split, self.small)]
        download_and_extract_archive(urljoin(self._BASE_URL, name), self.root, md5=md5)
        if self.split.startswith("train"):
            # the archive unpacks to data_<size>; the variant is added to its name
            os.rename(self.images_dir.rsplit("_", 1)[0], self.images_dir)

    def extra_repr(self):
        return f"Split: {self.split}\nSmall: {self.small}"

    def _verify_split(self, split):
        return verify_str_arg(split, "split", self._SPLITS)

    def _check_integrity(self, file, md5, download):
        ok = check_integrity(file, md5)
        if not ok and not download:
            raise RuntimeError(f"The file {file} does not exist or is corrupted. You can set "
                               f"download=True to download it.")
        return ok
