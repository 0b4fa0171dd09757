"""Calling a module with other tensors in place of its parameters and buffers.

``_functional_call`` is the one implementation; ``torch.nn.utils.stateless.functional_call``
(deprecated in torch) and ``torch.func.functional_call`` are thin wrappers around it. The
module's own tensors are put back afterwards, even when the call raises.
"""

import contextlib
import warnings

__all__ = ["functional_call"]


def _untie_named_tensors_map(module, parameters_and_buffers):
    """Extend the mapping to every name of a tensor the module shares under several names
    (tied weights), so replacing one name replaces them all."""
    groups = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        groups.setdefault(id(t), []).append(name)
    tied = {name: names for names in groups.values() if len(names) > 1 for name in names}
    out = dict(parameters_and_buffers)
    for name, value in parameters_and_buffers.items():
        names = tied.get(name)
        if names is None:
            continue
        given = [n for n in names if n in parameters_and_buffers]
        if any(parameters_and_buffers[n] is not value for n in given):
            raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, "
                             f"which are tied. Consider using tie_weights=False")
        for n in names:
            out[n] = value
    return out


def _check_strict(module, names):
    expected = [n for n, _ in module.named_parameters(remove_duplicate=False)] + \
        [n for n, _ in module.named_buffers(remove_duplicate=False)]
    unexpected = sorted(n for n in names if n not in expected)  # torch lists both sorted
    missing = sorted(n for n in expected if n not in names)
    if unexpected or missing:
        lines = []
        if unexpected:
            lines.append("\tUnexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
        if missing:
            lines.append("\tMissing key(s): " + ", ".join(repr(k) for k in missing) + ".")
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n"
                           + "\n".join(lines))


_MISSING = object()


def _swap(module, name, value):
    """Put ``value`` at dotted ``name``; returns how to undo it."""
    prefix, _, attr = name.rpartition(".")
    owner = module.get_submodule(prefix) if prefix else module
    for table in (owner._parameters, owner._buffers):
        if attr in table:
            old = table[attr]
            table[attr] = value
            return owner, table, attr, old
    old = owner.__dict__.get(attr, _MISSING)
    object.__setattr__(owner, attr, value)
    return owner, None, attr, old


def _restore(owner, table, attr, old):
    if table is not None:
        table[attr] = old
    elif old is _MISSING:
        object.__delattr__(owner, attr)
    else:
        object.__setattr__(owner, attr, old)


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False,
                          stack_weights=False):
    """Within the block, ``module`` reads the given tensors (by dotted name) in place of its
    own parameters and buffers."""
    if tie_weights:
        parameters_and_buffers = _untie_named_tensors_map(module, parameters_and_buffers)
    if strict:
        _check_strict(module, list(parameters_and_buffers))
    undo = []
    try:
        for name, value in parameters_and_buffers.items():
            undo.append(_swap(module, name, value))
        yield
    finally:
        for entry in reversed(undo):
            _restore(*entry)


def _merge_dicts(parameter_and_buffer_dicts):
    if isinstance(parameter_and_buffer_dicts, dict):
        return parameter_and_buffer_dicts
    if not isinstance(parameter_and_buffer_dicts, (tuple, list)):
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                         f"of dicts, but got {type(parameter_and_buffer_dicts)}")
    merged = {}
    seen = set()
    for d in parameter_and_buffer_dicts:
        dup = [k for k in d if k in seen]
        if dup:
            raise ValueError(f"{dup} appeared in multiple dictionaries; behavior of functional "
                             f"call is ambiguous")
        seen.update(d)
        merged.update(d)
    return merged


def _functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                     tie_weights=True, strict=False):
    """Run ``module(*args, **kwargs)`` with the given tensors (one dict, or a tuple of dicts
    with distinct keys) in place of its parameters and buffers; see
    :func:`torch.func.functional_call`."""
    tensors = _merge_dicts(parameter_and_buffer_dicts)
    from ..._tensor import Tensor

    for v in tensors.values():
        if v is not None and not isinstance(v, Tensor):  # (None passes, as in torch)
            raise TypeError(f"{v} is not an instance of torch.Tensor")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, tensors, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Run ``module`` with the tensors of ``parameters_and_buffers`` (dotted names) in place of
    its own parameters and buffers, which are restored afterwards.

    Deprecated in torch 2.0 in favour of ``torch.func.functional_call`` (a drop-in
    replacement); it warns as torch does.

    Args:
        module (Module): the module to call.
        parameters_and_buffers (dict): name -> tensor.
        args (tuple or Tensor, optional): positional arguments of the call.
        kwargs (dict, optional): keyword arguments of the call.
        tie_weights (bool): a tensor the module shares under several names is replaced under
            all of them. Default: True.
        strict (bool): the dict must name exactly the module's parameters and buffers.

    Returns:
        What ``module`` returns.
    """
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)

