"""``fully_shard`` (FSDP2): parameters become DTensors sharded along dim 0 over a mesh; a
module gathers its whole parameters before its forward and drops them after, and the
gradients are averaged over the ranks and scattered back into the shards.

The gather is one differentiable op per parameter: forward all-gathers the shards (uneven
torch.chunk pieces allowed), backward averages the full gradient over the ranks and keeps
this rank's piece, so each DTensor parameter's ``.grad`` is its Shard(0) gradient and any
optimizer updates the local shards.
"""

import dataclasses

from ...autograd.graph import Op
from .._functional_collectives import _dist

__all__ = [
    "CPUOffloadPolicy",
    "FSDPModule",
    "MixedPrecisionPolicy",
    "OffloadPolicy",
    "fully_shard",
    "register_fsdp_forward_method",
]


@dataclasses.dataclass(frozen=True)
class MixedPrecisionPolicy:
    """Dtypes for the gathered parameters (``param_dtype``), the gradient reduction
    (``reduce_dtype``) and the forward outputs (``output_dtype``)."""

    param_dtype: object | None = None
    reduce_dtype: object | None = None
    output_dtype: object | None = None
    cast_forward_inputs: bool = True


@dataclasses.dataclass
class OffloadPolicy:
    """No offloading (the default)."""


@dataclasses.dataclass
class CPUOffloadPolicy(OffloadPolicy):
    """Keep the sharded parameters on the CPU (where numtorch keeps them anyway)."""

    pin_memory: bool = True


class _Unshard(Op):
    """y = the whole parameter gathered from its Shard(0) pieces; dx = this rank's piece of
    the gradient averaged over the mesh (data parallelism: every rank saw other data)."""

    def forward(self, shard):
        from ..._tensor import _make
        from ..tensor._redistribute import transform
        from ..tensor.placement_types import Replicate, Shard

        with _no_grad():
            full = transform(_make(shard), self.mesh, self.shape, (Shard(0),), (Replicate(),))
        return full._array

    def backward(self, grad):
        from ..tensor._redistribute import _take_shard

        total = grad.detach().clone()
        if self.mesh.size() > 1 and self.sync:
            _dist().all_reduce(total, group=self.mesh.get_group())
        total = total / self.mesh.size()
        return _take_shard(total, self.mesh, 0, 0)


def _no_grad():
    from ...autograd import no_grad

    return no_grad()


class FSDPModule:
    """Mixed into every module ``fully_shard`` was applied to (its class becomes
    ``FSDP<Class>``)."""

    def unshard(self, async_op=False):
        """Put the whole parameters in place now (forward does this by itself)."""
        _unshard(self)

    def reshard(self):
        """Put the sharded DTensor parameters back."""
        _reshard(self)

    def set_reshard_after_forward(self, reshard_after_forward, recurse=True):
        self._fsdp_state["reshard_after_forward"] = reshard_after_forward

    def set_requires_gradient_sync(self, requires_gradient_sync, *, recurse=True):
        """With False, gradients are not averaged over the ranks (each keeps its own piece of
        its own gradient) until it is set back."""
        mods = self.modules() if recurse else [self]
        for m in mods:
            if isinstance(m, FSDPModule):
                m._fsdp_state["sync"] = bool(requires_gradient_sync)

    def set_is_last_backward(self, is_last_backward):
        self._fsdp_state["is_last_backward"] = is_last_backward


def _managed(module):
    return module._fsdp_state["params"]


def _unshard(module):
    state = module._fsdp_state
    if state["unsharded"]:
        return
    dtype = state["mp"].param_dtype
    for owner, name, param in _managed(module):
        from ..tensor._api import _alias

        full = _Unshard.apply(_alias(param), mesh=param.device_mesh, shape=tuple(param.shape),
                              sync=state["sync"])
        if dtype is not None:
            full = full.to(dtype)
        # the whole weight is what the forward sees; the DTensor comes back after it
        owner._parameters[name] = full
    state["unsharded"] = True


def _reshard(module):
    state = module._fsdp_state
    for owner, name, param in _managed(module):
        owner._parameters[name] = param
    state["unsharded"] = False


