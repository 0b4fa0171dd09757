"""The GPU side of an optimizer step: the parameters of a group that live on a CUDA device are
updated by multi-tensor kernels (``backend/_cupy_optim.py``), many parameters per launch,
instead of one or more launches per parameter.

A launch costs ~5-10 us of host time whatever its size, so for the small models of a training
loop the per-parameter launches were most of a GPU step's optimizer time. Parameters the
kernels do not take (host arrays, gradients of another shape or dtype, non-contiguous
arrays, missing state) are handed back to the optimizer's per-parameter path, which gives the
same results.
"""

import math

import numpy as np

from .. import backend


def on_device(params):
    """Whether the group's first parameter is a CUDA tensor (then its step tries the
    multi-tensor path; a cheap test that keeps the CPU path as it was)."""
    return bool(params) and type(params[0]._array) is not np.ndarray and \
        backend.is_device_array(params[0]._array)


def _ready(p):
    """``(param array, grad array)`` when both are contiguous device arrays of one shape and
    dtype, else None."""
    g = p._grad  # (an optimizer's parameters are leaves: .grad's non-leaf warning cannot apply)
    if g is None:
        return None
    a = p._array
    if type(a) is not backend.DEVICE_ARRAY and not backend.is_device_array(a):
        return None  # a host parameter in a group on a GPU
    ga = getattr(g, "_array", None)  # (a sparse gradient has none: CPU parameters only)
    contiguous = backend.DEVICE_C_CONTIGUOUS
    if type(ga) is not type(a) or ga.shape != a.shape or ga.dtype != a.dtype or \
            not (contiguous(a) and contiguous(ga)):
        return None
    return a, ga


def _by_dtype(items):
    groups = {}
    for item in items:
        groups.setdefault(item[1][0].dtype, []).append(item)
    return groups.values()


def _finish(items, done, rest):
    for p, _ in items[:done]:
        p._vc[0] += 1  # the parameter changed in place
    rest.extend(p for p, _ in items[done:])


def sgd_step(opt, params, hp):
    """SGD's update of the device parameters of ``params`` with their momentum buffers; the
    parameters left for the per-parameter path (first momentum steps included)."""
    momentum = hp["momentum"]
    items, rest = [], []
    state = opt.state
    contiguous = backend.DEVICE_C_CONTIGUOUS
    for p in params:
        if p._grad is None:
            continue
        arrays = _ready(p)
        if arrays is not None and momentum != 0:
            st = state.get(p)  # (.get: opt.state may make missing entries)
            buf = None if st is None else st.get("momentum_buffer")
            b = None if buf is None else buf._array
            arrays = None if b is None or type(b) is not type(arrays[0]) or \
                b.dtype != arrays[0].dtype or b.shape != arrays[0].shape or \
                not contiguous(b) else arrays + (b,)
        if arrays is None:
            rest.append(p)
        else:
            items.append((p, arrays))
    for group in _by_dtype(items):
        done = backend.helpers_for(backend.xp_of(group[0][1][0])).multi_sgd(
            [t for _, t in group], hp["lr"], hp["weight_decay"], momentum, hp["dampening"],
            hp["nesterov"], hp["maximize"])
        _finish(group, done, rest)
    return rest


def _next_step(step):
    """The value a float32 ``step`` counter on the device will have after this step, from its
    copy on the host (read from the device once, and after an outside write)."""
    extra = step._extra
    known = None if extra is None else extra.get("host_step")
    if known is not None and known[1] == step._vc[0]:
        return known[0] + 1
    return float(step._array) + 1


def _record_step(step, value):
    extra = step._extra if step._extra is not None else {}
    extra["host_step"] = (value, step._vc[0])
    step._extra = extra


def _same_layout(arrays, like):
    contiguous = backend.DEVICE_C_CONTIGUOUS
    t, dt, shape = type(like), like.dtype, like.shape
    for a in arrays:  # (a loop: no generator frame per parameter)
        if a is None or type(a) is not t or a.dtype != dt or a.shape != shape or \
                not contiguous(a):
            return False
    return True


