"""``DTensor``: a tensor laid out over a DeviceMesh, each rank holding its local piece.

A DTensor *is* a numtorch Tensor whose array is this rank's local data and whose ``shape``,
``size()``, ``stride()`` and ``numel()`` describe the global tensor. It shares its autograd
identity (graph node, version counter, accumulator) with its local tensor: ``to_local()``
hands out an alias of that identity, so gradients that reach the alias land in the DTensor's
own ``.grad`` (as a DTensor of the same layout), and operations are computed on aliases by
the rules in ``_dispatch.py`` and wrapped back.
"""

from ..._tensor import Size, Tensor, _make, _new
from ...autograd.graph import accumulator
from ._redistribute import Redistribute
from ._utils import compute_global_shape
from .placement_types import Partial, Replicate, Shard

__all__ = ["DTensor", "distribute_module", "distribute_tensor"]

_dispatch_ready = [False]


def _ensure_dispatch():
    # the __torch_function__ wrappers cost every public function a check, so they go in when
    # the first DTensor is made, not when the module is imported (transformers imports it)
    from ... import _torch_function

    if not _dispatch_ready[0]:
        _torch_function.install(DTensor)
        _dispatch_ready[0] = True
    elif not _torch_function._installed[0]:  # put back since (test isolation undoes it)
        _torch_function._install_functions()


def _contiguous_stride(shape):
    stride, acc = [], 1
    for n in reversed(tuple(shape)):
        stride.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(stride))


class _Spec:
    __slots__ = ("mesh", "placements", "shape", "stride")

    def __init__(self, mesh, placements, shape, stride=None):
        self.mesh = mesh
        self.placements = tuple(placements)
        self.shape = tuple(int(n) for n in shape)
        self.stride = tuple(stride) if stride is not None else _contiguous_stride(self.shape)


def _keep_as_parameter(cls):
    # nn.Parameter(dtensor) is the DTensor itself, detached (see nn/parameter.py)
    from ...nn import parameter

    parameter._KEPT_AS_ITSELF.add(cls)


def _normalize(placements, mesh, ndim, api=None):
    """The placements as a tuple, negative ``Shard`` dims counted from the end; ``api``
    ("distribute", "from_local" or "redistribute") refuses the ``Shard`` dims torch's refuses
    there, with its errors."""
    if placements is None:
        placements = [Replicate()] * mesh.ndim
    placements = list(placements)
    if len(placements) != mesh.ndim:
        raise ValueError(f"`placements` must have the same length as `device_mesh.ndim`! "
                         f"Found placements length: {len(placements)}, and device_mesh.ndim: "
                         f"{mesh.ndim}.")
    out = []
    for i, p in enumerate(placements):
        if isinstance(p, Shard) and p.dim < 0:
            p = type(p)(p.dim + ndim) if type(p) is Shard else p
        if type(p) is Shard:
            _check_shard_dim(p.dim, ndim, i, api)
        out.append(p)
    out = tuple(out)
    if api in ("distribute", "redistribute"):
        for p in out:
            if type(p) is Shard and p.dim < 0:
                raise AssertionError(f"Shard dim {p.dim} in placements {out} must be normalized")
    return out


def _check_shard_dim(dim, ndim, index, api):
    """torch's refusals of a (once normalised) ``Shard(dim)`` of an ``ndim``-dim tensor."""
    if api == "from_local":
        if dim < 0:
            raise RuntimeError(f"Shard placements should have negative dims normalized in the "
                               f"user-facing APIs: S({dim})")
        if dim >= ndim:
            raise RuntimeError(f"Sharding dim {dim} greater than tensor ndim {ndim} for "
                               f"placement number {index}")
    elif api == "distribute":  # torch splits the tensor with chunk() along the dim
        if dim > ndim:
            raise AssertionError(f"Sharding dim {dim} greater than tensor ndim {ndim}")
        if ndim <= 0:
            raise AssertionError(f"Expected tensor.dim() > 0, got {ndim}")
        if not -ndim <= dim < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                             f"{ndim - 1}], but got {dim})")


def _wrap(local, spec, leaf=False):
    """A DTensor sharing ``local``'s data and autograd identity (``leaf``: a new leaf of its
    own instead, for data made here)."""
    _ensure_dispatch()
    dt = _new(DTensor)
    fn = local.grad_fn
    dt._array = local._array
    dt._requires_grad = local.requires_grad
    dt._grad = None
    dt._grad_fn = fn
    dt._output_nr = local._output_nr if fn is not None else 0
    dt._vc = local._vc
    dt._base = None
    dt._accum = accumulator(local) if fn is None and local.requires_grad and not leaf else None
    dt._extra = None
    dt._spec = spec
    return dt


