"""DTensor factories: each rank makes only its own piece of the global ``size``."""

from ... import _creation, _sampling
from ._api import _normalize, _Spec, _wrap
from ._utils import compute_local_shape


def _sizes(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        return tuple(size[0])
    return tuple(size)


def _make(fill, size, device_mesh, placements, requires_grad, **kwargs):
    if device_mesh is None:
        raise RuntimeError("DTensor factories need a device_mesh")
    shape = _sizes(size)
    placements = _normalize(placements, device_mesh, len(shape))
    local = fill(compute_local_shape(shape, device_mesh, placements), **kwargs)
    local.requires_grad_(requires_grad)
    return _wrap(local, _Spec(device_mesh, placements, shape), leaf=True)


def zeros(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
          placements=None):
    """A DTensor of zeros with global shape ``size``."""
    return _make(_creation.zeros, size, device_mesh, placements, requires_grad, dtype=dtype)


def ones(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
         placements=None):
    """A DTensor of ones with global shape ``size``."""
    return _make(_creation.ones, size, device_mesh, placements, requires_grad, dtype=dtype)


def empty(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
          placements=None):
    """An uninitialised DTensor with global shape ``size``."""
    return _make(_creation.empty, size, device_mesh, placements, requires_grad, dtype=dtype)


def full(size, fill_value, *, requires_grad=False, dtype=None, layout=None, device_mesh=None,
         placements=None):
    """A DTensor filled with ``fill_value``, global shape ``size``."""
    def fill(shape, **kw):
        return _creation.full(shape, fill_value, **kw)

    return _make(fill, (size,), device_mesh, placements, requires_grad, dtype=dtype)


def rand(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
         placements=None):
    """Uniform [0, 1) values; each rank draws its own piece from its own generator.

    Note: torch coordinates the draws so the global tensor does not depend on the mesh;
    numtorch draws each piece locally."""
    return _make(_sampling.rand, size, device_mesh, placements, requires_grad, dtype=dtype)


def randn(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
          placements=None):
    """Normal(0, 1) values; each rank draws its own piece (see :func:`rand`)."""
    return _make(_sampling.randn, size, device_mesh, placements, requires_grad, dtype=dtype)
