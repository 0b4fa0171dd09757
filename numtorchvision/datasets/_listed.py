"""What the file-list datasets (Flowers102, Food101, DTD, ...) share: an item is an image file
read by a loader plus its label, targets chosen from a few kinds, and the usual checks.

Each dataset only finds its files and labels; loading, transforms, length and the
"not found" errors are here once.
"""

import os
import pathlib

from .folder import default_loader
from .utils import _first_problem, verify_str_arg
from .vision import VisionDataset

NOT_FOUND = "Dataset not found. You can use download=True to download it"
NOT_FOUND_OR_CORRUPT = "Dataset not found or corrupted. You can use download=True to download it"


class ListedImages(VisionDataset):
    """Items are ``(loader(self._image_files[i]), self._labels[i])`` after the transforms.

    Subclasses fill ``_image_files`` and ``_labels`` (or override :meth:`_item`).
    """

    def __init__(self, root, transforms=None, transform=None, target_transform=None,
                 loader=default_loader):
        super().__init__(root, transforms=transforms, transform=transform,
                         target_transform=target_transform)
        self.loader = loader
        self._image_files, self._labels = [], []

    def __len__(self):
        return len(self._image_files)

    def _item(self, idx):
        return self.loader(self._image_files[idx]), self._labels[idx]

    def __getitem__(self, idx):
        return transformed(self, *self._item(idx))

    def extra_repr(self):
        split = getattr(self, "_split", None)
        return "" if split is None else f"split={split}"


def check_split(value, valid, arg="split"):
    return verify_str_arg(value, arg, valid)


def require(ok, message=NOT_FOUND, files=()):
    """Raise ``RuntimeError(message)`` unless ``ok``; ``files`` ((path, md5) pairs) name the
    first missing or damaged file in the message."""
    if not ok:
        raise RuntimeError(message + _first_problem(files))


def pick_targets(kinds, value_of):
    """The target for the requested ``kinds``: ``None`` for none, the value for one, a tuple
    for several (``value_of(kind)`` gives each)."""
    values = [value_of(kind) for kind in kinds]
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def as_list(kinds):
    return [kinds] if isinstance(kinds, str) else list(kinds)


def read_lines(path):
    """The stripped, non-empty lines of a text file."""
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def load_mat(path, **kwargs):
    """A MATLAB file as a dict (SciPy reads it; it is needed only by these datasets)."""
    try:
        import scipy.io
    except ImportError as exc:
        raise RuntimeError("Please install scipy: this dataset reads MATLAB .mat files "
                           "(pip install scipy)") from exc
    return scipy.io.loadmat(os.fspath(path), **kwargs)


def as_path(root):
    return pathlib.Path(root)


def index_of(names):
    return {name: i for i, name in enumerate(names)}


def transformed(dataset, image, target):
    """``(image, target)`` after the dataset's ``transforms`` (which wraps ``transform`` and
    ``target_transform`` when those were given)."""
    if dataset.transforms is None:
        return image, target
    return dataset.transforms(image, target)


def fetch_unless_present(dataset, fetch, *args, **kwargs):
    """Call ``fetch(*args, **kwargs)`` unless ``dataset._check_exists()`` already holds.

    ``fetch`` is the dataset module's own download helper, passed in at call time so that the
    module-level name (which tests redirect to a loopback server) is the one that runs.
    """
    if dataset._check_exists():
        return False
    fetch(*args, **kwargs)
    return True


def check_choices(**choices):
    """``verify_str_arg`` for each ``arg=(value, valid values)``, in keyword order (so the
    first bad argument is the one reported, as when they are checked one by one)."""
    for arg, (value, valid) in choices.items():
        verify_str_arg(value, arg, valid)
