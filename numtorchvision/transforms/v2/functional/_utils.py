"""The kernel registry behind the v2 functionals: each functional looks up the kernel for its
input's kind (plain tensor, Image, Video, Mask, BoundingBoxes or PIL image) and returns the
same kind it was given."""

import functools

import numtorch as torch

from .... import tv_tensors
from ...._pil import is_pil_image
from ....tv_tensors._tv_tensor import _plain

# functional -> {input kind -> kernel}; _PILKind stands for PIL images
_TABLE = {}
_BUILTIN_KINDS = (tv_tensors.Image, tv_tensors.Video, tv_tensors.Mask, tv_tensors.BoundingBoxes)
_OUR_NAMESPACE = "numtorchvision.transforms.v2.functional"


class _PILKind:
    """Registry key standing for PIL images (Pillow is imported only when one is seen)."""


def is_pure_tensor(inpt):
    """A tensor that is not a TVTensor."""
    return isinstance(inpt, torch.Tensor) and not isinstance(inpt, tv_tensors.TVTensor)


def _on_plain_data(kernel):
    """``kernel`` run on the plain tensor inside a TVTensor, its result wrapped back into the
    input's kind."""
    @functools.wraps(kernel)
    def rewrapped(inpt, *args, **kwargs):
        return tv_tensors.wrap(kernel(_plain(inpt), *args, **kwargs), like=inpt)

    return rewrapped


def _add_kernel(functional, kind, kernel, unwrap=True):
    """Store ``kernel`` for ``kind``; a built-in TVTensor kind's kernel gets (and returns)
    plain tensors unless ``unwrap`` is False."""
    kernels = _TABLE.setdefault(functional, {})
    if kind in kernels:
        raise ValueError(f"Functional {functional} already has a kernel registered for type "
                         f"{kind}.")
    is_tv_kind = isinstance(kind, type) and issubclass(kind, tv_tensors.TVTensor)
    kernels[kind] = _on_plain_data(kernel) if (unwrap and is_tv_kind) else kernel


def _resolve_functional(functional):
    if isinstance(functional, str):
        from numtorchvision.transforms.v2 import functional as F

        found = getattr(F, functional, None)
        if found is None:
            raise ValueError(f"Could not find functional with name '{functional}' in "
                             "torchvision.transforms.v2.functional.")
        return found
    ours = callable(functional) and getattr(functional, "__module__", "").startswith(
        _OUR_NAMESPACE)
    if not ours:
        raise ValueError("Kernels can only be registered on functionals from the "
                         "torchvision.transforms.v2.functional namespace, but got "
                         f"{functional}.")
    return functional


def register_kernel(functional, tv_tensor_cls):
    """Decorator: ``kernel`` handles ``tv_tensor_cls`` (a TVTensor subclass of your own) in
    ``functional`` (a v2 functional or its name). The kernel gets the TVTensor itself."""
    functional = _resolve_functional(functional)
    if not (isinstance(tv_tensor_cls, type) and issubclass(tv_tensor_cls, tv_tensors.TVTensor)):
        raise ValueError("Kernels can only be registered for subclasses of "
                         f"torchvision.tv_tensors.TVTensor, but got {tv_tensor_cls}.")
    if tv_tensor_cls in _BUILTIN_KINDS:
        raise ValueError("Kernels cannot be registered for the builtin tv_tensor classes, but "
                         f"got {tv_tensor_cls}")

    def decorator(kernel):
        _add_kernel(functional, tv_tensor_cls, kernel, unwrap=False)
        return kernel

    return decorator


def _passthrough(inpt, *args, **kwargs):
    return inpt


def _lookup(kernels, inpt):
    """The kernel for ``inpt``'s kind, or its nearest registered base class below TVTensor."""
    if is_pil_image(inpt):
        return kernels.get(_PILKind)
    mro = type(inpt).__mro__
    stop = mro.index(tv_tensors.TVTensor) + 1 if tv_tensors.TVTensor in mro else len(mro)
    return next((kernels[c] for c in mro[:stop] if c in kernels), None)


def _kernel_for(functional, inpt, *, allow_passthrough=False):
    kernels = _TABLE.get(functional)
    if not kernels:
        raise ValueError(f"No kernel registered for functional {functional.__name__}.")
    kernel = _lookup(kernels, inpt)
    if kernel is not None:
        return kernel
    if allow_passthrough:
        return _passthrough
    names = ", ".join("PIL.Image.Image" if k is _PILKind else f"{k.__module__}.{k.__qualname__}"
                      for k in kernels)
    raise TypeError(f"Functional F.{functional.__name__} supports inputs of type "
                    f"[{names}], but got {type(inpt)} instead.")


def _call(functional, inpt, *args, **kwargs):
    return _kernel_for(functional, inpt)(inpt, *args, **kwargs)


def _register(functional, *kinds, unwrap=True):
    """Register one kernel for several kinds (``"pil"`` names PIL images)."""
    def decorator(kernel):
        for kind in kinds:
            _add_kernel(functional, _PILKind if kind == "pil" else kind, kernel, unwrap)
        return kernel

    return decorator


def _flat_image(image, fn):
    """``fn`` on ``image`` seen as a ``[N, C, H, W]`` batch (videos and extra batch
    dimensions), its result given back the leading dimensions."""
    if image.ndim in (3, 4):
        return fn(image)
    lead = tuple(image.shape[:-3])
    out = fn(image.reshape((-1,) + tuple(image.shape[-3:])))
    return out.reshape(lead + tuple(out.shape[-3:]))


def _takes_metadata(inpt, kind, plain_ok, plain_error, own_ok, own_error, other_error):
    """Whether ``inpt`` is a ``kind`` TVTensor (True: it carries its metadata) or a plain
    tensor (False: the caller passes it). ``plain_ok`` / ``own_ok`` say whether the metadata
    arguments fit that case; when not, ValueError with the matching message. Any other input:
    ``other_error``, an exception instance."""
    if is_pure_tensor(inpt):
        if not plain_ok:
            raise ValueError(plain_error)
        return False
    if not isinstance(inpt, kind):
        raise other_error
    if not own_ok:
        raise ValueError(own_error)
    return True


def _need_chw(image, first=3):
    """Tensor images need (..., C, H, W): torchvision's kernels unpack ``shape[-2:]``
    (``first=2``: the warps read the size first) and ``shape[-3:]``, so fewer dimensions fail
    there with Python's unpacking error."""
    if isinstance(image, torch.Tensor) and image.ndim < 3:
        expected = 2 if first == 2 and image.ndim < 2 else 3
        raise ValueError(f"not enough values to unpack (expected {expected}, got {image.ndim})")
