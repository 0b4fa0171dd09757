"""Calling a module with parameters and buffers given from outside: ``functional_call`` and
``stack_module_state`` (the pieces of ensembling and per-sample-gradient code)."""

__all__ = ["functional_call", "stack_module_state"]


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
    from ..nn.utils import stateless  # the same swap as nn.utils.stateless.functional_call

    return stateless._functional_call(module, parameter_and_buffer_dicts, args, kwargs,
                                      tie_weights=tie_weights, strict=strict)


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
    if len({bool(m.training) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    first = type(models[0])
    for m in models:
        if type(m) is not first:
            raise RuntimeError("stack_module_state: Expected all models to be of the same "
                               "class.")
    names = [n for n, _ in models[0].named_parameters()]
    params = {}
    for n in names:
        ts = [dict(m.named_parameters())[n] for m in models]
        s = stack([t.detach() for t in ts])
        params[n] = s._set_requires_grad(any(t.requires_grad for t in ts))
    buffers = {n: stack([dict(m.named_buffers())[n] for m in models])
               for n, _ in models[0].named_buffers()}
    return params, buffers
