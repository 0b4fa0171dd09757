"""``torch.cuda.green_contexts``: GPU partitions by streaming multiprocessor count. CuPy has no
green-context API, so, as in a torch built without them, :attr:`SUPPORTED` is False and
:meth:`GreenContext.create` raises."""

__all__ = ["GreenContext", "SUPPORTED"]

SUPPORTED = False


class GreenContext:
    """A share of a GPU's multiprocessors (not available: see the module docstring)."""

    @staticmethod
    def create(*, num_sms=None, workqueue_scope=None, workqueue_concurrency_limit=None,
               device_id=None):
        raise RuntimeError("PyTorch was not built with Green Context support!")

    @staticmethod
    def max_workqueue_concurrency(device_id=None):
        raise RuntimeError("PyTorch was not built with Green Context support!")
