"""``torch.cuda.FloatStorage`` and the other legacy typed storages of CUDA memory.

Each is the CPU class of the same name (``numtorch.FloatStorage``...) with its elements on the
current GPU; without CUDA, making one raises torch's "not compiled with CUDA" error.
"""

from .. import backend, storage as _storage

_NAMES = ("FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "LongStorage",
          "IntStorage", "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage",
          "ComplexFloatStorage", "ComplexDoubleStorage")

__all__ = list(_NAMES)


def _init(self, *args, **kwargs):
    if backend.cupy_or_none() is None:
        raise backend.cuda_unavailable()
    type(self).__mro__[1].__init__(self, *args, **kwargs)
    from .._device import device

    self._array = backend.to_device(self._array, device("cuda"))


def _is_cuda(self):
    return True


def _make(name):
    cpu = getattr(_storage, name)
    return type(name, (cpu,), {"__module__": "numtorch.cuda", "__init__": _init,
                               "is_cuda": property(_is_cuda),
                               "__doc__": f"{cpu.__doc__[:-1]}, on a GPU."})


globals().update({n: _make(n) for n in _NAMES})
