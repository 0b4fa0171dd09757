"""numtorchvision: torchvision's datasets, transforms, models, utils, io and ops on numtorch.

``import numtorchvision as torchvision`` next to ``import numtorch as torch``: the package has
torchvision's layout (``datasets``, ``transforms``, ``models``, ``ops``, ``io``, ``utils``) and
reads the same on-disk data and checkpoints. Pillow (the ``vision`` extra) is imported only by
the parts that decode or draw images.
"""

__version__ = "0.28.0"

from . import datasets, extension, io, models, ops, transforms, utils, version  # noqa: F401

_IMAGE_BACKEND = ["PIL"]
_VIDEO_BACKEND = ["pyav"]


def set_image_backend(backend):
    """Choose the library that loads images in the datasets.

    Args:
        backend (str): ``'PIL'`` (Pillow) or ``'accimage'`` (only if that package is
            installed).
    """
    if backend not in ("PIL", "accimage"):
        raise ValueError(f"Invalid backend '{backend}'. Options are 'PIL' and 'accimage'")
    _IMAGE_BACKEND[0] = backend


def get_image_backend():
    """The name of the library that loads images in the datasets (``'PIL'`` by default)."""
    return _IMAGE_BACKEND[0]


def set_video_backend(backend):
    """Accepted for compatibility and ignored: as in torchvision 0.28, the video backend is
    always ``'pyav'`` (numtorchvision decodes no video itself)."""


def get_video_backend():
    """The video backend's name (``'pyav'`` by default)."""
    return _VIDEO_BACKEND[0]


def disable_beta_transforms_warning():
    """Kept for compatibility: the v2 transforms are stable and give no beta warning."""
