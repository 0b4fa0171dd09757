"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch's update rule)."""

from fractions import Fraction

import numpy as np

from .. import backend
from ..backend._axpy import add_scaled, axpy, scale
from . import _device_step, optimizer
from ._checks import check_fused, check_lr, number
from .optimizer import Optimizer, hyperparameters, host_arrays, required, _make, split_update

__all__ = ["SGD"]

_SMALL = 1 << 14  # parameters up to this many values update with temporaries (64 KiB float32)


def _sgd_part(xp, p, grad, buf, t, d, lr, wd, momentum, dampening, nesterov, negate, tail=0,
              bm=None):
    """SGD's in-place update of (a part of) one parameter; ``t`` and ``d`` are work buffers
    (``d`` only with weight decay). On the first momentum step ``buf`` is None and ``grad`` is
    the new buffer itself, already the signed, decayed direction.

    Every ``x + a * y`` of the rule is rounded once (``axpy``), as torch's kernels do; while
    ``negate`` holds, the direction kept is the negated one and each alpha changes sign (a
    fused multiply-add of negated operands is the exact negation). ``tail``: how many last
    values round ``buf * momentum + d_p`` once, as torch's ``fused=True`` kernel does past its
    last whole block of 8 float32 or 4 float64 values (``_fused_tail``). ``bm``: the factor
    that scales ``buf`` when it is not ``momentum`` (``_buf_momentum``)."""
    d_p = grad
    if grad.dtype.itemsize == 2 and not grad.flags.c_contiguous:
        # 16-bit roundings follow the memory order (torch's results keep the gradient's
        # layout): work buffers of that layout, not the C-order scratch ones
        t, d = xp.empty_like(grad), xp.empty_like(grad)
    if wd != 0:
        xp.copyto(d, grad)
        axpy(d, p, -wd if negate else wd)
        d_p = d
    if momentum != 0:
        if buf is not None:
            if tail:
                _fused_tail(buf, d_p, momentum, dampening, negate, tail)
            else:
                scale(buf, momentum if bm is None else bm)
                axpy(buf, d_p, dampening - 1 if negate else 1 - dampening)
        else:  # the first step: grad is the new buffer
            buf = grad
        if nesterov:
            xp.copyto(t, d_p)
            axpy(t, buf, -momentum if negate else momentum)
            d_p = t
        else:
            d_p, negate = buf, False
    axpy(p, d_p, lr if negate else -lr)


def _fused_tail(buf, d_p, momentum, dampening, negate, tail):
    """``buf = buf * momentum + (1 - dampening) * (∓)d_p`` (float32) as torch's fused kernel:
    ``fma(1 - dampening, d_p, buf * momentum)`` in its 8-wide blocks (the unfused rule) and
    ``fma(buf, momentum, (1 - dampening) * d_p)`` in the last ``tail`` values (measured;
    float64 holds the product exactly)."""
    flat, d = buf.reshape(-1), d_p.reshape(-1)
    k = flat.size - tail
    scaled = d[k:] * flat.dtype.type(1 - dampening)
    if negate:
        scaled = -scaled
    if flat.dtype == np.float64:  # at most 3 values: exact rationals, rounded once
        m = Fraction(float(momentum))
        once = [float(Fraction(float(b)) * m + Fraction(float(c)))
                for b, c in zip(flat[k:], scaled)]
    else:
        once = flat[k:].astype(np.float64) * float(np.float32(momentum))
        once += scaled
    head = flat[:k]
    head *= momentum
    axpy(head, d[:k], dampening - 1 if negate else 1 - dampening)
    flat[k:] = once


def _buf_momentum(hp, a):
    """The factor that scales a 16-bit momentum buffer in torch's multi-tensor step
    (``foreach=True``): the momentum rounded to the buffer's dtype first (measured: bit for
    bit with torch over several steps); None (the momentum itself) otherwise."""
    dt = a.dtype
    if hp.get("foreach") and dt.itemsize == 2 and dt.kind in "fV":
        return float(dt.type(hp["momentum"]))
    return None


