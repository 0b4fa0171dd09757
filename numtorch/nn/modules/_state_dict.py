"""The state-dict half of ``nn.Module``: ``state_dict``, ``load_state_dict`` and their hooks.

Kept apart from ``module.py`` only for size; ``Module`` inherits these methods. Keys, their
order, the ``_metadata`` versions and every error message follow torch, so state dicts move
between numtorch and torch (after converting the tensors).
"""

import warnings
from collections import OrderedDict, abc, namedtuple

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, is_lazy
from . import _hooks

__all__ = []

_EXTRA_STATE = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the missing and the unexpected keys."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
                f"unexpected_keys={self.unexpected_keys!r})")

    __str__ = __repr__


_UNREACHABLE = ("Reached a code path in Module.{}_extra_state() that should never be called. "
                "Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
                "template=bug-report.yml to report this bug.")


class _StateDictMixin:
    """``Module``'s state-dict methods (see :class:`numtorch.nn.Module`)."""

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if type(self).get_extra_state is not _StateDictMixin.get_extra_state:
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    def get_extra_state(self):
        """Return extra (picklable) state for ``state_dict``; override together with
        :meth:`set_extra_state`."""
        raise RuntimeError(_UNREACHABLE.format("get"))  # reached only when not overridden

    def set_extra_state(self, state):
        """Restore the state returned by :meth:`get_extra_state` (override it)."""
        raise RuntimeError(_UNREACHABLE.format("set"))  # reached only when not overridden

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Return an ordered dict of parameters and persistent buffers, keyed like torch.

        Args:
            destination (dict, optional): filled in place and returned.
            prefix (str): prepended to every key.
            keep_vars (bool): keep the Parameter objects instead of detached tensors.

        Example:
            >>> list(torch.nn.Linear(2, 3).state_dict())
            ['weight', 'bias']
        """
        if args:  # the 0.x positional form state_dict(destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        meta = getattr(destination, "_metadata", None)
        if meta is not None:
            meta[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local = {k: v for k, v in self._parameters.items() if v is not None}
        local.update((k, v) for k, v in self._buffers.items()
                     if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            _load_one(self, name, param, key, state_dict[key], assign, error_msgs)
        extra_key = prefix + _EXTRA_STATE
        if type(self).set_extra_state is not _StateDictMixin.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head, dot, _ = key[len(prefix):].partition(".")
                    if (dot and head not in self._modules) or (not dot and head not in local):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` (e.g. one saved by real torch).

        Args:
            state_dict (dict): keys as produced by :meth:`state_dict`.
            strict (bool): raise on missing or unexpected keys. Default: True.
            assign (bool): use the given tensors themselves instead of copying into the
                existing ones. Default: False.

        Returns:
            NamedTuple: ``missing_keys`` and ``unexpected_keys``.

        Raises:
            RuntimeError: on shape mismatches, and on missing/unexpected keys when strict.
        """
        if not isinstance(state_dict, abc.Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)

        def load(module, local_state, prefix=""):
            # torch hands out the checkpoint's own metadata dicts, so an ``assign=True`` load
            # marks them and later loads of the same state dict assign too
            local_meta = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_meta["assign_to_params_buffers"] = True
            module._load_from_state_dict(local_state, prefix, local_meta, True, missing,
                                         unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, keys) is not None:
                    raise AssertionError("Hooks registered with "
                                         "``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys "
                                         "need to be modified, it should be done inplace.")

        load(self, dict(state_dict))
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(
                    f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(
                    f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def register_state_dict_pre_hook(self, hook):
        """Run ``hook(module, prefix, keep_vars)`` before ``state_dict`` collects entries."""
        return _hooks.add_hook(self._state_dict_pre_hooks, hook, False)

    def _register_state_dict_hook(self, hook):
        return _hooks.add_hook(self._state_dict_hooks, hook, False)

    def register_state_dict_post_hook(self, hook):
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``; it
        must modify the dict in place and return None."""
        # its result must be None (checked in state_dict)
        return _hooks.add_hook(self._state_dict_hooks, _PublicHook(hook), False)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        if with_module:
            hook = _WithModule(hook, self)
        return _hooks.add_hook(self._load_state_dict_pre_hooks, hook, False)

    def register_load_state_dict_pre_hook(self, hook):
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """Run ``hook(module, incompatible_keys)`` after loading; it may edit the key lists
        in place (and must return None)."""
        return _hooks.add_hook(self._load_state_dict_post_hooks, hook, False)


class _PublicHook:
    """A state_dict post hook registered through the public method (its result is checked).
    A class, not a closure, so that a module holding it still pickles (``torch.save(model)``)."""

    _from_public_api = True

    def __init__(self, hook):
        self.hook = hook

    def __call__(self, *args):
        return self.hook(*args)


class _WithModule:
    """A hook called with its module first (``register_load_state_dict_pre_hook``); picklable
    for the same reason as :class:`_PublicHook`."""

    def __init__(self, hook, module):
        self.hook, self.module = hook, module

    def __call__(self, *args):
        return self.hook(self.module, *args)


def _load_one(module, name, param, key, value, assign, error_msgs):
    """Load ``value`` into ``param`` (torch's checks; problems go to ``error_msgs``)."""
    if not isinstance(value, Tensor):
        error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                          f"or Tensor-like object from checkpoint but received {type(value)}")
        return
    lazy = is_lazy(param)
    if not lazy and param.dim() == 0 and value.dim() == 1 and value.numel() == 1:
        value = value[0]  # checkpoints from 0.3 stored scalars as 1-element vectors
    if not lazy and not is_lazy(value) and tuple(value.shape) != tuple(param.shape):
        error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} "
                          f"from checkpoint, the shape in current model is {param.shape}.")
        return
    if lazy and is_lazy(value):
        return
    try:
        with no_grad():
            if assign:
                if isinstance(param, Parameter):
                    if isinstance(value, Parameter):
                        value.requires_grad_(param.requires_grad)
                    else:
                        value = Parameter(value, requires_grad=param.requires_grad)
                setattr(module, name, value)
            else:
                if param.is_meta and not value.is_meta:
                    warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint "
                                  "to a meta parameter in the current model, which is a no-op. "
                                  "(Did you mean to pass `assign=True` to assign items in the "
                                  "state dictionary to their corresponding key in the module "
                                  "instead of copying them in place?)", stacklevel=3)
                param.copy_(value)
    except Exception as e:  # noqa: BLE001 - reported with the key, like torch
        error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the '
                          f"model are {param.shape} and whose dimensions in the checkpoint are "
                          f"{value.shape}, an exception occurred : {e.args}.")
