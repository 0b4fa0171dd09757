"""``torch.cuda.sparse``: the legacy names of sparse CUDA tensor types. numtorch's sparse
tensors live on the CPU only, so calling one raises a TypeError (torch's own wording on a
machine without CUDA)."""

__all__ = ["DoubleTensor", "FloatTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
           "IntTensor", "ShortTensor", "CharTensor", "ByteTensor"]


class _SparseCudaType(type):
    def __call__(cls, *args, **kwargs):
        from .. import backend

        if backend.cupy_or_none() is None:
            raise TypeError(f"type torch.cuda.sparse.{cls.__name__} not available. Torch not "
                            "compiled with CUDA enabled.")
        raise TypeError(f"type torch.cuda.sparse.{cls.__name__} not available: numtorch's "
                        "sparse tensors are CPU-only")

    def __instancecheck__(cls, obj):
        return False  # no sparse tensor is on a GPU

    def __repr__(cls):
        return f"<class 'torch.cuda.sparse.{cls.__name__}'>"


def _type(name):
    return _SparseCudaType(name, (), {"__module__": __name__,
                                      "__doc__": f"Sparse CUDA {name} (see the module "
                                                 "docstring)."})


DoubleTensor, FloatTensor, HalfTensor = _type("DoubleTensor"), _type("FloatTensor"), \
    _type("HalfTensor")
BFloat16Tensor, LongTensor, IntTensor = _type("BFloat16Tensor"), _type("LongTensor"), \
    _type("IntTensor")
ShortTensor, CharTensor, ByteTensor = _type("ShortTensor"), _type("CharTensor"), \
    _type("ByteTensor")
