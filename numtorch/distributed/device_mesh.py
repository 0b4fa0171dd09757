"""``torch.distributed.device_mesh``: ranks arranged in an n-d grid, with one process group
per grid dimension (the ranks that differ only in that coordinate).

Every rank builds the same mesh; building it creates the groups of every slice in the same
order on all ranks (as ``new_group`` requires), and each rank keeps the ones it belongs to.
"""

import math

from .. import _dtype
from .._from_data import tensor as _tensor
from .._tensor import Tensor

__all__ = ["DeviceMesh", "init_device_mesh"]


def _dist():
    from .. import distributed

    return distributed


class DeviceMesh:
    """An n-d arrangement of ranks (``mesh``: a tensor of global ranks).

    Args:
        device_type (str): "cpu" or "cuda".
        mesh (Tensor or nested list): the ranks, shaped as the mesh.
        mesh_dim_names (tuple of str, optional): a name per mesh dimension.

    Example:
        >>> mesh = init_device_mesh("cpu", (world_size,))   # doctest: +SKIP
        >>> mesh.size(), mesh.get_coordinate()              # doctest: +SKIP
    """

    def __init__(self, device_type, mesh, *, mesh_dim_names=None, backend_override=None,
                 _init_backend=True, _groups=None):
        if isinstance(mesh, Tensor):
            mesh = mesh.tolist()
        self.device_type = device_type
        self.mesh = _tensor(mesh, dtype=_dtype.int32)
        self.mesh_dim_names = tuple(mesh_dim_names) if mesh_dim_names is not None else None
        if self.mesh_dim_names is not None and len(self.mesh_dim_names) != self.mesh.ndim:
            raise RuntimeError(f"mesh_dim_names {self.mesh_dim_names} should have the same "
                               f"length as mesh dims {self.mesh.ndim}")
        dist = _dist()
        self._rank = dist.get_rank() if dist.is_initialized() else 0
        flat = self.mesh.flatten().tolist()
        self._coordinate = None
        if self._rank in flat:
            pos = flat.index(self._rank)
            self._coordinate = tuple(int(c) for c in _unravel(pos, self.mesh.shape))
        self._groups = _groups if _groups is not None else (
            self._make_groups() if _init_backend and dist.is_initialized() else [None] * self.ndim)

    def _make_groups(self):
        """One group per mesh dimension: every slice's group is created (on all ranks alike),
        this rank's kept."""
        dist = _dist()
        world = dist.get_world_size()
        mine = []
        for d in range(self.ndim):
            rows = self.mesh.movedim(d, -1).reshape(-1, self.mesh.size(d)).tolist()
            kept = None
            for ranks in rows:
                if sorted(ranks) == list(range(world)):
                    group = dist.group.WORLD
                else:
                    group = dist.new_group(ranks)
                if self._rank in ranks:
                    kept = group
            mine.append(kept)
        return mine

    @property
    def ndim(self):
        return self.mesh.ndim

    @property
    def shape(self):
        return tuple(self.mesh.shape)

    def size(self, mesh_dim=None):
        """The number of ranks in the mesh, or along ``mesh_dim``."""
        if mesh_dim is None:
            return self.mesh.numel()
        return self.mesh.size(self._dim_index(mesh_dim))

    def _dim_index(self, mesh_dim):
        if isinstance(mesh_dim, str):
            if not self.mesh_dim_names or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist. Available "
                               f"mesh dimensions are: mesh_dim_names={self.mesh_dim_names}")
            return self.mesh_dim_names.index(mesh_dim)
        return mesh_dim

    def get_group(self, mesh_dim=None):
        """The process group of ``mesh_dim`` (needed when the mesh has several dims)."""
        return self._groups[self._dim_index(self._one_dim(mesh_dim))]

    def _one_dim(self, mesh_dim):
        """``mesh_dim``, or 0 when it is None and the mesh has one dim (torch's error else)."""
        if mesh_dim is not None:
            return mesh_dim
        if self.ndim > 1:
            raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions. Optional "
                               "kwarg `mesh_dim` needs to be specified when "
                               "device_mesh.ndim > 1.")
        return 0

    def get_all_groups(self):
        return list(self._groups)

    def get_rank(self):
        """This process's global rank."""
        return self._rank

    def get_local_rank(self, mesh_dim=None):
        """This rank's coordinate along ``mesh_dim``."""
        return self._coordinate[self._dim_index(self._one_dim(mesh_dim))]

    def get_coordinate(self):
        """This rank's coordinates in the mesh, or None when it is not part of it."""
        return self._coordinate

    def __getitem__(self, names):
        """The sub-mesh of the named dimensions holding this rank."""
        if isinstance(names, str):
            names = (names,)
        if not self.mesh_dim_names:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        dims = [self._dim_index(n) for n in names]
        if self._coordinate is None:
            return None
        index = tuple(slice(None) if d in dims else self._coordinate[d]
                      for d in range(self.ndim))
        sub = self.mesh[index]
        order = sorted(range(len(dims)), key=lambda i: dims[i])
        if [dims[i] for i in order] != dims:
            sub = sub.permute(*[sorted(dims).index(d) for d in dims])
        return DeviceMesh(self.device_type, sub, mesh_dim_names=tuple(names),
                          _groups=[self._groups[d] for d in dims])

    def _stride(self):
        out = []
        for d in range(self.ndim):
            if self.mesh.size(d) == 1:
                out.append(())
                continue
            idx = [0] * self.ndim
            first = int(self.mesh[tuple(idx)])
            idx[d] = 1
            out.append(int(self.mesh[tuple(idx)]) - first)
        return tuple(out)

    def __repr__(self):
        if self.mesh_dim_names:
            dims = ", ".join(f"{n}={s}" for n, s in zip(self.mesh_dim_names, self.shape))
            shape = f"({dims})"
        else:
            shape = str(self.shape)
        return f"DeviceMesh({shape}, '{self.device_type}', stride={self._stride()})"

    def __eq__(self, other):
        return (isinstance(other, DeviceMesh) and self.device_type == other.device_type
                and self.mesh.tolist() == other.mesh.tolist()
                and self.mesh_dim_names == other.mesh_dim_names)

    def __hash__(self):
        return hash((self.device_type, str(self.mesh.tolist()), self.mesh_dim_names))


