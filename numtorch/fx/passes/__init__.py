"""``torch.fx.passes``: analyses and transformations of fx graphs."""

from . import shape_prop  # noqa: F401
