"""``optim.Optimizer``: parameter groups, per-parameter state, the step loop, state dicts.

Subclasses write ``_init_state(state, param, group)`` and ``_update(param, grad, state,
group)`` on raw arrays (``param._array`` is updated in place, under no_grad); the base class
owns the loop, ``zero_grad``, hooks and torch's state-dict layout, so a torch optimizer's
state dict loads here and continues identically, and vice versa. With ``differentiable=True``
the step runs with grad mode on, as torch's does, and where the update must enter the autograd
graph (a parameter or gradient with history: meta-learning, hypergradients) a subclass's
``_update_graph(param, grad, state, group)`` makes it with tensor ops.

As in torch, the ``step`` of every optimizer class (a user's subclass that overrides ``step``
included) is wrapped when its first instance is made, so the step hooks (per optimizer and
global) run around any ``step``. Hyperparameters may be 1-element tensors (``lr``, ``betas``,
``weight_decay``, ...): they are read as Python numbers at each step, so a scheduler that
updates a tensor ``lr`` in place is followed.
"""

import functools
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from .. import backend
from .._tensor import Tensor, _make
from .._threads import fit_blas_threads
from ..autograd.grad_mode import no_grad
from ..ops import _intraop
from ..nn.modules._hooks import add_hook
from . import _sparse_grads

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]


class _Required:
    """Marks a hyperparameter that must be given (0.x ``required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _Required()

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()

# torch's capturable kernels run on accelerators only
_CAPTURABLE_DEVICES = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"


def register_optimizer_step_pre_hook(hook):
    """Call ``hook(optimizer, args, kwargs)`` before the step of every optimizer; it may return
    ``(new_args, new_kwargs)``. Returns a handle whose ``remove()`` unregisters it."""
    return add_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Call ``hook(optimizer, args, kwargs)`` after the step of every optimizer."""
    return add_hook(_global_optimizer_post_hooks, hook)


def _with_step_hooks(func):
    """Wrap an optimizer class's ``step``: global then per-optimizer pre-hooks, the step, then
    per-optimizer then global post-hooks. ``args`` includes the optimizer, as in torch."""

    @functools.wraps(func)
    def step(*args, **kwargs):
        self = args[0]
        for hook in [*_global_optimizer_pre_hooks.values(),
                     *self._optimizer_step_pre_hooks.values()]:
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{func} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        out = func(*args, **kwargs)
        self._optimizer_step_code()
        for hook in [*self._optimizer_step_post_hooks.values(),
                     *_global_optimizer_post_hooks.values()]:
            hook(self, args, kwargs)
        return out

    step.hooked = True
    return step


def _patch_step(cls):
    """Give ``cls`` (an optimizer's class) a hooked ``step``, once."""
    if not getattr(cls.step, "hooked", False):
        cls.step = _with_step_hooks(cls.step)


def hyperparameters(group):
    """``group`` with its 1-element tensor values (and tuples of them) read as Python numbers;
    the group itself when it holds none."""
    out = None
    for k, v in group.items():
        if k == "params":
            continue
        lr_dtype = None
        if isinstance(v, Tensor):
            if k == "lr":
                lr_dtype = v._array.dtype if v.is_floating_point() else np.dtype(np.float32)
            v = v.item()
        elif isinstance(v, tuple) and any(isinstance(x, Tensor) for x in v):
            v = tuple(x.item() if isinstance(x, Tensor) else x for x in v)
        else:
            continue
        if out is None:
            out = dict(group)
        out[k] = v
        if lr_dtype is not None:
            out["_tensor_lr"] = lr_dtype  # torch's arithmetic on it stays in its dtype
    return group if out is None else out


def _enable_grad():
    from ..autograd.grad_mode import enable_grad

    return enable_grad()


def _needs_graph(param, grad, state, group):
    """Whether a differentiable step must record its update: something it reads has (or
    wants) autograd history."""
    if param.requires_grad or grad.requires_grad:
        return True
    if any(isinstance(v, Tensor) and v.requires_grad for v in state.values()):
        return True
    return any(isinstance(v, Tensor) and v.requires_grad for v in group.values())


# Parameters smaller than this update on the calling thread: an update is a few cheap passes,
# and on a busy machine waking a second thread costs more than it saves (measured: SGD with
# momentum on the MLP's 400k-value weight 0.35 -> 1.6 ms when split at load 12 on 2 cores).
_SPLIT_MIN = 1 << 20