def _alias(dt):
    """A plain Tensor with ``dt``'s data and autograd identity (gradient reaching it goes to
    ``dt``'s graph node, or into ``dt.grad`` for a leaf)."""
    t = _make(dt._array)
    t._vc = dt._vc
    if dt._requires_grad:
        t._requires_grad = True
        t._grad_fn = dt._grad_fn
        t._output_nr = dt._output_nr
        if dt._grad_fn is None:
            t._accum = dt._accum or accumulator(dt)
    return t


def _redistribute(dt, placements):
    """``dt`` moved to ``placements`` on its mesh (differentiable; ``dt`` itself if equal)."""
    spec = dt._spec
    placements = tuple(placements)
    if placements == spec.placements:
        return dt
    local = Redistribute.apply(_alias(dt), mesh=spec.mesh, shape=spec.shape,
                               src=spec.placements, dst=placements)
    return _wrap(local, _Spec(spec.mesh, placements, spec.shape))


class DTensor(Tensor):
    """A tensor distributed over a :class:`DeviceMesh` by ``placements`` (one per mesh
    dimension: :class:`Shard`, :class:`Replicate` or :class:`Partial`).

    Make one with :func:`distribute_tensor` (from a global tensor) or
    :meth:`DTensor.from_local` (from each rank's piece). Operations on DTensors run on the
    local pieces and give DTensors; where the layouts do not fit an operation, the inputs are
    redistributed first (gathering to Replicate as the general fallback), as torch does.

    Example:
        >>> mesh = init_device_mesh("cpu", (world_size,))                   # doctest: +SKIP
        >>> d = distribute_tensor(torch.arange(6.).view(3, 2), mesh, [Shard(0)])  # doctest: +SKIP
        >>> d.full_tensor()                                                  # doctest: +SKIP
    """

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        from ._dispatch import dispatch

        return dispatch(func, args, kwargs or {})

    # -- what describes the global tensor ----------------------------------------------------
    @property
    def shape(self):
        return Size(self._spec.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._spec.shape)
        return self._spec.shape[dim]

    def dim(self):
        return len(self._spec.shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._spec.shape)

    def numel(self):
        n = 1
        for s in self._spec.shape:
            n *= s
        return n

    nelement = numel

    def stride(self, dim=None):
        return self._spec.stride if dim is None else self._spec.stride[dim]

    def is_contiguous(self, memory_format=None):
        return self._spec.stride == _contiguous_stride(self._spec.shape)

    @property
    def device_mesh(self):
        return self._spec.mesh

    @property
    def placements(self):
        return self._spec.placements

    @property
    def _local_tensor(self):
        return _alias(self)

    @property
    def grad(self):
        g = self._grad
        if g is None or isinstance(g, DTensor):
            return g
        grad_spec = _Spec(self._spec.mesh, self._grad_placements(), self._spec.shape)
        return _wrap(g, grad_spec)

    @grad.setter
    def grad(self, value):
        if isinstance(value, DTensor):
            value = _alias(value).detach()
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    def _grad_placements(self):
        return getattr(self, "_grad_layout", None) or self._spec.placements

    def __repr__(self, *, tensor_contents=None):
        local = _make(self._array)
        if local.dim() == 0:
            local = local.item()  # torch shows a 0-d local piece as a number
        return (f"DTensor(local_tensor={local!r}, device_mesh={self._spec.mesh!r}, "
                f"placements={self._spec.placements!r})")

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        raise RuntimeError("numtorch cannot pickle a DTensor; save dtensor.full_tensor() or "
                           "dtensor.to_local() instead")

    # -- conversions ----------------------------------------------------------------------
    def to_local(self, *, grad_placements=None):
        """This rank's piece, as a plain tensor (differentiable: its gradient flows back to
        this DTensor)."""
        return _alias(self)

    def redistribute(self, device_mesh=None, placements=None, *, async_op=False,
                     forward_dtype=None, backward_dtype=None):
        """This tensor under new ``placements`` (collectives over the mesh; differentiable).
        Moving to Partial is refused, as in torch."""
        mesh = device_mesh if device_mesh is not None else self._spec.mesh
        if mesh != self._spec.mesh:
            raise NotImplementedError("Cross device mesh comm not supported yet!")
        placements = _normalize(placements, mesh, self.ndim, "redistribute")
        for old, new in zip(self._spec.placements, placements):
            if isinstance(new, Partial) and old != new:
                raise RuntimeError(f"Can not redistribute from {old} to {new}, redistributing "
                                   "to Partial is for internal use only!")
        out = _redistribute(self, placements)
        if forward_dtype is not None:
            out = out.to(forward_dtype)
        return out

    def full_tensor(self, *, grad_placements=None):
        """The whole tensor on every rank (gathered/reduced; differentiable)."""
        return _redistribute(self, [Replicate()] * self._spec.mesh.ndim).to_local()

    @staticmethod
    def from_local(local_tensor, device_mesh=None, placements=None, *, run_check=False,
                   shape=None, stride=None):
        """Make a DTensor of each rank's ``local_tensor`` (no data moves).

        Without ``shape``, Shard pieces are assumed even (global size = local size times the
        mesh size); ``run_check`` broadcasts coordinate 0's data to the other ranks of
        Replicate dimensions, as torch does."""
        if device_mesh is None:
            raise RuntimeError("from_local needs a device_mesh")
        placements = _normalize(placements, device_mesh, local_tensor.dim(), "from_local")
        if shape is None:
            shape = compute_global_shape(tuple(local_tensor.shape), device_mesh, placements)
            stride = None
        if run_check:
            local_tensor = _check_replicas(local_tensor, device_mesh, placements)
        return _wrap(local_tensor, _Spec(device_mesh, placements, shape, stride))


