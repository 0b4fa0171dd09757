"""``torch.distributed.checkpoint.state_dict``: model and optimizer state dicts keyed by
parameter names (FQNs), with DTensors as they are (sharded, for ``dcp.save``/``dcp.load``) or
gathered (``full_state_dict``), and loading them back.

An optimizer's state dict here names parameters by FQN instead of torch's positions, so it
fits any optimizer over the same model; a fresh optimizer's state is first created (one step
with zero gradients and learning rate 0, as torch does) so ``dcp.load`` has tensors to fill.
"""

import dataclasses
from typing import NamedTuple

__all__ = [
    "StateDictOptions",
    "get_model_state_dict",
    "get_optimizer_state_dict",
    "get_state_dict",
    "set_model_state_dict",
    "set_optimizer_state_dict",
    "set_state_dict",
]


@dataclasses.dataclass
class StateDictOptions:
    """How the state-dict helpers treat DTensors, frozen parameters and the layout."""

    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


class _IncompatibleKeys(NamedTuple):
    missing_keys: list
    unexpected_keys: list


def _is_dtensor(x):
    from ..tensor import DTensor

    return isinstance(x, DTensor)


def _not_rank0():
    from .. import get_rank, is_initialized

    return is_initialized() and get_rank() != 0


def _gather(value):
    """``value`` with every DTensor inside gathered to a plain tensor."""
    if _is_dtensor(value):
        return value.full_tensor().detach()
    if isinstance(value, dict):
        return {k: _gather(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_gather(v) for v in value]
    return value


def _optimizers(optimizers):
    from ...optim import Optimizer

    return [optimizers] if isinstance(optimizers, Optimizer) else list(optimizers)


def _param_names(model):
    """``{id(parameter): fqn}`` (a shared parameter keeps its first name)."""
    names = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        names.setdefault(id(p), name)
    return names


def _check_options(options, submodules):
    options = options or StateDictOptions()
    if options.broadcast_from_rank0 and not options.full_state_dict:
        raise ValueError("full_state_dict must be True when broadcast_from_rank0 is True.")
    if submodules:
        import warnings

        warnings.warn("Getting submodules only model/optim state_dict is deprecated and will be "
                      "removed in 2.5. This feature can be achieved by manually filtering out "
                      "the state_dict returned from get_state_dict.", FutureWarning,
                      stacklevel=3)
    return options


def _only_submodules(model, sd, submodules, keep_prefixes):
    """The entries of ``submodules`` (named from the model, or from each submodule)."""
    prefixes = [name + "." for name, mod in model.named_modules() if mod in submodules]
    out = {}
    for key, value in sd.items():
        for prefix in prefixes:
            if key.startswith(prefix):
                out[key if keep_prefixes else key[len(prefix):]] = value
                break
    return out


def get_model_state_dict(model, *, submodules=None, options=None):
    """``model.state_dict()``; with ``full_state_dict`` every DTensor is gathered to a plain
    tensor (with ``cpu_offload`` as well, only rank 0 keeps the entries, as in torch)."""
    options = _check_options(options, submodules)
    sd = model.state_dict()
    if submodules:
        sd = _only_submodules(model, sd, set(submodules), options.keep_submodule_prefixes)
    if options.ignore_frozen_params:
        frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
        sd = {k: v for k, v in sd.items() if k not in frozen}
    if not options.full_state_dict:
        return sd
    out = {k: _gather(v) for k, v in sd.items()}
    if options.cpu_offload and _not_rank0():
        return {}
    return out


def _distribute_like(value, target):
    """A whole tensor split as the DTensor ``target`` is (other values unchanged)."""
    from ..._tensor import Tensor

    if (_is_dtensor(target) and isinstance(value, Tensor) and not _is_dtensor(value)
            and tuple(value.shape) == tuple(target.shape)):
        from ..tensor import distribute_tensor

        return distribute_tensor(value.detach(), target.device_mesh, target.placements,
                                 src_data_rank=None)
    return value


def _from_rank0(value):
    """Rank 0's ``value`` on every rank (the others may pass an empty dict)."""
    from .. import broadcast_object_list, get_rank, is_initialized

    if not is_initialized():
        return value
    box = [value if get_rank() == 0 else None]
    broadcast_object_list(box, src=0)
    return box[0]


def set_model_state_dict(model, model_state_dict, *, options=None):
    """Load ``model_state_dict`` into ``model`` (``load_state_dict``'s result and errors);
    with ``full_state_dict``, whole tensors meant for DTensor parameters are first split to
    each rank's block."""
    options = _check_options(options, None)
    if options.broadcast_from_rank0:
        model_state_dict = _from_rank0(model_state_dict)
    if options.full_state_dict:
        _materialize(model)
        current = model.state_dict(keep_vars=True)
        model_state_dict = {k: _distribute_like(v, current.get(k))
                            for k, v in model_state_dict.items()}
    return model.load_state_dict(model_state_dict, strict=options.strict)


def _materialize(model):
    """A model built on the meta device gets (uninitialised) CPU storage, keeping its
    parameter objects, so the loaded values can be copied in (torch loads full state dicts
    into meta-initialised FSDP2 models)."""
    tensors = list(model.parameters()) + list(model.buffers())
    if any(t.device.type == "meta" for t in tensors):
        model.to_empty(device="cpu")


def _init_optim_state(optim):
    """Create a fresh optimizer's state: one step on zero gradients with the learning rate
    at 0 (parameters do not move), as torch's helper does. Like torch's, it leaves the
    optimizer alone when it has state already or any parameter has a gradient."""
    params = [p for group in optim.param_groups for p in group["params"]]
    if optim.state or any(p.grad is not None for p in params):
        return
    from ... import no_grad, zeros_like

    given = []
    for p in params:
        if p.requires_grad:
            p.grad = zeros_like(p)
            given.append(p)
    saved = []
    for group in optim.param_groups:
        lr = group.get("lr")
        saved.append(lr)
        if "lr" in group:
            if hasattr(lr, "fill_"):
                with no_grad():
                    lr.fill_(0.0)
            else:
                group["lr"] = 0.0
    try:
        optim.step()
    finally:
        for group, lr in zip(optim.param_groups, saved):
            if "lr" in group:
                group["lr"] = lr
        for p in given:
            p.grad = None


def _as_dtensor_state(state, param):
    """numtorch's optimizers keep a DTensor parameter's state as local tensors (they update
    the local arrays); torch's state is DTensors laid out as the parameter. The local
    tensors are wrapped (sharing their data, so ``dcp.load`` fills them in place)."""
    if not _is_dtensor(param):
        return state
    from ..._tensor import Tensor
    from ..tensor import DTensor

    local_shape = tuple(param.to_local().shape)
    out = {}
    for k, v in state.items():
        if (isinstance(v, Tensor) and not _is_dtensor(v) and k != "step"
                and tuple(v.shape) == local_shape):
            v = DTensor.from_local(v, param.device_mesh, param.placements, run_check=False,
                                   shape=param.shape, stride=param.stride())
        out[k] = v
    return out


def _as_local_state(state, param):
    """The inverse of ``_as_dtensor_state`` for loading into numtorch's optimizer."""
    if not _is_dtensor(param):
        return state
    return {k: (v.to_local() if _is_dtensor(v) else v) for k, v in state.items()}


def _one_optimizer_state_dict(model, optim, names):
    _init_optim_state(optim)
    osd = optim.state_dict()
    order = [p for g in optim.param_groups for p in g["params"]]
    seen, position, param_at = set(), {}, {}
    for p in order:  # state_dict numbers each parameter once, in group order
        if id(p) not in seen:
            position[len(seen)] = names[id(p)]
            param_at[len(seen)] = p
            seen.add(id(p))
    state = {position[i]: _as_dtensor_state(s, param_at[i]) for i, s in osd["state"].items()}
    groups = []
    for g in osd["param_groups"]:
        g = dict(g)
        g["params"] = [position[i] for i in g["params"]]
        groups.append(g)
    return {"state": state, "param_groups": groups}


def _flatten_optim(osd):
    flat = {}
    for fqn, s in osd["state"].items():
        for k, v in s.items():
            flat[f"state.{fqn}.{k}"] = v
    for group in osd["param_groups"]:
        for fqn in group["params"]:
            for k, v in group.items():
                if k != "params":
                    flat[f"param_groups.{fqn}.{k}"] = v
    return flat


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None):
    """The optimizers' state dict keyed by parameter FQN (see the module docstring)."""
    options = _check_options(options, submodules)
    names = _param_names(model)
    merged = {"state": {}, "param_groups": []}
    for optim in _optimizers(optimizers):
        one = _one_optimizer_state_dict(model, optim, names)
        merged["state"].update(one["state"])
        merged["param_groups"].extend(one["param_groups"])
    if options.full_state_dict:
        merged = _gather(merged)
        if options.cpu_offload and _not_rank0():
            return {}
    if options.flatten_optimizer_state_dict:
        return _flatten_optim(merged)
    return merged


