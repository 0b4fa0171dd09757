"""Tensor attributes about storage kind and placement: ``layout``, the ``is_<device>`` and
``is_<kind>`` flags torch has, and ``is_nonzero`` / ``is_same_size`` / ``is_coalesced``.

A mixin of ``Tensor`` (like ``_tensor_math``). numtorch tensors are dense and live on the
CPU or (through CuPy) on CUDA, so the other device and storage-kind flags are False.
"""

from . import _layout

__all__ = []


def _always_false(doc):
    return property(lambda self: False, doc=doc)


class _TensorLayout:
    __slots__ = ()

    @property
    def layout(self):
        """``torch.strided``: numtorch tensors are dense."""
        return _layout.strided

    is_xpu = _always_false("True if the tensor is on an Intel XPU (never in numtorch).")
    is_mps = _always_false("True if the tensor is on Apple's MPS device (never in numtorch).")
    is_ipu = _always_false("True if the tensor is on a Graphcore IPU (never in numtorch).")
    is_xla = _always_false("True if the tensor is on an XLA device (never in numtorch).")
    is_maia = _always_false("True if the tensor is on a MAIA device (never in numtorch).")
    is_mtia = _always_false("True if the tensor is on an MTIA device (never in numtorch).")
    is_vulkan = _always_false("True if the tensor is on a Vulkan device (never in numtorch).")
    @property
    def is_meta(self):
        """True for a meta tensor: a shape, dtype and strides without data."""
        return self.device.type == "meta"

    is_mkldnn = _always_false("True for an MKL-DNN (oneDNN) tensor (never in numtorch).")
    # (the sparse tensor classes, numtorch._sparse and numtorch.sparse._compressed_tensor,
    # answer True for their own layouts)
    is_sparse = _always_false("True for a sparse COO tensor (False for a dense one).")
    is_sparse_csr = _always_false("True for a sparse CSR tensor (False for a dense one).")
    is_nested = _always_false("True for a nested (jagged) tensor (never in numtorch).")

    def is_distributed(self):
        """False: numtorch has no distributed tensors."""
        return False

    def is_coalesced(self):
        """Only defined for sparse COO tensors; a dense tensor raises torch's error."""
        raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got "
                           "Strided")

    def coalesce(self):
        """Only defined for sparse COO tensors; a dense tensor raises torch's error."""
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")

    def is_nonzero(self):
        """The truth value of a one-element tensor (errors for any other size)."""
        n = self.numel()
        if n != 1:
            what = "no values" if n == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        return bool(self.item())

    def is_same_size(self, other):
        """True when ``other`` has the same shape."""
        from ._tensor import Tensor

        if not isinstance(other, Tensor):
            raise TypeError("is_same_size(): argument 'other' (position 1) must be Tensor, "
                            f"not {type(other).__name__}")
        return self.shape == other.shape