def _check_replicas(local, mesh, placements):
    from ... import distributed as dist
    from ._redistribute import _row

    out = local
    for i, p in enumerate(placements):
        if isinstance(p, Replicate) and mesh.size(i) > 1:
            copy = out.detach().clone()
            dist.broadcast(copy, src=_row(mesh, i)[0], group=mesh.get_group(i))
            out = out + (copy - out.detach())  # the values of coordinate 0, gradient kept
    return out


def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    """Split ``tensor`` over ``device_mesh`` by ``placements``; every rank gets its piece of
    rank ``src_data_rank``'s data (None: each rank keeps its own data). The result is a new
    leaf that requires grad when ``tensor`` does.

    Args:
        tensor (Tensor): the global tensor (same shape on every rank).
        device_mesh (DeviceMesh): the mesh.
        placements (sequence of Placement): default: Replicate on every mesh dimension.
    """
    if device_mesh is None:
        raise RuntimeError("distribute_tensor needs a device_mesh")
    if isinstance(tensor, DTensor):
        if tensor.device_mesh != device_mesh:
            raise ValueError(f"Cannot distribute a DTensor with device mesh "
                             f"{tensor.device_mesh} to a different device mesh {device_mesh}.")
        if tuple(tensor.placements) != tuple(placements):
            raise ValueError(f"Cannot distribute a DTensor with placements "
                             f"{tensor.placements} to a different placements {placements}. do "
                             "you want to call `redistribute` instead?")
        return tensor
    placements = _normalize(placements, device_mesh, tensor.dim(), "distribute")
    data = tensor.detach()
    if src_data_rank is not None:
        data = _broadcast_from(data.clone(), device_mesh, src_data_rank)
    from ._redistribute import transform

    local = transform(data, device_mesh, tuple(tensor.shape),
                      [Replicate()] * device_mesh.ndim, placements)
    local = local.clone() if local._array is tensor._array else local
    leaf = _make(local._array)
    leaf._requires_grad = tensor.requires_grad
    return _wrap(leaf, _Spec(device_mesh, placements, tuple(tensor.shape)), leaf=True)


def _broadcast_from(data, mesh, src):
    """Every rank of the mesh gets the data of the rank at coordinate 0 along each mesh
    dimension (``src`` for meshes that start at it, as init_device_mesh's do)."""
    from ... import distributed as dist
    from ._redistribute import _row

    for i in range(mesh.ndim):
        if mesh.size(i) > 1:
            dist.broadcast(data, src=_row(mesh, i)[0], group=mesh.get_group(i))
    return data


def distribute_module(module, device_mesh=None, partition_fn=None, input_fn=None,
                      output_fn=None):
    """Make ``module``'s parameters DTensors: ``partition_fn(name, submodule, mesh)`` for
    each submodule (default: every parameter and buffer Replicate), with optional hooks
    ``input_fn(module, inputs, mesh)`` and ``output_fn(module, outputs, mesh)``."""
    if partition_fn is None:
        for sub in module.modules():
            for key, param in list(sub._parameters.items()):
                if param is not None and not isinstance(param, DTensor):
                    dt = distribute_tensor(param.data, device_mesh,
                                           [Replicate()] * device_mesh.ndim)
                    dt._requires_grad = param.requires_grad
                    sub._parameters[key] = dt
            for key, buf in list(sub._buffers.items()):
                if buf is not None and not isinstance(buf, DTensor):
                    sub._buffers[key] = distribute_tensor(buf, device_mesh,
                                                          [Replicate()] * device_mesh.ndim)
    else:
        for name, sub in module.named_modules():
            partition_fn(name, sub, device_mesh)
    if input_fn is not None:
        module.register_forward_pre_hook(lambda mod, inputs: input_fn(mod, inputs, device_mesh))
    if output_fn is not None:
        module.register_forward_hook(
            lambda mod, inputs, outputs: output_fn(mod, outputs, device_mesh))
    return module



_keep_as_parameter(DTensor)
