"""``torch.utils.data._utils.worker``: the worker record and ``get_worker_info``."""

from .._worker import WorkerInfo
from ..dataloader import get_worker_info

__all__ = ["WorkerInfo", "get_worker_info"]
