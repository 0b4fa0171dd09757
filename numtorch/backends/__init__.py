"""``numtorch.backends``: the flags PyTorch programs set at start-up.

``cudnn``, ``mps``, ``cuda``, ``mkldnn``, ``nnpack`` and ``opt_einsum`` flags are accepted
and stored; numtorch has no cuDNN, MPS, MKL or NNPACK kernels, so they change nothing
(documented no-ops). ``cpu`` reports the CPU.
"""

from . import cpu, cuda, cudnn, mha, mkl, mkldnn, mps, nnpack, opt_einsum  # noqa: F401
from . import quantized  # noqa: F401
from . import openmp  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "nnpack", "opt_einsum",
           "quantized"]
