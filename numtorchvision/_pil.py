"""Pillow access for numtorchvision: imported on first use, never at package import.

Only the code paths that decode, draw or convert PIL images call :func:`pil`; tensor-only
programs run without Pillow installed.
"""

import sys

import numpy as np

_EXTRA_HINT = ("numtorchvision needs Pillow for PIL images and image files: "
               "pip install 'numtorch[vision]' (or pip install pillow)")


def pil():
    """Return the ``PIL.Image`` module, importing it now.

    Raises:
        ImportError: Pillow is not installed; the message names the ``vision`` extra.
    """
    try:
        from PIL import Image
    except ImportError as exc:
        raise ImportError(_EXTRA_HINT) from exc
    return Image


def pil_submodule(name):
    """Return ``PIL.<name>`` (``ImageOps``, ``ImageEnhance``, ...), importing it now."""
    pil()
    import importlib

    return importlib.import_module(f"PIL.{name}")


def is_pil_image(obj):
    """True when ``obj`` is a PIL image.

    If ``PIL.Image`` was never imported no PIL image can exist, so this never imports Pillow.
    """
    mod = sys.modules.get("PIL.Image")
    return mod is not None and isinstance(obj, mod.Image)


def from_array(arr, mode):
    """A PIL image of ``mode`` holding the bytes of the (H, W[, C]) array ``arr``.

    ``Image.fromarray(arr, mode)`` is deprecated in recent Pillow; building the image from the
    raw buffer keeps the given mode (``'I;16'``, ``'YCbCr'``, ``'HSV'`` ...) on every version.
    """
    Image = pil()
    arr = np.ascontiguousarray(arr)
    height = arr.shape[0]
    width = 1 if arr.ndim == 1 else arr.shape[1]
    return Image.frombuffer(mode, (width, height), arr.tobytes(), "raw", mode, 0, 1)
