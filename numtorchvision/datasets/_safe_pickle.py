"""Reading the pickles some datasets ship (CIFAR batches, the LSUN key cache) without letting
them run code.

torchvision calls ``pickle.load`` on these files, so a crafted batch (one that passes the MD5
check of a patched or subclassed dataset, or a replaced cache file) runs whatever it names.
The files only ever hold dicts, lists, strings, bytes, numbers and NumPy arrays, so every
global but NumPy's array rebuilders is refused.
"""

import pickle

# what NumPy's arrays pickle to (numpy.core in files written by NumPy 1.x, numpy._core by
# 2.x; _frombuffer for protocol 5), and what Python 3 writes for bytes at protocol 2
_ALLOWED = frozenset([
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
    ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"),
])


class _DataUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"it asks for the global {module}.{name}, which a "
                                         f"data file never holds")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("it holds a persistent id, which a data file never does")


def load_data_pickle(path, **kwargs):
    """The object pickled in the file ``path``, built from plain data and NumPy arrays only.

    Raises:
        RuntimeError: the file is truncated or corrupt, or names any other global (refused
            before it is imported or called); the message names the file.
    """
    with open(path, "rb") as f:
        try:
            return _DataUnpickler(f, **kwargs).load()
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, KeyError, IndexError,
                AttributeError, UnicodeDecodeError, MemoryError, OverflowError,
                RecursionError) as e:
            raise RuntimeError(f"{path} is corrupted or not a plain data pickle ({e}); delete "
                               f"it and download it again") from None
