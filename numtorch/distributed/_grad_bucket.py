"""``torch.distributed.GradBucket``: what a DDP communication hook gets for one bucket."""


class GradBucket:
    """One bucket of DDP gradients: the flat ``buffer()`` all of them live in, the per-
    parameter ``gradients()`` (views into it) and ``parameters()``, the bucket's ``index()``
    (buckets run in index order on every rank) and whether it ``is_last()``."""

    def __init__(self, index, buffer, gradients, parameters, last):
        self._index, self._buffer = index, buffer
        self._gradients, self._parameters, self._last = gradients, parameters, last

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def gradients(self):
        return list(self._gradients)

    def parameters(self):
        return list(self._parameters)

    def is_last(self):
        return self._last

    def set_buffer(self, buffer):
        """Make ``buffer`` the bucket's contents (a hook that replaced the tensor)."""
        self._buffer.copy_(buffer)

    def __repr__(self):
        return (f"GradBucket(index={self._index}, numel={self._buffer.numel()}, "
                f"parameters={len(self._parameters)})")
