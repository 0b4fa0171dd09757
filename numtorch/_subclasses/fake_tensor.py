"""``torch._subclasses.fake_tensor``: the fake-tensor queries (see the package docstring)."""

from .._tensor import Tensor

__all__ = ["FakeTensor", "is_fake"]


class FakeTensor(Tensor):
    """The type of a tensor that has metadata but no data. numtorch's ops always compute on
    data, so none of its tensors is a ``FakeTensor``; the class exists for ``isinstance``."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("numtorch does not make fake tensors: every op computes on data")


def is_fake(x):
    """Whether ``x`` is a fake tensor (or a wrapper subclass over one): never, in numtorch."""
    return isinstance(x, FakeTensor)