def _stepped(opt, params, hp, keys):
    """The device parameters of ``params`` with the state arrays ``keys`` and a float32
    step counter on the device, as ``(param, (arrays, step tensor, next step))`` items
    grouped by dtype and next step (one launch series each: the step sets the bias
    corrections), and the parameters left for the per-parameter path."""
    groups, rest = {}, []
    dev = backend.DEVICE_ARRAY
    for p in params:
        if p._grad is None:
            continue
        arrays = _ready(p)
        if arrays is None or arrays[0].size == 0:
            rest.append(p)
            continue
        state = opt.state[p]
        if not state:
            opt._init_state(state, p, hp)
        step = state.get("step")
        more = []
        for k in keys:
            more.append(getattr(state.get(k), "_array", None))
        if step is None or not _same_layout(more, arrays[0]) or \
                (type(step._array) is not dev and not backend.is_device_array(step._array)):
            rest.append(p)
            continue
        value = _next_step(step)
        groups.setdefault((arrays[0].dtype, value), []).append(
            (p, (arrays + tuple(more), step, value)))
    return groups, rest


def _launch_groups(groups, rest, run):
    """``run(tensors, steps, next_step)`` -> tensors updated, per group; their step records
    and versions advance, the others join ``rest``."""
    for (_, value), group in groups.items():
        done = run([t for _, (t, _, _) in group], [s._array for _, (_, s, _) in group], value)
        for _, (_, s, _) in group[:done]:
            _record_step(s, value)
        _finish(group, done, rest)
    return rest


def _helpers(groups):
    for group in groups.values():
        return backend.helpers_for(backend.xp_of(group[0][1][0][0]))
    return None


def adam_step(opt, params, hp):
    """Adam's (and AdamW's) update of the device parameters of ``params``, their moments and
    step counters; the parameters left for the per-parameter path."""
    keys = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if hp["amsgrad"] else ())
    groups, rest = _stepped(opt, params, hp, keys)
    lr, wd, eps = hp["lr"], hp["weight_decay"], hp["eps"]
    beta1, beta2 = hp["betas"]
    l2 = wd != 0 and not hp["decoupled_weight_decay"]
    helpers = _helpers(groups)
    return _launch_groups(groups, rest, lambda tensors, steps, value: helpers.multi_adam(
        tensors, steps, lr, wd, eps, beta1, beta2, hp["maximize"], l2,
        math.sqrt(1 - beta2 ** value), lr / (1 - beta1 ** value)))


def rmsprop_step(opt, params, hp):
    """RMSprop's update (centered, momentum, weight decay, maximize) of the device
    parameters of ``params``; the parameters left for the per-parameter path."""
    keys = ("square_avg",) + (("grad_avg",) if hp["centered"] else ()) + (
        ("momentum_buffer",) if hp["momentum"] > 0 else ())
    groups, rest = _stepped(opt, params, hp, keys)
    helpers = _helpers(groups)
    return _launch_groups(groups, rest, lambda tensors, steps, value: helpers.multi_rmsprop(
        tensors, steps, hp["lr"], hp["alpha"], hp["eps"], hp["weight_decay"], hp["momentum"],
        hp["centered"], hp["maximize"]))


def adagrad_step(opt, params, hp):
    """Adagrad's update of the device parameters of ``params``; the parameters left for the
    per-parameter path."""
    groups, rest = _stepped(opt, params, hp, ("sum",))
    helpers = _helpers(groups)
    return _launch_groups(groups, rest, lambda tensors, steps, value: helpers.multi_adagrad(
        tensors, steps, hp["lr"] / (1 + (value - 1) * hp["lr_decay"]), hp["weight_decay"],
        hp["eps"], hp["maximize"]))


def step_group(opt, group, multi):
    """The start of ``opt._step_group(group)`` for a group on a GPU: ``multi(opt, params, hp)``
    updates what the kernels take; returns the group of the parameters left (None: all
    done) for the per-parameter path."""
    from .optimizer import hyperparameters

    hp = hyperparameters(group)
    if hp.get("differentiable"):
        return group
    rest = multi(opt, group["params"], hp)
    return dict(group, params=rest) if rest else None