def split_update(kernel, arrays, consts):
    """Run ``kernel(xp, *arrays, *consts)``, an elementwise in-place update of equally shaped
    arrays (None entries allowed), over contiguous parts on the intra-op threads when the
    arrays are large (``_SPLIT_MIN``) contiguous CPU arrays (``numtorch.ops._intraop``), else
    in one call. Elementwise, so the result is the same however it is split."""
    first = arrays[0]
    xp = backend.xp_of(first)
    if first.size < _SPLIT_MIN:  # the common case, first: no more checks per parameter
        kernel(xp, *arrays, *consts)
        return
    live = [a for a in arrays if a is not None]
    if backend.is_device_array(first) or _intraop.parts(first.size) == 1 or not all(
            a.flags.c_contiguous for a in live):
        kernel(xp, *arrays, *consts)
        return
    flat = [None if a is None else a.reshape(-1) for a in arrays]
    _intraop.run_split(lambda lo, hi: kernel(
        xp, *[None if a is None else a[lo:hi] for a in flat], *consts), first.size)


def host_arrays(p, g):
    """``(p's array, g's array)`` when both are host arrays of one shape and real dtype, the
    form the grouped updates (``run_jobs``) take; None otherwise (a complex parameter is
    stepped on its real view, ``Optimizer._update_as_real``)."""
    a = p._array
    if type(g) is Tensor and type(a) is np.ndarray and a.dtype.kind != "c":
        ga = g._array
        if type(ga) is np.ndarray and ga.shape == a.shape and ga.dtype is a.dtype:
            return a, ga
    return None


