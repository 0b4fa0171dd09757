"""torchvision's ``extension`` module: whether the compiled ops are there. numtorchvision's
ops (nms, roi_align, deform_conv2d, ...) are written with numtorch, so they always are."""


def _has_ops():
    """Whether the detection ops can run (always true here)."""
    return True


def _assert_has_ops():
    """Raise if the ops are missing (they never are here)."""
    if not _has_ops():
        raise RuntimeError("Couldn't load custom C++ ops.")
