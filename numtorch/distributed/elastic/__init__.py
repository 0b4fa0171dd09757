"""``torch.distributed.elastic`` names that torchrun-launched scripts import."""

from . import multiprocessing  # noqa: F401
