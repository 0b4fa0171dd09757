"""Auto-wrap policies: which submodules become FSDP units of their own.

A policy is called as ``policy(module, recurse, nonwrapped_numel)``. With ``recurse=True``
it answers whether to look inside ``module`` for units; with ``recurse=False`` whether
``module`` itself becomes a unit, given the number of its parameters not already in a
nested unit. The wrapping runs bottom-up, so inner units form first.
"""

import contextlib

__all__ = [
    "CustomPolicy",
    "ModuleWrapPolicy",
    "always_wrap_policy",
    "enable_wrap",
    "lambda_auto_wrap_policy",
    "size_based_auto_wrap_policy",
    "transformer_auto_wrap_policy",
    "wrap",
]


def always_wrap_policy(*args, **kwargs):
    """Every submodule becomes a unit."""
    return True


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn):
    """A unit wherever ``lambda_fn(module)`` is true."""
    return True if recurse else bool(lambda_fn(module))


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls):
    """A unit for every instance of the classes in ``transformer_layer_cls`` (the blocks)."""
    return True if recurse else isinstance(module, tuple(transformer_layer_cls))


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8),
                                force_leaf_modules=None, exclude_wrap_modules=None):
    """A unit for every module holding at least ``min_num_params`` parameters that no inner
    unit took; ``force_leaf_modules`` are never looked into, ``exclude_wrap_modules``
    never become units."""
    force = (size_based_auto_wrap_policy.FORCE_LEAF_MODULES if force_leaf_modules is None
             else force_leaf_modules)
    exclude = (size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES if exclude_wrap_modules is None
               else exclude_wrap_modules)
    big = nonwrapped_numel >= min_num_params
    if recurse:
        return big and not isinstance(module, tuple(force))
    return big and not isinstance(module, tuple(exclude))


def _default_sets():
    from ...nn.modules.activation import MultiheadAttention
    from ...nn.modules.container import ModuleDict, ModuleList

    size_based_auto_wrap_policy.FORCE_LEAF_MODULES = {MultiheadAttention}
    size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = {ModuleList, ModuleDict}


_default_sets()


class _Policy:
    """Base of the object policies; ``_as_callable`` turns one into the function form."""

    def _as_callable(self):
        raise NotImplementedError


class ModuleWrapPolicy(_Policy):
    """A unit for every instance of the given module classes."""

    def __init__(self, module_classes):
        self._module_classes = set(module_classes)
        self._module_classes_str = str(self._module_classes)

    def _as_callable(self):
        classes = tuple(self._module_classes)
        return lambda module, recurse, nonwrapped_numel: (
            True if recurse else isinstance(module, classes))

    def __call__(self, module, recurse, *args, **kwargs):
        return True if recurse else isinstance(module, tuple(self._module_classes))

    def __repr__(self):
        return super().__repr__() + f"({self._module_classes_str})"


class CustomPolicy(_Policy):
    """``lambda_fn(module)`` returns False (not a unit), True, or a dict of FSDP keyword
    arguments that override the root's for that unit."""

    def __init__(self, lambda_fn):
        self._lambda_fn = lambda_fn

    def _as_callable(self):
        return None  # handled by the wrapper itself: it may return per-unit kwargs


def _policy_decision(policy, module, recurse, numel):
    """(wrap?, extra kwargs) for the function, partial or object policy ``policy``."""
    if isinstance(policy, CustomPolicy):
        if recurse:
            return True, {}
        got = policy._lambda_fn(module)
        if isinstance(got, dict):
            return True, got
        return bool(got), {}
    if isinstance(policy, _Policy):
        policy = policy._as_callable()
    return bool(policy(module=module, recurse=recurse, nonwrapped_numel=numel)), {}


def _own_numel(module, is_unit):
    """Parameters under ``module`` that no unit inside it holds yet."""
    seen, n = set(), 0

    def walk(m):
        nonlocal n
        for p in m._parameters.values():
            if p is not None and id(p) not in seen:
                seen.add(id(p))
                n += p.numel()
        for c in m._modules.values():
            if c is not None and not is_unit(c):
                walk(c)

    walk(module)
    return n


def recursive_wrap(module, policy, make_unit, is_unit, ignored):
    """Wrap ``module``'s children bottom-up where ``policy`` says so (not ``module``)."""
    for name, child in list(module._modules.items()):
        if child is None or is_unit(child) or child in ignored:
            continue
        numel = _own_numel(child, is_unit)
        go_in, _ = _policy_decision(policy, child, True, numel)
        if go_in:
            recursive_wrap(child, policy, make_unit, is_unit, ignored)
        numel = _own_numel(child, is_unit)
        wrap_it, extra = _policy_decision(policy, child, False, numel)
        if wrap_it:
            module._modules[name] = make_unit(child, extra)


# -- the explicit form: with enable_wrap(wrapper_cls=FSDP, ...): wrap(module) --------------

class _WrapConfig:
    active = False
    wrapper_cls = None
    kwargs = {}


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    """Inside, :func:`wrap` turns modules into ``wrapper_cls`` units with these kwargs."""
    if _WrapConfig.active:
        raise NotImplementedError("You are already within an autowrap context and we "
                                  "currently do not supported nested autowrap.")
    _WrapConfig.active, _WrapConfig.wrapper_cls = True, wrapper_cls
    _WrapConfig.kwargs = dict(wrapper_kwargs)
    try:
        yield
    finally:
        _WrapConfig.active, _WrapConfig.wrapper_cls, _WrapConfig.kwargs = False, None, {}


def wrap(module, **wrap_overrides):
    """Wrap ``module`` inside :func:`enable_wrap`; outside it, return it unchanged."""
    if not _WrapConfig.active:
        return module
    kwargs = {**_WrapConfig.kwargs, **wrap_overrides}
    return _WrapConfig.wrapper_cls(module, **kwargs)

