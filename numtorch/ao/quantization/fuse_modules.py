"""``fuse_modules``: replace runs of modules (conv-bn-relu, linear-relu, ...) by their fused
module, the rest of each run by ``Identity``."""

import copy

from numtorch import nn
from numtorch.nn.utils.parametrize import type_before_parametrizations

from .fuser_method_mappings import fuse_conv_bn, fuse_conv_bn_relu, get_fuser_method  # noqa

__all__ = ["fuse_known_modules", "fuse_modules", "fuse_modules_qat"]


def _get_module(model, submodule_key):
    mod = model
    for s in submodule_key.split("."):
        mod = getattr(mod, s)
    return mod


def _set_module(model, submodule_key, module):
    tokens = submodule_key.split(".")
    mod = model
    for s in tokens[:-1]:
        mod = getattr(mod, s)
    setattr(mod, tokens[-1], module)


def fuse_known_modules(mod_list, is_qat, additional_fuser_method_mapping=None):
    """The fused replacement of ``mod_list``: the fused module first, Identities after. The
    first module's forward pre-hooks and the last one's forward hooks move to the fused
    module."""
    types = tuple(type_before_parametrizations(m) for m in mod_list)
    fuser = get_fuser_method(types, additional_fuser_method_mapping)
    fused = fuser(is_qat, *mod_list)
    for hook in mod_list[0]._forward_pre_hooks.values():
        fused.register_forward_pre_hook(hook)
    mod_list[0]._forward_pre_hooks.clear()
    for hook in mod_list[-1]._forward_hooks.values():
        fused.register_forward_hook(hook)
    mod_list[-1]._forward_hooks.clear()
    new = [fused]
    for _ in mod_list[1:]:
        identity = nn.Identity()
        identity.training = mod_list[0].training
        new.append(identity)
    return new


def _fuse_modules_helper(model, modules_to_fuse, is_qat, fuser_func=fuse_known_modules,
                         fuse_custom_config_dict=None):
    extra = (fuse_custom_config_dict or {}).get("additional_fuser_method_mapping", {})
    mod_list = [_get_module(model, item) for item in modules_to_fuse]
    for item, new in zip(modules_to_fuse, fuser_func(mod_list, is_qat, extra)):
        _set_module(model, item, new)


def _fuse_modules(model, modules_to_fuse, is_qat, inplace=False, fuser_func=fuse_known_modules,
                  fuse_custom_config_dict=None):
    if not inplace:
        model = copy.deepcopy(model)
    if all(isinstance(m, str) for m in modules_to_fuse):
        _fuse_modules_helper(model, modules_to_fuse, is_qat, fuser_func,
                             fuse_custom_config_dict)
    else:
        for module_list in modules_to_fuse:
            _fuse_modules_helper(model, module_list, is_qat, fuser_func,
                                 fuse_custom_config_dict)
    return model


def fuse_modules(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                 fuse_custom_config_dict=None):
    """Fuse runs of modules named in ``modules_to_fuse`` (a list of names, or a list of such
    lists) for post-training quantization: conv-bn, conv-bn-relu, conv-relu, linear-bn,
    linear-relu, bn-relu (batch norms are folded; modules must be in eval mode).

    Args:
        model: the model.
        modules_to_fuse: e.g. ``[["conv1", "bn1", "relu1"], ["fc", "relu2"]]``.
        inplace (bool): fuse in ``model`` itself instead of a deep copy.
        fuser_func: turns a list of modules into their replacements.
        fuse_custom_config_dict: ``{"additional_fuser_method_mapping": {types: fuser}}``.

    Returns:
        The fused model.
    """
    return _fuse_modules(model, modules_to_fuse, False, inplace, fuser_func,
                         fuse_custom_config_dict)


def fuse_modules_qat(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                     fuse_custom_config_dict=None):
    """:func:`fuse_modules` for quantization-aware training (batch norms kept, as
    ``ConvBn*`` modules; modules in train mode)."""
    return _fuse_modules(model, modules_to_fuse, True, inplace, fuser_func,
                         fuse_custom_config_dict)