def _unravel(pos, shape):
    coords = []
    for n in reversed(tuple(shape)):
        coords.append(pos % n)
        pos //= n
    return tuple(reversed(coords))


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """Build a DeviceMesh of ``mesh_shape`` over all ranks (row-major), starting the default
    process group from the environment (``env://``) when none exists yet.

    Args:
        device_type (str): "cpu" or "cuda".
        mesh_shape (tuple of int): the mesh's shape; its product must be the world size.
        mesh_dim_names (tuple of str, optional): names of the mesh dimensions.
    """
    mesh_shape = tuple(mesh_shape)
    if mesh_dim_names is not None:
        if len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise RuntimeError("Each mesh_dim_name must be unique.",
                               f"Found repeated mesh_dim_name in mesh_dim_names {mesh_dim_names}")
        if len(mesh_shape) != len(mesh_dim_names):
            raise RuntimeError("mesh_shape and mesh_dim_names should have same length!",
                               f"Found len(mesh_dim_names): {len(mesh_dim_names)} and "
                               f"len(mesh_shape):{len(mesh_shape)}.")
    if device_type and not device_type.isalpha():
        raise RuntimeError(f"Device type with index is not supported but got {device_type}. "
                           "If you maintained a 'torch.device' object, it's recommended to "
                           "pass in 'device.type'.")
    dist = _dist()
    if not dist.is_initialized():
        dist.init_process_group()
    world = dist.get_world_size()
    count = math.prod(mesh_shape)
    if count > world:
        raise RuntimeError(f"Mesh should not be bigger than default world size {world}, but "
                           f"found {count} ranks!")
    ranks = _tensor(list(range(count)), dtype=_dtype.int32).view(*mesh_shape)
    return DeviceMesh(device_type, ranks, mesh_dim_names=mesh_dim_names)
