"""Helpers data-parallel wrappers share: packing kwargs into flat tuples, mapping a function
over the tensors of nested inputs, casting forward inputs, and broadcasting a module's state
from one rank."""

import traceback

__all__ = []


def _pack_kwargs(*args, **kwargs):
    """(args followed by the kwargs' values, the kwargs' keys)."""
    return tuple(args) + tuple(kwargs.values()), tuple(kwargs.keys())


def _unpack_kwargs(flat_args, kwarg_keys):
    """Undo :func:`_pack_kwargs`: (positional args, kwargs dict)."""
    _p_assert(len(kwarg_keys) <= len(flat_args),
              f"too many keys {len(kwarg_keys)} vs. {len(flat_args)}")
    if not kwarg_keys:
        return tuple(flat_args), {}
    cut = len(flat_args) - len(kwarg_keys)
    return tuple(flat_args[:cut]), dict(zip(kwarg_keys, flat_args[cut:]))


def _p_assert(cond, s, raise_assertion_error=True):
    """Print ``s`` and the stack when ``cond`` is false (messages from inside autograd's
    backward are otherwise lost), then raise AssertionError(s) unless told not to."""
    if not cond:
        print(s)
        traceback.print_stack()
        if raise_assertion_error:
            raise AssertionError(s)


def _apply_to_tensors(fn, container):
    """``container`` with ``fn`` applied to every tensor in it (dicts, lists, tuples,
    namedtuples and sets are rebuilt; anything else is kept)."""
    from .. import Tensor

    def walk(x):
        if isinstance(x, Tensor):
            return fn(x)
        if isinstance(x, dict):
            out = {k: walk(v) for k, v in x.items()}
            return out if type(x) is dict else type(x)(out)
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return type(x)(*(walk(v) for v in x))
        if isinstance(x, (list, tuple, set)):
            return type(x)(walk(v) for v in x)
        return x

    return walk(container)


def _cast_forward_inputs(dtype, *args, **kwargs):
    """(args, kwargs) with their floating-point tensors cast to ``dtype`` (None: unchanged)."""
    if dtype is None:
        return args, kwargs

    def cast(t):
        return t.to(dtype) if t.is_floating_point() and t.dtype != dtype else t

    return _apply_to_tensors(cast, args), _apply_to_tensors(cast, kwargs)


def _replace_by_prefix(state_dict, old_prefix, new_prefix):
    """Rename, in place, every key starting with ``old_prefix`` to start with ``new_prefix``."""
    if old_prefix == new_prefix:
        raise ValueError("old_prefix and new_prefix must be distinct")
    for key in [k for k in state_dict if k.startswith(old_prefix)]:
        state_dict[new_prefix + key[len(old_prefix):]] = state_dict.pop(key)


def _get_root_modules(modules):
    """The modules of ``modules`` that are not inside another one of them (order kept)."""
    chosen = set(modules)
    inner = set()
    for m in modules:
        for sub in m.modules():
            if sub is not m and sub in chosen:
                inner.add(sub)
    return [m for m in modules if m not in inner]


def _sync_params_and_buffers(process_group, module_states, broadcast_bucket_size, src):
    """Overwrite ``module_states`` on every rank with rank ``src``'s (global rank)."""
    from ._collectives import broadcast

    for t in module_states:
        broadcast(t.detach(), src=src, group=process_group)


def _sync_module_states(module, process_group, broadcast_bucket_size, src,
                        params_and_buffers_to_ignore, broadcast_buffers=True):
    """Broadcast ``module``'s parameters (and buffers) from ``src``, skipping ignored names."""
    states = [p for n, p in module.named_parameters() if n not in params_and_buffers_to_ignore]
    if broadcast_buffers:
        states += [b for n, b in module.named_buffers() if n not in params_and_buffers_to_ignore]
    if states:
        _sync_params_and_buffers(process_group, states, broadcast_bucket_size, src)


