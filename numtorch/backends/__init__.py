"""``numtorch.backends``: the flags PyTorch programs set at start-up.

``cudnn``, ``mps``, ``cuda`` and ``mkldnn`` flags are accepted and stored; numtorch has no
cuDNN or MPS kernels, so they change nothing (documented no-ops). ``cpu`` reports the CPU.
"""

from . import cpu, cuda, cudnn, mha, mkldnn, mps  # noqa: F401
from . import quantized  # noqa: F401
from . import openmp  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mha", "mkldnn", "mps", "quantized"]