def get_state_dict(model, optimizers, *, submodules=None, options=None):
    """``(get_model_state_dict(...), get_optimizer_state_dict(...))``."""
    return (get_model_state_dict(model, submodules=submodules, options=options),
            get_optimizer_state_dict(model, optimizers, submodules=submodules,
                                     options=options))


def _unflatten_optim(flat, optim, names):
    state, hyper = {}, {}
    for p in (p for g in optim.param_groups for p in g["params"]):
        fqn = names[id(p)]
        s_prefix, g_prefix = f"state.{fqn}.", f"param_groups.{fqn}."
        for key, v in flat.items():
            if key.startswith(s_prefix):
                state.setdefault(fqn, {})[key[len(s_prefix):]] = v
            elif key.startswith(g_prefix):
                hyper.setdefault(fqn, {})[key[len(g_prefix):]] = v
    groups = []
    for g in optim.param_groups:
        fqns = [names[id(p)] for p in g["params"]]
        found = hyper.get(fqns[0], {}) if fqns else {}
        groups.append({**{k: v for k, v in g.items() if k != "params"}, **found,
                       "params": fqns})
    return {"state": state, "param_groups": groups}


def _load_one_optimizer(optim, osd, names, full):
    index, params = {}, {}
    for p in (p for g in optim.param_groups for p in g["params"]):
        if id(p) not in index:
            index[id(p)] = len(index)
            params[names[id(p)]] = p
    groups = []
    for g in optim.param_groups:
        fqns = {names[id(p)] for p in g["params"]}
        match = next((s for s in osd["param_groups"] if fqns & set(s["params"])), None)
        if match is None:
            raise RuntimeError(f"optimizer state dict has no parameter group for "
                               f"{sorted(fqns)}")
        packed = {k: v for k, v in match.items() if k != "params"}
        packed["params"] = [index[id(p)] for p in g["params"]]
        groups.append(packed)
    state = {}
    for fqn, s in osd["state"].items():
        p = params.get(fqn)
        if p is None:
            continue
        if full:
            s = {k: _distribute_like(v, p) for k, v in s.items()}
        state[index[id(p)]] = _as_local_state(s, p)
    optim.load_state_dict({"state": state, "param_groups": groups})


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None):
    """Load an FQN-keyed optimizer state dict (as ``get_optimizer_state_dict`` gives) into
    the optimizers."""
    options = _check_options(options, None)
    if options.broadcast_from_rank0:
        optim_state_dict = _from_rank0(optim_state_dict)
    names = _param_names(model)
    for optim in _optimizers(optimizers):
        osd = optim_state_dict
        if "state" not in osd or "param_groups" not in osd:
            osd = _unflatten_optim(osd, optim, names)
        _init_optim_state(optim)
        _load_one_optimizer(optim, osd, names, options.full_state_dict)


def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None):
    """Load both; returns the model's ``(missing_keys, unexpected_keys)``."""
    result = set_model_state_dict(model, model_state_dict, options=options)
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return result
