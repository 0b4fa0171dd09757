"""Datasets made from a folder tree with one sub-folder per class: DatasetFolder (any file
type, with a loader) and ImageFolder (images, loaded with Pillow)."""

import os

from .vision import VisionDataset

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename, extensions):
    """True when ``filename`` ends (case-insensitively) with one of ``extensions``."""
    return filename.lower().endswith(extensions if isinstance(extensions, str)
                                     else tuple(extensions))


def is_image_file(filename):
    """True when ``filename`` has one of :data:`IMG_EXTENSIONS`."""
    return has_file_allowed_extension(filename, IMG_EXTENSIONS)


def find_classes(directory):
    """The sub-folder names of ``directory``, sorted, and their indices.

    Raises:
        FileNotFoundError: there is no sub-folder.
    """
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {name: i for i, name in enumerate(classes)}


def make_dataset(directory, class_to_idx=None, extensions=None, is_valid_file=None,
                 allow_empty=False):
    """The (path, class index) samples under ``directory/<class>/`` (searched recursively,
    following links), sorted by class then path.

    Exactly one of ``extensions`` and ``is_valid_file`` selects the files.

    Raises:
        FileNotFoundError: a class has no valid file and ``allow_empty`` is False.
        ValueError: both or neither of ``extensions``/``is_valid_file`` were given, or
            ``class_to_idx`` is empty.
    """
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any "
                         "samples.")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the "
                         "same time")
    if extensions is not None:
        def is_valid_file(path):
            return has_file_allowed_extension(path, extensions)

    instances, found = [], set()
    for target_class in sorted(class_to_idx.keys()):
        index = class_to_idx[target_class]
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    instances.append((path, index))
                    found.add(target_class)
    empty = set(class_to_idx.keys()) - found
    if empty and not allow_empty:
        msg = f"Found no valid file for the classes {', '.join(sorted(empty))}. "
        if extensions is not None:
            shown = extensions if isinstance(extensions, str) else ", ".join(extensions)
            msg += f"Supported extensions are: {shown}"
        raise FileNotFoundError(msg)
    return instances


class DatasetFolder(VisionDataset):
    """Samples ``root/<class>/.../<file>`` read by ``loader``; classes are the sorted
    sub-folders.

    Args:
        root (str or os.PathLike): the root folder.
        loader (callable): reads a sample from its path.
        extensions (tuple of str, optional): the file endings to take.
        transform, target_transform (callable, optional): applied to sample / class index.
        is_valid_file (callable, optional): picks files by path (instead of ``extensions``).
        allow_empty (bool): allow class folders with no valid file.

    Attributes:
        classes (list of str), class_to_idx (dict), samples (list of (path, index)),
        targets (list of int).
    """

    def __init__(self, root, loader, extensions=None, transform=None, target_transform=None,
                 is_valid_file=None, allow_empty=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(self.root, class_to_idx=class_to_idx, extensions=extensions,
                                    is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.loader = loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]

    @staticmethod
    def make_dataset(directory, class_to_idx, extensions=None, is_valid_file=None,
                     allow_empty=False):
        """The samples (override to change how files are found); see :func:`make_dataset`."""
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions=extensions,
                            is_valid_file=is_valid_file, allow_empty=allow_empty)

    def find_classes(self, directory):
        """The classes (override to change them); see :func:`find_classes`."""
        return find_classes(directory)

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return sample, target

    def __len__(self):
        return len(self.samples)


def pil_loader(path):
    """Open an image file with Pillow and convert it to RGB.

    A file Pillow cannot decode raises Pillow's exception, as in torchvision, with the file's
    path added where Pillow's message lacks it ("image file is truncated" does not say which
    of a dataset's thousands of files is).
    """
    from .._pil import pil

    with open(path, "rb") as f:
        try:
            return pil().open(f).convert("RGB")
        except (OSError, pil().DecompressionBombError) as e:
            raise _naming(e, path) from e


def _naming(err, path):
    """``err``, or the same kind of exception with ``path`` in its message."""
    text, where = str(err), os.fspath(path)
    if where in text or getattr(err, "filename", None):
        return err
    try:
        return type(err)(f"{text} (file: {where})")
    except Exception:  # noqa: BLE001 - a subclass with another signature: keep the original
        return err


def accimage_loader(path):
    """Open an image with accimage, falling back to Pillow for files it cannot read."""
    import accimage

    try:
        return accimage.Image(path)
    except OSError:
        return pil_loader(path)


def default_loader(path):
    """The loader of the current image backend (:func:`numtorchvision.get_image_backend`)."""
    from .. import get_image_backend

    return accimage_loader(path) if get_image_backend() == "accimage" else pil_loader(path)


class ImageFolder(DatasetFolder):
    """Images in ``root/<class>/...`` with one of :data:`IMG_EXTENSIONS`, loaded as RGB PIL
    images; ``imgs`` is another name of ``samples``."""

    def __init__(self, root, transform=None, target_transform=None, loader=default_loader,
                 is_valid_file=None, allow_empty=False):
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None,
                         transform=transform, target_transform=target_transform,
                         is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.imgs = self.samples