def _pre_forward(module, args, kwargs):
    _unshard(module)
    mp = module._fsdp_state["mp"]
    if mp.param_dtype is not None and mp.cast_forward_inputs:
        from ..._tensor import Tensor

        def cast(x):
            return x.to(mp.param_dtype) if isinstance(x, Tensor) and x.is_floating_point() \
                else x

        args = tuple(cast(a) for a in args)
        kwargs = {k: cast(v) for k, v in kwargs.items()}
    return args, kwargs


def _post_forward(module, args, kwargs, output):
    state = module._fsdp_state
    if state["reshard_after_forward"] is not False:
        _reshard(module)
    dtype = state["mp"].output_dtype
    if dtype is not None:
        from ..._tensor import Tensor

        if isinstance(output, Tensor) and output.is_floating_point():
            output = output.to(dtype)
    return output


_DEFAULT_MP = MixedPrecisionPolicy()
_NO_OFFLOAD = OffloadPolicy()


def fully_shard(module, *, mesh=None, reshard_after_forward=None, shard_placement_fn=None,
                mp_policy=_DEFAULT_MP, offload_policy=_NO_OFFLOAD,
                ignored_params=None, dp_mesh_dims=None):
    """Shard ``module``'s parameters (those not already managed by an inner fully_shard)
    along dim 0 over ``mesh`` (default: all ranks), and gather them around its forward.

    Args:
        module (nn.Module or list of nn.Module): the module(s), sharing one group.
        mesh (DeviceMesh, optional): a 1-d mesh. Default: ``init_device_mesh`` over the world.
        reshard_after_forward (bool, optional): drop the whole parameters after forward
            (the default; the autograd graph keeps what backward needs).
        mp_policy (MixedPrecisionPolicy): dtype of the gathered parameters and outputs.
        ignored_params (set of Parameter, optional): parameters left alone.

    Returns:
        The module, now an instance of ``FSDP<its class>``.
    """
    from ..device_mesh import init_device_mesh
    from ..tensor import Shard, distribute_tensor

    if shard_placement_fn is not None:
        raise NotImplementedError("numtorch's fully_shard shards every parameter along dim 0; "
                                  "shard_placement_fn is not supported")
    if mesh is None:
        mesh = init_device_mesh("cpu", (_dist().get_world_size(),))
    if mesh.ndim != 1:
        raise ValueError(f"fully_shard expects a 1D DeviceMesh but got {mesh}")
    modules = list(module) if isinstance(module, (list, tuple)) else [module]
    ignored = {id(p) for p in (ignored_params or ())}
    taken = set()
    for m in modules:
        for sub in m.modules():
            if sub is not m and isinstance(sub, FSDPModule):
                taken.update(id(p) for _, _, p in _managed(sub))
    params = []
    seen = {}
    for m in modules:
        for owner in m.modules():
            for name, p in list(owner._parameters.items()):
                if p is None or id(p) in ignored or id(p) in taken:
                    continue
                if id(p) in seen:  # tied weights: one DTensor for every owner
                    owner._parameters[name] = seen[id(p)]
                    params.append((owner, name, seen[id(p)]))
                    continue
                dt = distribute_tensor(p.detach(), mesh, [Shard(0)], src_data_rank=None)
                dt._requires_grad = p.requires_grad
                seen[id(p)] = dt
                owner._parameters[name] = dt
                params.append((owner, name, dt))
    first = modules[0]
    for m in modules:
        cls = type(m)
        if not isinstance(m, FSDPModule):
            m.__class__ = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {})
        m._fsdp_state = {"params": params if m is first else [], "mp": mp_policy,
                         "reshard_after_forward": reshard_after_forward, "sync": True,
                         "unsharded": False, "mesh": mesh}
    first.register_forward_pre_hook(_pre_forward, with_kwargs=True)
    first.register_forward_hook(_post_forward, with_kwargs=True)
    return module


def register_fsdp_forward_method(module, method_name):
    """Make ``module.<method_name>()`` gather and drop the parameters as forward does."""
    if not isinstance(module, FSDPModule):
        return
    original = getattr(module, method_name)

    def wrapped(*args, **kwargs):
        args, kwargs = _pre_forward(module, args, kwargs)
        out = original(*args, **kwargs)
        return _post_forward(module, args, kwargs, out)

    setattr(module, method_name, wrapped)
