"""LSUN scene categories, read from the per-category LMDB databases
(``root/<category>_<split>_lmdb``)."""

import io
import os
import pickle
import string
from collections.abc import Iterable

from .._pil import pil
from ._safe_pickle import load_data_pickle
from .utils import iterable_to_str, verify_str_arg
from .vision import VisionDataset


class _LmdbSource:
    """(length, keys, get) of one LMDB folder: through the ``lmdb`` package when installed,
    else through numtorchvision's own read-only reader."""

    def __init__(self, root):
        try:
            import lmdb
        except ImportError:
            lmdb = None
        if lmdb is not None:
            self.env = lmdb.open(root, max_readers=1, readonly=True, lock=False,
                                 readahead=False, meminit=False)
            with self.env.begin(write=False) as txn:
                self.length = txn.stat()["entries"]
            self._reader = None
        else:
            from ._lmdb import LMDBReader

            self.env = None
            self._reader = LMDBReader(root)
            self.length = len(self._reader)

    def keys(self):
        if self._reader is not None:
            return self._reader.keys()
        with self.env.begin(write=False) as txn:
            return list(txn.cursor().iternext(keys=True, values=False))

    def get(self, key):
        if self._reader is not None:
            return self._reader.get(key)
        with self.env.begin(write=False) as txn:
            return txn.get(key)


class LSUNClass(VisionDataset):
    """One LSUN category: the images stored in the LMDB folder ``root`` (target None).

    The key list is cached in ``_cache_<letters of root>`` in the working directory, as
    torchvision does, so that opening the database again is fast.
    """

    def __init__(self, root, transform=None, target_transform=None):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._source = _LmdbSource(root)
        self.env = self._source.env
        self.length = self._source.length
        cache_file = "_cache_" + "".join(c for c in root if c in string.ascii_letters)
        if os.path.isfile(cache_file):
            self.keys = load_data_pickle(cache_file)
        else:
            self.keys = self._source.keys()
            with open(cache_file, "wb") as f:
                pickle.dump(self.keys, f)

    def __getitem__(self, index):
        buf = io.BytesIO(self._source.get(self.keys[index]))
        img = pil().open(buf).convert("RGB")
        target = None
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return self.length


_CATEGORIES = ["bedroom", "bridge", "church_outdoor", "classroom", "conference_room",
               "dining_room", "kitchen", "living_room", "restaurant", "tower"]
_SPLITS = ["train", "val", "test"]


class LSUN(VisionDataset):
    """LSUN scenes: images of several categories, the target being the category's index.

    Args:
        root (str or os.PathLike): folder holding the ``<category>_<split>_lmdb`` folders.
        classes (str or list of str): ``'train'``, ``'val'`` or ``'test'`` (every category
            of that split), or a list like ``['bedroom_train', 'church_outdoor_train']``.
        transform, target_transform (callable, optional): applied to the image / target.

    Reading uses the ``lmdb`` package when it is installed, and otherwise a built-in reader
    of the LMDB file format (read-only, main database only).
    """

    def __init__(self, root, classes="train", transform=None, target_transform=None):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.classes = self._verify_classes(classes)
        self.dbs = [LSUNClass(root=os.path.join(root, f"{c}_lmdb"), transform=transform)
                    for c in self.classes]
        self.indices, count = [], 0
        for db in self.dbs:
            count += len(db)
            self.indices.append(count)
        self.length = count

    def _verify_classes(self, classes):
        try:
            verify_str_arg(classes, "classes", _SPLITS)
            return [classes] if classes == "test" else [f"{c}_{classes}" for c in _CATEGORIES]
        except ValueError:
            if not isinstance(classes, Iterable):
                raise ValueError(f"Expected type str or Iterable for argument classes, but got "
                                 f"type {type(classes)}.") from None
            classes = list(classes)
            for c in classes:
                verify_str_arg(c, custom_msg=f"Expected type str for elements in argument "
                                             f"classes, but got type {type(c)}.")
                parts = c.split("_")
                category, split = "_".join(parts[:-1]), parts[-1]
                verify_str_arg(category, valid_values=_CATEGORIES, custom_msg=(
                    f"Unknown value '{category}' for LSUN class. Valid values are "
                    f"{{{iterable_to_str(_CATEGORIES)}}}."))
                verify_str_arg(split, valid_values=_SPLITS, custom_msg=(
                    f"Unknown value '{split}' for postfix. Valid values are "
                    f"{{{iterable_to_str(_SPLITS)}}}."))
            return classes

    def __getitem__(self, index):
        target, start = 0, 0
        for end in self.indices:
            if index < end:
                break
            target, start = target + 1, end
        db = self.dbs[target]
        if self.target_transform is not None:
            target = self.target_transform(target)
        img, _ = db[index - start]
        return img, target

    def __len__(self):
        return self.length

    def extra_repr(self):
        return f"Classes: {self.classes}"
