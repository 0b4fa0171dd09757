"""``torch.distributed.elastic.multiprocessing``: the ``errors`` helpers."""

from . import errors  # noqa: F401
