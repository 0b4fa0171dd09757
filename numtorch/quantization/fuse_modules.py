"""``torch.quantization.fuse_modules``: the old import path of :mod:`numtorch.ao.quantization.fuse_modules` (same objects)."""

from numtorch.ao.quantization.fuse_modules import *  # noqa: F401,F403
