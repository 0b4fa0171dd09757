"""The kernel registry behind the v2 functionals: each functional looks up the kernel for its
input's kind (plain tensor, Image, Video, Mask, BoundingBoxes or PIL image) and returns the
same kind it was given."""

import functools

import numtorch as torch

from .... import tv_tensors
from ...._pil import is_pil_image
from ....tv_tensors._tv_tensor import _plain

_KERNELS = {}


class _PILKind:
    """Registry key standing for PIL images (Pillow is imported only when one is seen)."""


def is_pure_tensor(inpt):
    """A tensor that is not a TVTensor."""
    return isinstance(inpt, torch.Tensor) and not isinstance(inpt, tv_tensors.TVTensor)


def _unwrapping(kernel):
    """``kernel`` run on the plain tensor inside a TVTensor, its result wrapped back into the
    input's kind."""
    @functools.wraps(kernel)
    def wrapper(inpt, *args, **kwargs):
        output = kernel(_plain(inpt), *args, **kwargs)
        return tv_tensors.wrap(output, like=inpt)

    return wrapper


def _register_kernel_internal(functional, input_type, *, tv_tensor_wrapper=True):
    registry = _KERNELS.setdefault(functional, {})
    if input_type in registry:
        raise ValueError(f"Functional {functional} already has a kernel registered for type "
                         f"{input_type}.")

    def decorator(kernel):
        wraps = (isinstance(input_type, type) and issubclass(input_type, tv_tensors.TVTensor)
                 and tv_tensor_wrapper)
        registry[input_type] = _unwrapping(kernel) if wraps else kernel
        return kernel

    return decorator


_BUILTIN_KINDS = (tv_tensors.Image, tv_tensors.Video, tv_tensors.Mask, tv_tensors.BoundingBoxes)


def register_kernel(functional, tv_tensor_cls):
    """Decorator: ``kernel`` handles ``tv_tensor_cls`` (a TVTensor subclass of your own) in
    ``functional`` (a v2 functional or its name). The kernel gets the TVTensor itself."""
    if isinstance(functional, str):
        from numtorchvision.transforms.v2 import functional as F

        try:
            functional = getattr(F, functional)
        except AttributeError:
            raise ValueError(f"Could not find functional with name '{functional}' in "
                             "torchvision.transforms.v2.functional.") from None
    elif not (callable(functional) and getattr(functional, "__module__", "").startswith(
            "numtorchvision.transforms.v2.functional")):
        raise ValueError("Kernels can only be registered on functionals from the "
                         "torchvision.transforms.v2.functional namespace, but got "
                         f"{functional}.")
    if not (isinstance(tv_tensor_cls, type) and issubclass(tv_tensor_cls, tv_tensors.TVTensor)):
        raise ValueError("Kernels can only be registered for subclasses of "
                         f"torchvision.tv_tensors.TVTensor, but got {tv_tensor_cls}.")
    if tv_tensor_cls in _BUILTIN_KINDS:
        raise ValueError("Kernels cannot be registered for the builtin tv_tensor classes, but "
                         f"got {tv_tensor_cls}")
    return _register_kernel_internal(functional, tv_tensor_cls, tv_tensor_wrapper=False)


def _get_kernel(functional, inpt, *, allow_passthrough=False):
    registry = _KERNELS.get(functional)
    if not registry:
        raise ValueError(f"No kernel registered for functional {functional.__name__}.")
    if is_pil_image(inpt):
        if _PILKind in registry:
            return registry[_PILKind]
    else:
        for cls in type(inpt).__mro__:
            if cls in registry:
                return registry[cls]
            if cls is tv_tensors.TVTensor:
                break
    if allow_passthrough:
        return lambda inpt, *args, **kwargs: inpt
    kinds = ", ".join("PIL.Image.Image" if k is _PILKind else f"{k.__module__}.{k.__qualname__}"
                      for k in registry)
    raise TypeError(f"Functional F.{functional.__name__} supports inputs of type "
                    f"[{kinds}], but got {type(inpt)} instead.")


def _call(functional, inpt, *args, **kwargs):
    return _get_kernel(functional, inpt)(inpt, *args, **kwargs)


def _register(functional, *kinds, tv_tensor_wrapper=True):
    """Register one kernel for several kinds (``"pil"`` names PIL images)."""
    def decorator(kernel):
        for kind in kinds:
            _register_kernel_internal(functional, _PILKind if kind == "pil" else kind,
                                      tv_tensor_wrapper=tv_tensor_wrapper)(kernel)
        return kernel

    return decorator


def _flat_image(image, fn):
    """``fn`` on ``image`` seen as a ``[N, C, H, W]`` batch (videos and extra batch
    dimensions), its result given back the leading dimensions."""
    shape = image.shape
    if image.ndim == 4 or image.ndim == 3:
        return fn(image)
    out = fn(image.reshape((-1,) + tuple(shape[-3:])))
    return out.reshape(tuple(shape[:-3]) + tuple(out.shape[-3:]))
