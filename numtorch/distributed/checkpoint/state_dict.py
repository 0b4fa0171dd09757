"""``torch.distributed.checkpoint.state_dict``: a model's state dict with its DTensors
gathered (``full_state_dict``) or as they are, and loading one back into DTensor
parameters."""

import dataclasses
from typing import NamedTuple

__all__ = ["StateDictOptions", "get_model_state_dict", "set_model_state_dict"]


@dataclasses.dataclass
class StateDictOptions:
    """How :func:`get_model_state_dict` / :func:`set_model_state_dict` treat DTensors."""

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


def get_model_state_dict(model, *, submodules=None, options=None):
    """``model.state_dict()``; with ``full_state_dict`` every DTensor is gathered to a plain
    tensor (with ``cpu_offload`` as well, only rank 0 keeps the entries, as in torch)."""
    options = options or StateDictOptions()
    sd = model.state_dict()
    if options.ignore_frozen_params:
        frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
        sd = {k: v for k, v in sd.items() if k not in frozen}
    if not options.full_state_dict:
        return sd
    out = {k: (v.full_tensor() if _is_dtensor(v) else v).detach() for k, v in sd.items()}
    if options.cpu_offload:
        from .. import get_rank, is_initialized

        if is_initialized() and get_rank() != 0:
            return {}
    return out


def set_model_state_dict(model, model_state_dict, *, options=None):
    """Load ``model_state_dict`` into ``model``: with ``full_state_dict``, whole tensors meant
    for DTensor parameters are split to each rank's piece; otherwise the entries must already
    be laid out as the parameters are (``model.load_state_dict``)."""
    from ... import no_grad
    from ..tensor import distribute_tensor

    options = options or StateDictOptions()
    if not options.full_state_dict:
        # pieces as they are (DTensors for DTensor parameters): the module's own loading
        return model.load_state_dict(model_state_dict, strict=options.strict)
    current = model.state_dict(keep_vars=True)
    missing = [k for k in current if k not in model_state_dict]
    unexpected = [k for k in model_state_dict if k not in current]
    if options.strict and (missing or unexpected):
        raise RuntimeError(f"Error(s) in loading state_dict: missing keys {missing}, "
                           f"unexpected keys {unexpected}")
    with no_grad():
        for key, value in model_state_dict.items():
            if key not in current:
                continue
            target = current[key]
            if _is_dtensor(target) and not _is_dtensor(value):
                value = distribute_tensor(value, target.device_mesh, target.placements,
                                          src_data_rank=None)
            if _is_dtensor(target):
                target.to_local().copy_(value.to_local())
            else:
                target.copy_(value)
    return _IncompatibleKeys(missing, unexpected)