def _fused_tail_len(hp, a):
    """The values torch's fused SGD kernel updates past its blocks (8 float32 or 4 float64
    values, measured) for a contiguous host array, else 0."""
    if hp.get("fused") and type(a) is np.ndarray and a.flags.c_contiguous:
        if a.dtype == np.float32:
            return a.size % 8
        if a.dtype == np.float64:
            return a.size % 4
    return 0


class SGD(Optimizer):
    """Stochastic gradient descent.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate. Default: 1e-3.
        momentum (float): momentum factor. Default: 0.
        dampening (float): dampening of the momentum. Default: 0.
        weight_decay (float): L2 penalty. Default: 0.
        nesterov (bool): Nesterov momentum. Default: False.
        maximize (bool): ascend instead of descend. Default: False.

    The momentum buffer starts as the first gradient, as in torch.
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if lr is not required:
            check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {number(momentum)}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {number(weight_decay)}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    def _fused_refusal(self, param):
        from .._dtype import _TYPE_DISPLAY

        return NotImplementedError(f'"fused_sgd_kernel" not implemented for '
                                   f"'{_TYPE_DISPLAY[param.dtype.name]}'")

    def _step_group(self, group):
        hp = hyperparameters(group)
        if hp.get("differentiable"):
            return super()._step_group(group)
        if _device_step.on_device(group["params"]):
            # a GPU: the device parameters' updates in a few multi-tensor launches
            rest = _device_step.sgd_step(self, group["params"], hp)
            if not rest:
                return None
            group = dict(group, params=rest)
        if optimizer._sparse_grads.any_sparse(group["params"]):
            return super()._step_group(group)
        if hp["momentum"] != 0:
            return self._momentum_group(group, hp)
        # Without momentum SGD keeps no state: each parameter is one or two NumPy passes, so
        # the generic loop's per-parameter bookkeeping (state lookup, work buffers, the split
        # check) would cost more than the update itself for small tensors, whose temporaries
        # cost less than reusing a work buffer. Parameters this loop does not take (device
        # arrays, large or mismatched gradients) go the usual, allocation-free way.
        lr, wd, negate = hp["lr"], hp["weight_decay"], hp["maximize"]
        small = min(_SMALL, optimizer._SPLIT_MIN - 1)  # what split_update would split stays
        rest = None
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            a, ga = p._array, g._array
            if type(a) is not np.ndarray or a.size > small or ga.shape != a.shape or \
                    ga.dtype != a.dtype:
                if rest is None:
                    rest = []
                rest.append(p)
                continue
            # the same roundings, in the same order, as _sgd_part
            if wd != 0:
                ga = ga.copy()
                axpy(ga, a, -wd if negate else wd)
            axpy(a, ga, lr if negate else -lr)
            p._vc[0] += 1  # the parameter changed in place
        for p in rest or ():  # no state without momentum (torch keeps no entry either)
            self._update(p, p.grad._array, {}, hp)
            p._vc[0] += 1
        return None

    def _momentum_group(self, group, hp):
        """Momentum steps after the first: the host parameters that have their buffer and a
        gradient of their own shape and dtype are gathered and updated together
        (``optimizer.run_jobs``: over both cores when the group is large and they are free);
        the rest, first steps included, take the per-parameter path after them."""
        jobs, sizes, rest = [], [], []
        state_of = self.state
        big = optimizer._SPLIT_MIN  # split_update splits these on their own
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            arrays = host_arrays(p, g)
            if arrays is not None and arrays[0].size < big:
                buf = state_of[p].get("momentum_buffer")
                if buf is not None and type(buf._array) is np.ndarray:
                    jobs.append((*arrays, buf._array))
                    sizes.append(arrays[0].size)
                    p._vc[0] += 1  # the parameter changes in place (below)
                    continue
            rest.append((p, g))
        if jobs:
            wd = hp["weight_decay"]
            consts = (hp["lr"], wd, hp["momentum"], hp["dampening"], hp["nesterov"],
                      hp["maximize"])
            scratch = self._scratch

            def kernel(job, part):
                a = job[0]
                _sgd_part(np, *job, scratch(a, 2 * part),
                          scratch(a, 2 * part + 1) if wd != 0 else None, *consts,
                          tail=_fused_tail_len(hp, a), bm=_buf_momentum(hp, a))

            optimizer.run_jobs(kernel, jobs, sizes)
        for p, g in rest:
            self._step_param(p, g, group, hp)
        return None

    _sparse_step = optimizer._sparse_grads.sgd
    _complex_as_real = False  # the rule is linear: the complex update is the same

    def _update(self, param, grad, state, group):
        p = param._array
        if grad.shape != p.shape or grad.dtype != p.dtype:
            return self._update_unfused(p, grad, state, group)
        # One pass per step of the rule, every intermediate written into a reused buffer
        # (``out=``): no temporary is allocated per parameter; large parameters are split
        # across the intra-op threads (``split_update``). ``negate`` carries maximize while
        # the direction is still the raw gradient, so -grad is never materialised; every
        # rewrite is exact in floating point (x + (-y) == x - y).
        momentum, wd = group["momentum"], group["weight_decay"]
        buf = state.get("momentum_buffer") if momentum != 0 else None
        if momentum != 0 and buf is None:
            # the first step makes the buffer: a copy of the direction (-grad + wd * p)
            xp = backend.xp_of(p)
            # (the copy keeps the gradient's layout, as torch's clone: a 16-bit update's
            # roundings follow the memory order)
            first = xp.negative(grad) if group["maximize"] else grad.copy(order="K")
            if wd != 0:
                axpy(first, p, wd)
            buf = state["momentum_buffer"] = _make(first)
            arrays = (p, buf._array, None, self._scratch(p, 0), None)
            consts = (group["lr"], 0, momentum, 0, group["nesterov"], False)
        else:
            arrays = (p, grad, None if buf is None else buf._array, self._scratch(p, 0),
                      self._scratch(p, 1) if wd != 0 else None)
            consts = (group["lr"], wd, momentum, group["dampening"], group["nesterov"],
                      group["maximize"])
        tail = _fused_tail_len(group, p) if buf is not None else 0
        if tail:  # the tail is the whole parameter's: not split across threads
            _sgd_part(backend.xp_of(p), *arrays, *consts, tail=tail)
        elif buf is not None and (bm := _buf_momentum(group, p)) is not None:
            _sgd_part(backend.xp_of(p), *arrays, *consts, bm=bm)
        else:
            split_update(_sgd_part, arrays, consts)

    def _update_unfused(self, p, grad, state, group):
        """The update with temporaries, for a gradient whose shape or dtype differs from the
        parameter's (broadcast or promoted as NumPy does); each ``x + a * y`` rounded once
        where the operands share a host dtype, as in the fused path."""
        d_p = -grad if group["maximize"] else grad
        wd = group["weight_decay"]
        if wd != 0:
            d_p = add_scaled(d_p, p, wd)
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = _make(d_p.copy(order="K"))
            else:
                b = buf._array
                scale(b, momentum)
                b[...] = add_scaled(b, d_p, 1 - group["dampening"])
            d_p = add_scaled(d_p, buf._array, momentum) if group["nesterov"] else buf._array
        p[...] = add_scaled(p, d_p, -group["lr"])

    def _update_graph(self, param, grad, state, group):
        """The same update in tensor ops, recorded by autograd (``differentiable=True`` with a
        parameter or gradient that has history); the first momentum buffer is a detached copy
        of the direction, as in torch."""
        d_p = -grad if group["maximize"] else grad
        wd = group["weight_decay"]
        if wd != 0:
            d_p = d_p + wd * param
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = d_p.detach().clone()
            else:
                buf.mul_(momentum).add_(d_p, alpha=1 - group["dampening"])
            d_p = d_p + momentum * buf if group["nesterov"] else buf
        param.add_(d_p, alpha=-group["lr"])


from ._functional import sgd  # noqa: E402,F401  (torch.optim.sgd.sgd)
