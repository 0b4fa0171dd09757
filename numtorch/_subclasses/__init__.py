"""``torch._subclasses``: the tensor subclasses torch's tracing stack uses.

numtorch runs every op eagerly on real data, so it never makes a fake tensor: ``FakeTensor``
is the class that ``isinstance`` checks (and :func:`fake_tensor.is_fake`) test against, and
no numtorch tensor is one. Libraries that skip work for fake tensors (kornia's
``distance_transform``, transformers' ``is_torch_fx_proxy`` family) ask through these names.
"""

from . import fake_tensor
from .fake_tensor import FakeTensor

__all__ = ["FakeTensor", "fake_tensor"]
