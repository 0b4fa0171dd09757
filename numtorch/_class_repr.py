"""Class reprs under torch's names: ``print(type(t))`` shows ``<class 'torch.Tensor'>``, as
tutorials print it, for the classes a program meets as values (tensors, parameters, sizes,
dtypes, devices). Only the repr changes: ``__module__`` stays numtorch's (pickles and
imports resolve through it)."""

from abc import ABCMeta


def torch_name(cls):
    """torch's dotted name for one of numtorch's classes (its own ``_torch_name`` if it sets
    one, else its module with ``numtorch`` read as ``torch``)."""
    own = cls.__dict__.get("_torch_name")
    if own is not None:
        return own
    mod = cls.__module__
    if mod == "builtins":  # (graph node classes, built-in types in torch: <class 'MulBackward0'>)
        return cls.__qualname__
    if mod == "numtorch" or mod.startswith("numtorch."):
        mod = "torch" + mod[len("numtorch"):]
    return f"{mod}.{cls.__qualname__}"


class TorchNamed(type):
    """The metaclass of those classes (torch's tensors have one too, ``_TensorMeta``)."""

    def __repr__(cls):
        return f"<class '{torch_name(cls)}'>"


class TorchNamedABC(TorchNamed, ABCMeta):
    """``TorchNamed`` for abstract bases whose torch counterpart is an ``ABCMeta`` class
    (quantization observers and fake-quantize modules, which a printed ``QConfig`` names)."""


def object_repr(self):
    """Python's default object repr with torch's class name, for the classes whose objects a
    program prints or an error message quotes (datasets, samplers, loaders, schedulers)."""
    return f"<{torch_name(type(self))} object at {hex(id(self))}>"
