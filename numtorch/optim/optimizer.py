"""``optim.Optimizer``: parameter groups, per-parameter state, the step loop, state dicts.

Subclasses write ``_init_state(state, param, group)`` and ``_update(param, grad, state,
group)`` on raw arrays (``param._array`` is updated in place, under no_grad); the base class
owns the loop, ``zero_grad``, hooks and torch's state-dict layout, so a torch optimizer's
state dict loads here and continues identically, and vice versa.
"""

import copy
import itertools
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.grad_mode import no_grad

__all__ = ["Optimizer", "required"]


class _Required:
    """Marks a hyperparameter that must be given (0.x ``required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _Required()

_hook_ids = itertools.count()


class _Handle:
    def __init__(self, table, key):
        self.table, self.key = table, key

    def remove(self):
        self.table.pop(self.key, None)


class Optimizer:
    """Base class of all optimizers.

    Args:
        params (iterable): tensors, or dicts with a ``'params'`` entry and per-group options.
        defaults (dict): the default value of every option.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {params.type()}")
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        """Add a group of parameters with its own options (missing ones take the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__name__}")
            # a non-leaf is fine when it keeps its .grad, or for differentiable optimizers
            if not (self.defaults.get("differentiable") or p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          UserWarning, stacklevel=3)
        group = dict(param_group)
        group["params"] = params
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            group.setdefault(name, default)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if existing & {id(p) for p in params}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's gradient (to None by default)."""
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad._array[...] = 0

    # -- stepping ----------------------------------------------------------------------------
    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = None
        if closure is not None:
            from ..autograd.grad_mode import enable_grad

            with enable_grad():
                loss = closure()
        for hook in list(self._optimizer_step_pre_hooks.values()):
            r = hook(self, (), {})
            if r is not None:
                raise RuntimeError("optimizer step pre-hooks may not change the arguments")
        with no_grad():
            for group in self.param_groups:
                self._step_group(group)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, (), {})
        return loss

    def _step_group(self, group):
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            state = self.state[p]
            if not state:
                self._init_state(state, p, group)
            self._update(p, g._array, state, group)
            p._vc[0] += 1  # the parameter changed in place

    def _init_state(self, state, param, group):
        """Create the per-parameter state on first use (subclasses override)."""

    def _update(self, param, grad, state, group):
        raise RuntimeError(f"{type(self).__name__} must define _update")

    @staticmethod
    def _step_tensor(state):
        """Advance and return torch's float32 ``step`` counter (a 0-d tensor in the state)."""
        step = state["step"]
        step._array += 1
        return float(step._array)

    # -- hooks ---------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` before each step."""
        key = next(_hook_ids)
        self._optimizer_step_pre_hooks[key] = hook
        return _Handle(self._optimizer_step_pre_hooks, key)

    def register_step_post_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` after each step."""
        key = next(_hook_ids)
        self._optimizer_step_post_hooks[key] = hook
        return _Handle(self._optimizer_step_post_hooks, key)

    # -- state dicts -------------------------------------------------------------------------
    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}``,
        parameters numbered in group order, exactly as torch does."""
        index = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                if id(p) not in index:
                    index[id(p)] = len(index)
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {}
        for g in self.param_groups:
            for p in g["params"]:
                if p in self.state and self.state[p]:
                    state[index[id(p)]] = self.state[p]
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Load a state dict made by ``state_dict()`` here or by real torch."""
        state_dict = copy.deepcopy(_to_numtorch(state_dict))
        groups = self.param_groups
        saved = state_dict["param_groups"]
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, s in zip(groups, saved):
            if len(g["params"]) != len(s["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
        id_map = {}
        for g, s in zip(groups, saved):
            for p, i in zip(g["params"], s["params"]):
                id_map[i] = p
        self.state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            k = int(k) if not isinstance(k, int) else k
            if k in id_map:
                p = id_map[k]
                self.state[p] = {name: _cast_state(name, val, p) for name, val in v.items()}
        new_groups = []
        for g, s in zip(groups, saved):
            ng = dict(s)
            ng["params"] = g["params"]
            for name, default in self.defaults.items():
                ng.setdefault(name, default)
            new_groups.append(ng)
        self.param_groups = new_groups

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in g if k != "params"):
                lines.append(f"    {key}: {g[key]}")
        lines.append(")")
        return "\n".join(lines)


def _to_numtorch(obj):
    """Turn real torch tensors inside a loaded state dict into numtorch tensors."""
    if type(obj).__module__.startswith("torch") and hasattr(obj, "numpy") and \
            not isinstance(obj, Tensor):
        return _make(np.array(obj.detach().cpu().numpy()))
    if isinstance(obj, dict):
        return type(obj)((k, _to_numtorch(v)) for k, v in obj.items()) \
            if not isinstance(obj, defaultdict) else {k: _to_numtorch(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_numtorch(v) for v in obj)
    return obj


def _cast_state(name, value, param):
    """State tensors follow the parameter's dtype and device, except the ``step`` counter."""
    if not isinstance(value, Tensor):
        return value
    if name == "step":
        return value
    if value.is_floating_point():
        return value.to(dtype=param.dtype, device=param.device)
    return value.to(device=param.device)
