"""Optimizer state across FSDP shards: whole per-parameter state, and back to this rank's.

``optim_state_dict`` turns the optimizer's state (per flat shard, or per original
parameter's piece with ``use_orig_params``) into the state the unwrapped model's optimizer
would have: keyed by parameter name, every tensor whole. ``optim_state_dict_to_load`` does
the reverse for this rank. State tensors shaped like the parameter (Adam's moments, SGD's
momentum) are gathered or cut; scalars (``step``) are the same on every rank and copied.
"""

import numpy as np

from ..._tensor import Tensor, _make
from ._shard import ShardedTensor, gather_chunks, make_sharded
from .api import StateDictType

__all__ = ["full_optim_state_dict", "shard_optim_state_dict"]


def _dist():
    from ... import distributed

    return distributed


def _units_with_prefix(model):
    from .fully_sharded_data_parallel import FSDP_PREFIX, FullyShardedDataParallel

    for name, m in model.named_modules():
        if isinstance(m, FullyShardedDataParallel) and m._handle is not None:
            prefix = name.replace(FSDP_PREFIX, "")
            yield (prefix + "." if prefix else ""), m._handle


def _layout(model, optim):
    """Per optimizer parameter (in the optimizer's numbering): (kind, handle, names)."""
    from .fully_sharded_data_parallel import FSDP_PREFIX

    by_id = {}
    for prefix, h in _units_with_prefix(model):
        if h.use_orig_params:
            for s in h.slots:
                by_id[id(s.param)] = ("piece", h, [prefix + s.fqn], s)
        else:
            by_id[id(h.flat)] = ("flat", h, [prefix + s.fqn for s in h.slots], None)
    for name, p in model.named_parameters():
        if id(p) not in by_id:
            by_id[id(p)] = ("plain", None, [name.replace(FSDP_PREFIX, "")], None)
    out = []
    for group in optim.param_groups:
        for p in group["params"]:
            out.append(by_id[id(p)])
    return out


def _is_param_shaped(v):
    return isinstance(v, Tensor) and v.dim() > 0


def _own(v):
    """A copy for one parameter's entry: optimizers update ``step`` in place, so entries
    must not share it."""
    return v.clone() if isinstance(v, Tensor) else v


def _gather_flat(h, local):
    """The full padded flat array from every rank's shard-shaped ``local``."""
    if h.world == 1:
        return np.asarray(local)
    full = np.empty(h.shard_numel * h.world, local.dtype)
    _dist().all_gather_single(_make(full), _make(np.ascontiguousarray(local)),
                                   group=h.group)
    return full


