"""``LazyModuleMixin``: modules whose parameter shapes are read from the first input."""

from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mix into a module whose parameters start as ``UninitializedParameter``.

    The subclass defines ``initialize_parameters(*inputs)``, which materialises the parameters
    from the first input, and may set ``cls_to_become`` (the class the module turns into once
    everything is materialised). Loading a state dict materialises the parameters with the
    checkpoint's shapes.
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # an uninitialised parameter has no values: store the placeholder itself, as torch does
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if (keep_vars or is_lazy(p)) else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if (keep_vars or is_lazy(b)) else b.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        for table in (self._parameters, self._buffers):
            for name, p in table.items():
                key = prefix + name
                if p is not None and key in state_dict and is_lazy(p):
                    value = state_dict[key]
                    if not is_lazy(value):
                        p.materialize(tuple(value.shape))

    def has_uninitialized_params(self):
        """True while some parameter or buffer is not materialised."""
        return any(is_lazy(t) for t in
                   list(self._parameters.values()) + list(self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")
