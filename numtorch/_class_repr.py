"""Class reprs under torch's names: ``print(type(t))`` shows ``<class 'torch.Tensor'>``, as
tutorials print it, for the classes a program meets as values (tensors, parameters, sizes,
dtypes, devices). Only the repr changes: ``__module__`` stays numtorch's (pickles and
imports resolve through it)."""

import abc

# numtorch modules that split one of torch's (the classes print under torch's module)
_MODULES = {"numtorch.distributions._matrix_transforms": "torch.distributions.transforms",
            "numtorch.distributions._scalar_transforms": "torch.distributions.transforms"}


def torch_name(cls):
    """torch's dotted name for one of numtorch's classes (its own ``_torch_name`` if it sets
    one, else its module with ``numtorch`` read as ``torch``)."""
    own = cls.__dict__.get("_torch_name")
    if own is not None:
        return own
    mod = _MODULES.get(cls.__module__, cls.__module__)
    if mod == "builtins":  # (graph node classes, built-in types in torch: <class 'MulBackward0'>)
        return cls.__qualname__
    if mod == "numtorch" or mod.startswith("numtorch."):
        mod = "torch" + mod[len("numtorch"):]
    return f"{mod}.{cls.__qualname__}"


class TorchNamed(type):
    """The metaclass of those classes (torch's tensors have one too, ``_TensorMeta``)."""

    def __repr__(cls):
        return f"<class '{torch_name(cls)}'>"


def object_repr(self):
    """Python's default object repr with torch's class name, for the classes whose objects a
    program prints or an error message quotes (datasets, samplers, loaders, schedulers)."""
    return f"<{torch_name(type(self))} object at {hex(id(self))}>"


class TorchNamedBase(TorchNamed, abc.ABCMeta):
    """``TorchNamed`` for the base classes programs subclass (Module, Optimizer, LRScheduler,
    Dataset, Sampler, DataLoader, Distribution): ``print(type(model[0]))`` shows
    ``<class 'torch.nn.modules.linear.Linear'>``. It derives from ``abc.ABCMeta`` only so that a
    user class may also list ``abc.ABC`` as a base (``class Base(nn.Module, ABC)``), as with
    torch's plain ``type``; the abstract-method machinery runs only for such classes (torch's
    ``@abstractmethod`` in a Module without ABC does not block instantiation), and instance
    checks stay type's own (no ABC registry walk on ``isinstance(x, nn.Module)``)."""

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__

    def __new__(mcls, name, bases, namespace, **kwargs):
        if any(hasattr(b, "_abc_impl") for b in bases):
            return abc.ABCMeta.__new__(mcls, name, bases, namespace, **kwargs)
        return type.__new__(mcls, name, bases, namespace, **kwargs)
