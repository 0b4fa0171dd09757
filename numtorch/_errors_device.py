"""Device error classes shared by ``numtorch`` and ``numtorch.cuda``.

``torch.OutOfMemoryError`` and ``torch.cuda.OutOfMemoryError`` are one class, so a program
catching either name catches what the allocator raises; both modules import it from here.
"""

__all__ = ["OutOfMemoryError", "AcceleratorError"]


class OutOfMemoryError(RuntimeError):
    """Raised when a device has no memory left for an allocation."""


class AcceleratorError(RuntimeError):
    """Raised when an accelerator (CUDA) call fails for a reason other than memory."""


OutOfMemoryError.__module__ = AcceleratorError.__module__ = "numtorch"
