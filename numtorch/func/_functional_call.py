"""Calling a module with parameters and buffers given from outside: ``functional_call`` and
``stack_module_state`` (the pieces of ensembling and per-sample-gradient code)."""

import contextlib

from .._tensor import Tensor

__all__ = ["functional_call", "stack_module_state"]


def _merge(dicts):
    if isinstance(dicts, dict):
        return dict(dicts)
    merged, seen = {}, {}
    for d in dicts:
        for k, v in d.items():
            seen[k] = seen.get(k, 0) + 1
            merged[k] = v
    dup = sorted(k for k, n in seen.items() if n > 1)
    if dup:
        raise ValueError(f"{dup} appeared in multiple dictionaries; behavior of functional call "
                         f"is ambiguous")
    return merged


def _tied_groups(module):
    """Names of parameters and buffers (every path) grouped by the tensor object they name."""
    groups = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + list(
            module.named_buffers(remove_duplicate=False)):
        groups.setdefault(id(t), []).append(name)
    return groups


def _resolve(module, name):
    *path, attr = name.split(".")
    for p in path:
        module = getattr(module, p)
    return module, attr


@contextlib.contextmanager
def _swapped(module, values):
    undo = []
    try:
        for name, value in values.items():
            owner, attr = _resolve(module, name)
            if attr in owner._parameters:
                store = owner._parameters
            elif attr in owner._buffers:
                store = owner._buffers
            else:
                store = owner.__dict__
            had = attr in store
            undo.append((store, attr, had, store.get(attr)))
            store[attr] = value
        yield
    finally:
        for store, attr, had, old in reversed(undo):
            if had:
                store[attr] = old
            else:
                store.pop(attr, None)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Run ``module(*args, **kwargs)`` with some of its parameters and buffers replaced by the
    given tensors (the module itself is left as it was afterwards).

    Args:
        module (nn.Module): the module to call.
        parameter_and_buffer_dicts (dict or sequence of dicts): replacement tensors by
            ``named_parameters``/``named_buffers`` name.
        args (tuple or Tensor, optional): positional arguments (a single non-tuple value is
            one argument).
        kwargs (dict, optional): keyword arguments.
        tie_weights (bool): a value given for one of several names of the same tensor (tied
            weights) replaces it under all of them. Default: True.
        strict (bool): require exactly the module's parameter and buffer names. Default: False.

    Example:
        >>> m = torch.nn.Linear(2, 1)
        >>> params = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
        >>> torch.func.functional_call(m, params, (torch.tensor([1.0, 2.0]),))
        tensor([3.])
    """
    values = _merge(parameter_and_buffer_dicts)
    for k, v in values.items():
        if not isinstance(v, Tensor) and v is not None:
            raise TypeError(f"functional_call: expected a Tensor for '{k}', got {type(v)}")
    groups = _tied_groups(module)
    if tie_weights:
        for names in groups.values():
            given = [n for n in names if n in values]
            if len(given) > 1 and len({id(values[n]) for n in given}) > 1:
                raise ValueError(f"functional_call got multiple values for keys {given}, which "
                                 f"are tied. Consider using tie_weights=False")
            if given:
                for n in names:
                    values.setdefault(n, values[given[0]])
    if strict:
        known = set()
        for names in groups.values():
            known.update(names if not tie_weights else names)
        expected = {n for n, _ in module.named_parameters()} | {
            n for n, _ in module.named_buffers()}
        unexpected = [k for k in values if k not in known]
        missing = [k for k in sorted(expected, key=list(expected).index)
                   if k not in values]
        if unexpected or missing:
            msg = f"Error(s) in reparametrizing for {type(module).__name__}:"
            if unexpected:
                msg += "\n\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + "."
            if missing:
                msg += "\n\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + "."
            raise RuntimeError(msg)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, values):
        return module(*args, **(kwargs or {}))


def stack_module_state(models):
    """Stack the parameters and buffers of same-shaped models along a new leading dim (for
    ``vmap`` over an ensemble with :func:`functional_call`).

    Returns:
        tuple: ``(params, buffers)``, dicts by name; the stacked parameters are new leaves
        that require grad when the originals do.

    Example:
        >>> ms = [torch.nn.Linear(3, 2) for _ in range(4)]
        >>> params, buffers = torch.func.stack_module_state(ms)
        >>> params["weight"].shape
        torch.Size([4, 2, 3])
    """
    from ..ops import stack

    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    first = type(models[0])
    for m in models:
        if type(m) is not first:
            raise RuntimeError(f"stack_module_state: Expected all models to be of the same "
                               f"class, got {first} and {type(m)}")
    names = [n for n, _ in models[0].named_parameters()]
    params = {}
    for n in names:
        ts = [dict(m.named_parameters())[n] for m in models]
        s = stack([t.detach() for t in ts])
        params[n] = s.requires_grad_(any(t.requires_grad for t in ts))
    buffers = {n: stack([dict(m.named_buffers())[n] for m in models])
               for n, _ in models[0].named_buffers()}
    return params, buffers
