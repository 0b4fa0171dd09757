"""Oxford-IIIT Pet: ``oxford-iiit-pet/images/<id>.jpg``, the split lists
``annotations/{trainval,test}.txt`` ("<id> <class> <species> <breed>") and the segmentation
trimaps ``annotations/trimaps/<id>.png``."""

from .._pil import pil
from ._listed import ListedImages, as_list, as_path, check_split, index_of, pick_targets, require
from .utils import download_and_extract_archive, verify_str_arg


class OxfordIIITPet(ListedImages):
    """Oxford-IIIT Pet (37 cat and dog breeds).

    Args:
        root (str or pathlib.Path): folder holding ``oxford-iiit-pet``.
        split (str): ``"trainval"`` (default) or ``"test"``.
        target_types (str or sequence of str): ``"category"`` (breed index, default),
            ``"binary-category"`` (0 cat, 1 dog) and/or ``"segmentation"`` (trimap PIL image);
            several give a tuple, none gives ``None``.
        transforms (callable, optional): takes and returns ``(image, target)``.
        transform, target_transform (callable, optional): for the image / the target.
        download (bool): fetch and unpack both archives (MD5-checked) if needed.

    Attributes:
        classes, bin_classes (list of str), class_to_idx, bin_class_to_idx (dict).
    """

    _RESOURCES = (
        ("https://www.robots.ox.ac.uk/~vgg/data/pets/data/images.tar.gz",
         "5c4f3ee8e5d25df40f4fd59a7f44e54c"),
        ("https://www.robots.ox.ac.uk/~vgg/data/pets/data/annotations.tar.gz",
         "95a8c909bbe2e81eed6a22bccdf3f68f"),
    )
    _VALID_TARGET_TYPES = ("category", "binary-category", "segmentation")

    def __init__(self, root, split="trainval", target_types="category", transforms=None,
                 transform=None, target_transform=None, download=False):
        self._split = check_split(split, ("trainval", "test"))
        self._target_types = [verify_str_arg(kind, "target_types", self._VALID_TARGET_TYPES)
                              for kind in as_list(target_types)]
        super().__init__(root, transforms=transforms, transform=transform,
                         target_transform=target_transform)
        self._base_folder = as_path(self.root) / "oxford-iiit-pet"
        self._images_folder, self._anns_folder = (self._base_folder / sub
                                                  for sub in ("images", "annotations"))
        self._segs_folder = self._anns_folder / "trimaps"
        if download:
            self._download()
        require(self._check_exists())
        ids, self._labels, self._bin_labels = [], [], []
        with open(self._anns_folder / f"{self._split}.txt") as f:
            for line in f:
                image_id, label, species, _ = line.strip().split()
                ids.append(image_id)
                self._labels.append(int(label) - 1)
                self._bin_labels.append(int(species) - 1)
        # the breed names come from the image ids ("american_bulldog_12" -> "American Bulldog"),
        # one entry per distinct (name, label), in label order
        pairs = {(" ".join(w.title() for w in image_id.rsplit("_", 1)[0].split("_")), label)
                 for image_id, label in zip(ids, self._labels)}
        self.classes = [name for name, _ in sorted(pairs, key=lambda p: (p[1], p[0]))]
        self.class_to_idx = index_of(self.classes)
        self.bin_classes = ["Cat", "Dog"]
        self.bin_class_to_idx = index_of(self.bin_classes)
        self._images = [self._images_folder / f"{i}.jpg" for i in ids]
        self._segs = [self._segs_folder / f"{i}.png" for i in ids]
        self._image_files = self._images

    def _item(self, idx):
        image = pil().open(self._images[idx]).convert("RGB")
        values = {"category": lambda: self._labels[idx],
                  "binary-category": lambda: self._bin_labels[idx],
                  "segmentation": lambda: pil().open(self._segs[idx])}
        return image, pick_targets(self._target_types, lambda kind: values[kind]())

    def extra_repr(self):
        return ""

    def _check_exists(self):
        return all(folder.is_dir() for folder in (self._images_folder, self._anns_folder))

    def _download(self):
        if self._check_exists():
            return
        for url, md5 in self._RESOURCES:
            download_and_extract_archive(url, download_root=str(self._base_folder), md5=md5)