def full_optim_state_dict(model, optim, osd):
    """The FULL (or SHARDED) optimizer state dict of ``model`` (see the module docstring)."""
    from .fully_sharded_data_parallel import FullyShardedDataParallel

    units = [m for m in model.modules() if isinstance(m, FullyShardedDataParallel)]
    root = units[0]
    kind = root._state_dict_type
    layout = _layout(model, optim)
    state = osd["state"]
    # every rank must join the same gathers: agree on the state keys of every handle
    keys = {}
    for i, (k, h, _, _) in enumerate(layout):
        if k != "plain":
            st = state.get(i, {})
            keys.setdefault(id(h), set()).update(
                key for key, v in st.items() if _is_param_shaped(v))
    every = [None] * root.world_size
    _dist().all_gather_object(every, {hid: sorted(v) for hid, v in keys.items()},
                              group=root.process_group) if root.world_size > 1 else None
    if root.world_size > 1:
        merged = {}
        for d in every:
            for hid, ks in d.items():
                merged.setdefault(hid, set()).update(ks)
        keys = merged
    out_state, names_of = {}, []
    done_handles = set()
    for i, (k, h, names, slot) in enumerate(layout):
        names_of.append(names)
        st = state.get(i, {})
        if k == "plain":
            if st:
                out_state[names[0]] = {k: _own(v) for k, v in st.items()}
            continue
        if k == "flat":
            full = {key: _gather_flat(h, st[key]._array) if key in st else None
                    for key in sorted(keys.get(id(h), ()))}
            for s, name in zip(h.slots, names):
                entry = {}
                for key, v in st.items():
                    if key in full and full[key] is not None:
                        entry[key] = _make(np.array(
                            full[key][s.offset:s.offset + s.numel]).reshape(s.shape))
                    else:
                        entry[key] = _own(v)
                out_state[name] = entry
            continue
        # use_orig_params: pieces of one handle are gathered together, once
        if id(h) in done_handles:
            continue
        done_handles.add(id(h))
        idx = {id(s.param): j for j, (kk, hh, _, s2) in enumerate(layout)
               if hh is h for s in [s2]}
        fulls = {}
        for key in sorted(keys.get(id(h), ())):
            local = np.zeros(h.shard_numel, h.np_dtype)
            for s in h.slots:
                a, b = h._piece(s)
                v = state.get(idx.get(id(s.param)), {}).get(key)
                if v is not None and b > a:
                    local[a:b] = np.asarray(v._array).reshape(-1)
            fulls[key] = _gather_flat(h, local)
        scalars = {}
        for s in h.slots:
            for key, v in state.get(idx.get(id(s.param)), {}).items():
                if not _is_param_shaped(v):
                    scalars.setdefault(key, v)
        for s in h.slots:
            if idx.get(id(s.param)) is None:
                continue
            entry = {k: _own(v) for k, v in scalars.items()}
            for key, f in fulls.items():
                entry[key] = _make(np.array(f[s.offset:s.offset + s.numel]).reshape(s.shape))
            name = layout[idx[id(s.param)]][2][0]
            if entry:
                out_state[name] = entry
    if kind == StateDictType.SHARDED_STATE_DICT:
        for entry in out_state.values():
            for key, v in list(entry.items()):
                if _is_param_shaped(v):
                    entry[key] = make_sharded(v, root.process_group)
    groups = []
    at = 0
    for g in osd["param_groups"]:
        n = len(g["params"])
        g2 = {k: v for k, v in g.items() if k != "params"}
        g2["params"] = [name for names in names_of[at:at + n] for name in names]
        at += n
        groups.append(g2)
    cfg = root._optim_state_dict_config
    if getattr(cfg, "rank0_only", False) and root.rank != 0:
        return {}
    return {"state": out_state, "param_groups": groups}


def shard_optim_state_dict(model, optim, full):
    """This rank's optimizer state dict from :func:`full_optim_state_dict`'s result."""
    from .fully_sharded_data_parallel import FullyShardedDataParallel

    root = next(m for m in model.modules() if isinstance(m, FullyShardedDataParallel))
    layout = _layout(model, optim)
    fstate = {name: {k: gather_chunks(v, root.process_group) if isinstance(v, ShardedTensor)
                     else v for k, v in entry.items()}
              for name, entry in full["state"].items()}
    state = {}
    for i, (kind, h, names, slot) in enumerate(layout):
        entries = [fstate.get(n) for n in names]
        if all(e is None for e in entries):
            continue
        if kind == "plain":
            state[i] = {k: _own(v) for k, v in entries[0].items()}
            continue
        if kind == "flat":
            flat_keys = {}
            for s, e in zip(h.slots, entries):
                for key, v in (e or {}).items():
                    if _is_param_shaped(v):
                        flat_keys.setdefault(key, np.zeros(h.shard_numel * h.world,
                                                           v._array.dtype))
                        flat_keys[key][s.offset:s.offset + s.numel] = \
                            np.asarray(v._array).reshape(-1)
            lo = h.rank * h.shard_numel
            st = {}
            for e in entries:
                for key, v in (e or {}).items():
                    if not _is_param_shaped(v):
                        st.setdefault(key, _own(v))
            for key, arr in flat_keys.items():
                st[key] = _make(np.array(arr[lo:lo + h.shard_numel]))
            state[i] = st
            continue
        a, b = h._piece(slot)
        if b <= a:
            continue
        lo = h.rank * h.shard_numel
        st = {}
        for key, v in entries[0].items():
            if _is_param_shaped(v):
                flat = np.asarray(v._array).reshape(-1)
                st[key] = _make(np.array(flat[lo + a - slot.offset:lo + b - slot.offset]))
            else:
                st[key] = _own(v)
        state[i] = st
    groups = []
    at = 0
    for g_opt, g_full in zip(optim.param_groups, full["param_groups"]):
        n = len(g_opt["params"])
        g2 = {k: v for k, v in g_full.items() if k != "params"}
        g2["params"] = list(range(at, at + n))
        at += n
        groups.append(g2)
    return {"state": state, "param_groups": groups}