def run_jobs(kernel, jobs, sizes):
    """Call ``kernel(job, part)`` for every job (the parameters of a group): in order on this
    thread, or -- when the jobs hold enough values for the intra-op threads
    (``numtorch.ops._intraop.parts``) and other processes leave the cores free -- as
    contiguous runs of about equal size, one per thread, ``part`` numbering the run (each run
    needs its own work buffers). Updates of distinct parameters are independent, so the result
    is the same either way; a parameter listed twice keeps the single-thread order.

    Why per group rather than per parameter (``split_update``): a model's parameters are
    mostly below the size where splitting one pays (nanoGPT's largest holds 65k values), but
    a group of them holds 800k, and Adam's ~14 passes over it were a single-core 1.8 ms of
    every nanoGPT iteration."""
    total = sum(sizes)
    k = min(_intraop.parts(total), len(jobs)) if len(jobs) > 1 else 1
    if k > 1:
        # the load check GEMMs make (a clock test, /proc at most every 0.1 s): a step with
        # no GEMM since the machine got busy must not hand half its work to a waiting thread
        fit_blas_threads()
        if _intraop._cores_taken() or len({id(j[0]) for j in jobs}) < len(jobs):
            k = 1
    if k == 1:
        for job in jobs:
            kernel(job, 0)
        return
    # cut j goes after the job whose running total is nearest j/k of the whole
    prefix, acc = [], 0
    for size in sizes[:-1]:
        acc += size
        prefix.append(acc)
    cuts = [0]
    for j in range(1, k):
        target = total * j / k
        best = min(range(cuts[-1], len(prefix)), key=lambda i: abs(prefix[i] - target),
                   default=None)
        if best is None:
            break
        cuts.append(best + 1)
    cuts.append(len(jobs))
    bounds = [(lo, hi) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]
    if len(bounds) < 2:
        for job in jobs:
            kernel(job, 0)
        return
    part_of = {b[0]: n for n, b in enumerate(bounds)}

    def run(lo, hi):
        part = part_of[lo]
        for i in range(lo, hi):
            kernel(jobs[i], part)

    _intraop.run_ranges(run, bounds)


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
        self._init_hook_tables()
        _patch_step(type(self))
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

    def _init_hook_tables(self):
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()

    def add_param_group(self, param_group):
        """Add a group of parameters with its own options (missing ones take the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        # (name, tensor) pairs, as named_parameters() yields: the names go to 'param_names'
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        if names and len(names) != len(params):
            raise ValueError("all optimizer params should be with/without names. Some param "
                             "names are missing")
        if self.param_groups and \
                ("param_names" in self.param_groups[0]) != bool(names or "param_names" in
                                                                param_group):
            which = "with" if names or "param_names" in param_group else "without"
            raise ValueError(f"all optimizer param groups should be with/without names. "
                             f"cannot add param group {which} names to the optimizer")
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
        if names:
            group["param_names"] = names
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
                elif _sparse_grads.sparse_grad(p.grad):
                    p.grad.zero_()  # no entries left
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
        # torch steps a differentiable optimizer with grad mode on, so the update is recorded
        mode = _enable_grad() if self.defaults.get("differentiable") else no_grad()
        with mode:
            for group in self.param_groups:
                if group.get("fused"):
                    self._check_fused(group)
                self._step_group(group)
        return loss

    def _fused_refusal(self, param):
        """The error torch's fused kernel raises for ``param`` (complex); None (the default):
        no fused kernel to refuse it."""

    def _check_fused(self, group):
        for p in group["params"]:
            if p.grad is not None and p.is_complex():
                err = self._fused_refusal(p)
                if err is not None:
                    raise err

    def _optimizer_step_code(self):
        """Runs after every step (torch's profiler marks it); nothing to do here."""

    def _step_group(self, group):
        hp = hyperparameters(group)
        for p in group["params"]:
            g = p.grad
            if g is not None:
                self._step_param(p, g, group, hp)

    def _step_param(self, p, g, group, hp):
        """One parameter's update (``g``: its gradient, ``hp``: the group's hyperparameters
        as numbers)."""
        if type(g) is not Tensor and _sparse_grads.sparse_grad(g):
            self._sparse_update(p, g, hp)
            return
        if hp.get("differentiable") and p._grad_fn is None and p._requires_grad:
            # torch runs a differentiable step with grad on: the in-place update of a leaf
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        if hp.get("capturable") and p.device.type != "cuda":
            raise AssertionError(self._capturable_error)
        state = self.state[p]
        if not state:
            self._init_state(state, p, hp)
        if hp.get("differentiable") and (hasattr(self, "_update_graph")
                                         or _needs_graph(p, g, state, group)):
            self._update_in_graph(p, g, state, hp)
            return  # the in-place tensor ops bumped the version
        if p._array.dtype.kind == "c" and _real_viewable(p._array) and \
                type(self)._complex_as_real:
            self._update_as_real(p, g._array, state, hp)
        else:
            self._update(p, g._array, state, hp)
        p._vc[0] += 1  # the parameter changed in place

    # torch steps a complex parameter as the real tensor of its (real, imag) pairs
    # (view_as_real of the parameter, gradient and state), so every rule is applied to the
    # two parts separately; a rule that is linear in the gradient needs no view
    _complex_as_real = True

    def _update_as_real(self, param, grad, state, group):
        real = {}
        for k, v in state.items():
            if isinstance(v, Tensor) and v._array.dtype.kind == "c" and \
                    _real_viewable(v._array):
                real[k] = _make(_as_real(v._array))
            else:
                real[k] = v
        xp = backend.xp_of(grad)
        self._update(_make(_as_real(param._array)), _as_real(xp.ascontiguousarray(grad)), real,
                     group)
        for k, v in real.items():
            old = state.get(k)
            if isinstance(old, Tensor) and old._array.dtype.kind == "c" and \
                    isinstance(v, Tensor) and v._array.dtype.kind != "c":
                if not xp.shares_memory(old._array, v._array):  # the rule replaced it
                    old._array[...] = v._array.view(old._array.dtype)[..., 0]
            else:
                state[k] = v

    # SGD, Adagrad and SparseAdam: fn(opt, param, grad, state, group) stepping on a sparse
    # gradient (numtorch/optim/_sparse_grads.py); other optimizers refuse one, as torch's do
    _sparse_step = None

    def _sparse_update(self, param, grad, group):
        step = type(self)._sparse_step
        if step is None:
            raise _sparse_grads.refusal(self)
        state = self.state[param]
        if not state:
            self._init_state(state, param, group)
        step(self, param, grad, state, group)
        param._vc[0] += 1  # the parameter changed in place

    def _update_in_graph(self, param, grad, state, group):
        update = getattr(self, "_update_graph", None)
        if update is None:
            raise RuntimeError(f"{type(self).__name__}(differentiable=True): numtorch cannot yet "
                               f"record this optimizer's update in the autograd graph (SGD, "
                               f"Adam and AdamW can); the parameter or its gradient has history, "
                               f"so a plain update would silently cut it")
        update(param, grad, state, group)

    _capturable_error = ("If capturable=True, params and state_steps must be on supported "
                         f"devices: {_CAPTURABLE_DEVICES}.")

    def _init_state(self, state, param, group):
        """Create the per-parameter state on first use (subclasses override)."""

    def _update(self, param, grad, state, group):
        raise RuntimeError(f"{type(self).__name__} must define _update")

    def _scratch(self, like, slot=0):
        """A reusable work buffer with ``like``'s shape, dtype and device: the fused updates
        write their intermediates into it (``out=``) instead of allocating a temporary per
        operation per parameter. One flat buffer per slot, sized to the largest parameter, is
        shared by all parameters and never enters the state dict or a pickle."""
        bufs = self.__dict__.get("_scratch_bufs")
        if bufs is None:
            bufs = self.__dict__["_scratch_bufs"] = {}
        # host arrays need no device in the key (device_of and its hashing cost ~2 us a call)
        key = (slot, like.dtype) if type(like) is np.ndarray else \
            (slot, like.dtype, backend.device_of(like))
        buf = bufs.get(key)
        if buf is None or buf.size < like.size:
            buf = bufs[key] = backend.xp_of(like).empty(like.size, dtype=like.dtype)
        return buf[:like.size].reshape(like.shape)

    @staticmethod
    def _step_tensor(state):
        """Advance and return torch's float32 ``step`` counter (a 0-d tensor in the state)."""
        step = state["step"]
        step._array += 1
        if type(step._array) is np.ndarray:
            return float(step._array)
        # a count on the GPU: its value is also kept on the host beside the tensor, so a step
        # never reads the device back (read once, and again only after an outside write)
        extra = step._extra if step._extra is not None else {}
        known = extra.get("host_step")
        value = known[0] + 1 if known is not None and known[1] == step._vc[0] else \
            float(step._array)
        extra["host_step"] = (value, step._vc[0])
        step._extra = extra
        return value

    # -- hooks ---------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` before each step (``args`` starts with the
        optimizer); returning ``(new_args, new_kwargs)`` replaces the step's arguments."""
        return add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` after each step."""
        return add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """Call ``hook(optimizer)`` before ``state_dict()`` builds the dict."""
        return add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """Call ``hook(optimizer, state_dict)`` on the built dict; a returned dict replaces it."""
        return add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """Call ``hook(optimizer, state_dict)`` before loading; a returned dict is loaded
        instead."""
        return add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """Call ``hook(optimizer)`` after ``load_state_dict()``."""
        return add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state dicts -------------------------------------------------------------------------
    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}``,
        parameters numbered in group order, exactly as torch does."""
        for hook in list(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)
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
        out = {"state": state, "param_groups": groups}
        for hook in list(self._optimizer_state_dict_post_hooks.values()):
            result = hook(self, out)
            if result is not None:
                out = result
        return out

    def load_state_dict(self, state_dict):
        """Load a state dict made by ``state_dict()`` here or by real torch."""
        for hook in list(self._optimizer_load_state_dict_pre_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        # new containers, the same state tensors: torch keeps a tensor that already has the
        # parameter's dtype and device, so two optimizers loaded from one dict share buffers
        state_dict = _to_numtorch(state_dict)
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
            if "param_names" in g and "param_names" not in ng:
                ng["param_names"] = g["param_names"]  # this optimizer's names stay
            for name, default in self.defaults.items():
                ng.setdefault(name, default)
            new_groups.append(ng)
        self.param_groups = new_groups
        self._tensor_scalar_state()
        for hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)

    # the 0-d tensor counters of a parameter's state (torch's float ``step`` and the like): a
    # state dict from torch before 1.12 holds them as Python numbers, made tensors on loading
    _scalar_state_keys = ()

    def _tensor_scalar_state(self):
        from .. import _dtype

        dt = "float64" if _dtype.get_default_dtype() is _dtype.float64 else "float32"
        for p, st in self.state.items():
            for key in self._scalar_state_keys:
                v = st.get(key)
                if v is not None and not isinstance(v, Tensor):
                    xp = backend.xp_of(p._array)  # (where this optimizer keeps its counters)
                    st[key] = _make(xp.asarray(float(v), dtype=dt))

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        hooks = {k: v for k, v in self.__dict__.items() if k.startswith("_optimizer_")}
        self._init_hook_tables()
        self.__dict__.update(hooks)
        _patch_step(type(self))

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, g in enumerate(self.param_groups):
            if i:  # torch leaves an empty line between groups
                lines.append("")
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in g if k != "params"):
                v = g[key]
                # torch formats the value (a 0-dim tensor reads as its number, others print)
                if isinstance(v, Tensor) and v.dim() == 0:
                    v = v.item()
                lines.append(f"    {key}: {v}")
        lines.append(")")
        return "\n".join(lines)


def _real_viewable(a):
    """Whether a complex array can be viewed as (..., 2) reals (its last axis is unit-strided
    or it has at most one element per row)."""
    return a.ndim == 0 or a.shape[-1] <= 1 or a.strides[-1] == a.itemsize


def _as_real(a):
    """The (..., 2) real view of a complex array (torch's view_as_real), sharing its memory."""
    return a[..., None].view(a.real.dtype)


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
    if type(value) in (list, tuple):  # LBFGS's histories: each tensor moves too, as in torch
        return type(value)(_cast_state(None, v, param) for v in value)
    if not isinstance(value, Tensor):
        return value
    if name == "step":
        return value
    if value.is_floating_point():
        return value.to(dtype=param.dtype, device=param.device)
    return value.to(device=param.device)
