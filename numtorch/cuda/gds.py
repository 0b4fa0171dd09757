"""``torch.cuda.gds``: GPUDirect Storage (cuFile) reads and writes between files and GPU memory.
numtorch's CuPy backend has no cuFile bindings: the file is opened as torch does (so a missing
file is ``FileNotFoundError``), then registration and transfers raise torch's "not supported
on this platform" error."""

import os

__all__ = ["GdsFile", "gds_register_buffer", "gds_deregister_buffer"]


def _unsupported(name):
    return RuntimeError(f"torch._C._gds_{name} is not supported on this platform")


def gds_register_buffer(s):
    """Register storage ``s`` with cuFile (not supported: see the module docstring)."""
    raise _unsupported("register_buffer")


def gds_deregister_buffer(s):
    """Deregister storage ``s`` from cuFile (not supported)."""
    raise _unsupported("deregister_buffer")


class GdsFile:
    """A file opened for GPUDirect Storage transfers (``flags`` as for ``os.open``)."""

    def __init__(self, filename, flags):
        self.handle = None
        self.filename, self.flags = filename, flags
        self.fd = os.open(filename, flags | os.O_DIRECT)
        os.close(self.fd)
        raise _unsupported("register_handle")
