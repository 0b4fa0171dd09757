"""``torch.fx.passes``: analyses and transformations of fx graphs."""

from . import shape_prop, split_module  # noqa: F401
