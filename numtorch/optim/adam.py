"""Adam (amsgrad, maximize, weight decay), following torch's update exactly."""

import math
from fractions import Fraction

import numpy as np

from .. import backend
from .._tensor import Tensor
from ..backend._axpy import add_product, add_scaled, axpy
from . import _device_step
from . import optimizer as _optimizer
from ._checks import (
    check_betas, check_fused, check_lr, check_nonneg, check_tensor_betas, check_tensor_lr,
)
from ._half_steps import half_grad, half_moments
from .optimizer import Optimizer, _make, host_arrays, hyperparameters, run_jobs, split_update

__all__ = ["Adam"]


def _check(lr, eps, betas, weight_decay, foreach, capturable):
    """Torch's checks, in torch's order (a tensor lr or betas are 1-element tensors)."""
    check_tensor_lr(lr, foreach, capturable)
    check_lr(lr)
    check_nonneg(eps, "epsilon value")
    check_betas(betas)
    check_nonneg(weight_decay, "weight_decay value")
    check_tensor_betas(betas, foreach, capturable)


def moments_init(state, param):
    """The state every Adam-family optimizer starts with (torch's keys and dtypes)."""
    xp = backend.xp_of(param._array)
    state["step"] = _make(xp.zeros((), dtype="float32"))
    state["exp_avg"] = _make(xp.zeros_like(param._array))
    state["exp_avg_sq"] = _make(xp.zeros_like(param._array))


def update_moments(opt, param, grad, state, group, exact=False):
    """The steps Adam, AdamW and RAdam share: maximize, weight decay (L2 or decoupled), the
    step counter and both moment estimates. Returns ``(p, xp, exp_avg, exp_avg_sq, step)``."""
    p = param._array
    xp = backend.xp_of(p)
    g = -grad if group["maximize"] else grad
    step = opt._step_tensor(state)
    lr, wd = group["lr"], group["weight_decay"]
    beta1, beta2 = group["betas"]
    if wd != 0:
        if group["decoupled_weight_decay"]:
            p *= _decay(group, lr, wd)
        else:
            g = add_scaled(g, p, wd)
    m, v = state["exp_avg"]._array, state["exp_avg_sq"]._array
    moments_step(xp, m, v, g, beta1, beta2, exact)
    return p, xp, m, v, step


def lerp_inplace(xp, m, g, weight):
    """``m.lerp_(g, weight)`` with torch's rounding where ``g`` is a host array of ``m``'s
    shape and dtype (``lerp_into``, a temporary for its work buffer), else NumPy's."""
    if type(m) is np.ndarray and type(g) is np.ndarray and g.shape == m.shape and \
            g.dtype == m.dtype:
        lerp_into(xp, m, g, np.empty_like(m), weight, False)
    else:
        m += (g - m) * weight


def moments_step(xp, m, v, g, beta1, beta2, exact=False):
    """``m.lerp_(g, 1 - beta1)`` with torch's rounding where ``g`` is a host array of the
    moments' shape and dtype, and ``v.mul_(beta2).addcmul_(g, g, value=1 - beta2)`` as
    ``_adam_part`` rounds it."""
    lerp_inplace(xp, m, g, 1 - beta1)
    v *= beta2
    if exact:
        v[...] = add_product(v, (1 - beta2) * g, g)
    else:
        v += (1 - beta2) * g * g


def _decay(group, lr, wd):
    """Decoupled weight decay's factor ``1 - lr * wd`` (in the dtype of a tensor lr)."""
    dt = group.get("_tensor_lr")
    if dt is not None:
        f = dt.type
        return float(f(1) - f(lr) * f(wd))
    return 1 - lr * wd


def _step_size(group, lr, beta1, step):
    """``lr / (1 - beta1 ** step)``; a tensor lr divides in its own dtype (float32 by
    default), as torch's tensor arithmetic does."""
    dt = group.get("_tensor_lr")
    if dt is not None:
        return float(dt.type(lr) / dt.type(1 - beta1 ** step))
    return lr / (1 - beta1 ** step)


def lerp_into(xp, m, grad, t, weight, negate):
    """``m.lerp_(±grad, weight)`` in place, rounded as torch's kernel: ``m + w * (g - m)``
    once for a weight below one half, else ``g - (1 - w) * (g - m)`` once; ``t`` is a work
    buffer."""
    w = m.dtype.type(weight) if type(m) is np.ndarray else weight
    if abs(w) < 0.5:
        if negate:  # m + w * (-g - m) == m - w * (g + m)
            xp.add(grad, m, out=t)
            axpy(m, t, -float(w))
        else:
            xp.subtract(grad, m, out=t)
            axpy(m, t, float(w))
        return
    w1 = float(w - 1)  # exact in the dtype
    if negate:  # -g + (w - 1) * (-g - m) == -g - (w - 1) * (g + m)
        xp.add(grad, m, out=t)
        xp.negative(grad, out=m)
        axpy(m, t, -w1)
    else:
        xp.subtract(grad, m, out=t)
        xp.copyto(m, grad)
        axpy(m, t, w1)


def _adam_part(xp, p, grad, m, v, vmax, t, g, lr, wd, eps, beta1, beta2, negate, l2,
               bc2_sqrt, step_size, fused=False):
    """Adam's in-place update of (a part of) one parameter; ``t`` and ``g`` are work buffers.
    The L2 term and the lerp of the first moment round once each as torch's (fused
    multiply-adds, ``axpy``), the parameter is ``p + (-step_size * m) / denom`` as torch's
    ``addcdiv``. The second moment's ``addcmul`` (also one rounding in torch) rounds twice
    here: its exact form needs float64 passes that cost the step 35-75% (session 38's
    report), while torch's own ``sqrt`` of it (an ulp off in a few percent of values) keeps
    the parameter from being bitwise anyway; the two differ in ~0.3% of values. ``fused``
    (torch's ``fused=True``, float32 host arrays): that kernel's own roundings of the second
    moment, whose cost the caller asked for; its sqrt is correctly rounded, so the whole
    step is then bitwise torch's."""
    if xp is not np and backend.helpers_for(xp).adam_update(  # one fused kernel on a GPU
            p, grad, m, v, vmax, lr, wd, eps, beta1, beta2, negate, l2, bc2_sqrt, step_size):
        return
    if fused and p.dtype.itemsize == 2:
        _fused_half(p, grad, m, v, vmax, lr, wd, eps, beta1, beta2, negate, l2, bc2_sqrt,
                    step_size)
        return
    if wd != 0:
        if not l2:
            p *= 1 - lr * wd
        else:  # the direction kept is -(-grad + wd * p) under maximize
            xp.copyto(g, grad)
            axpy(g, p, -wd if negate else wd)
            grad = g
    w = 1 - beta1
    if not negate and 0 <= w < 0.4999 and xp is np:  # the common case, inline
        xp.subtract(grad, m, out=t)
        axpy(m, t, w)
    else:
        lerp_into(xp, m, grad, t, w, negate)
    if fused:
        _fused_second_moment(v, grad, t, beta2)
    else:
        v *= beta2
        xp.multiply(grad, 1 - beta2, out=t)  # (c * -g) * -g == (c * g) * g
        t *= grad
        v += t
    if vmax is not None:
        xp.maximum(vmax, v, out=vmax)
        v = vmax
    xp.sqrt(v, out=t)
    t /= bc2_sqrt
    t += eps
    xp.multiply(m, -step_size, out=g)
    g /= t
    p += g


def _fused_half(p, grad, m, v, vmax, *consts):
    """torch's fused kernel on float16/bfloat16 host arrays: every value is loaded as float32,
    the float32 kernel's steps run (``_adam_part(fused=True)``), and the parameter and moments
    are stored back rounded once (bitwise torch's on the sizes and options tried; the
    op-by-op 16-bit path rounds after every step)."""
    f32 = [a.astype(np.float32) for a in (p, grad, m, v)]
    vmax32 = None if vmax is None else vmax.astype(np.float32)
    _adam_part(np, *f32, vmax32, np.empty_like(f32[0]), np.empty_like(f32[0]), *consts,
               fused=True)
    p[...], m[...], v[...] = f32[0], f32[2], f32[3]
    if vmax is not None:
        vmax[...] = vmax32


def _fused_second_moment(v, g, t, beta2):
    """``v = beta2 * v + (1 - beta2) * g * g`` as torch's fused float32 kernel rounds it:
    ``fma(u, g, beta2 * v)`` (``u = (1 - beta2) * g``) in its 8-wide blocks and
    ``fma(beta2, v, u * g)`` in the values past them (measured; float64: blocks of 4).
    float64 holds each float32 product exactly, so one rounding to float32 is the only one;
    float64 goes through BLAS (``add_product``) and rationals for the tail."""
    np.multiply(g, 1 - beta2, out=t)
    vf, gf, tf = v.reshape(-1), g.reshape(-1), t.reshape(-1)
    n = vf.size
    if v.dtype == np.float64:  # blocks of 4; products exact only as rationals or in BLAS
        k = n - n % 4
        b2 = Fraction(beta2)
        tail = [float(b2 * Fraction(float(a)) + Fraction(float(c)))
                for a, c in zip(vf[k:], tf[k:] * gf[k:])]
        v *= beta2
        if k:
            vf[:k] = add_product(vf[:k], tf[:k], gf[:k])
        vf[k:] = tail
        return
    k = n - n % 8
    b2 = float(np.float32(beta2))
    tail = vf[k:].astype(np.float64) * b2 + tf[k:] * gf[k:] if k < n else None
    v *= beta2
    if k:
        body = tf[:k].astype(np.float64)
        body *= gf[:k]
        body += vf[:k]
        vf[:k] = body
    if tail is not None:
        vf[k:] = tail


def _fused_kernel(hp, a):
    """Whether torch's fused kernel's roundings apply to host array ``a``."""
    return bool(hp.get("fused")) and type(a) is np.ndarray and \
        (a.dtype in (np.float32, np.float64) or a.dtype.itemsize == 2 and
         a.dtype.kind in "fV") and a.flags.c_contiguous


class Adam(Optimizer):
    """Adam: adaptive moment estimation.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate. Default: 1e-3.
        betas (Tuple[float, float]): decay rates of the moment estimates. Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): L2 penalty added to the gradient. Default: 0.
        amsgrad (bool): keep the running maximum of the second moment. Default: False.
        maximize (bool): ascend instead of descend. Default: False.
        decoupled_weight_decay (bool): decay the weights directly (AdamW). Default: False.
    """

    _scalar_state_keys = ("step",)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check(lr, eps, betas, weight_decay, foreach, capturable)
        # as torch's Adam (and AdamW): 1-element tensor betas are kept 0-dim
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() else b for b in betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    def _fused_refusal(self, param):
        return RuntimeError(f"`fused=True` requires all the params to be floating point Tensors "
                            f"of supported devices: ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', "
                            f"'privateuseone'] but {param.dtype} and {param.device.type}")

    def _step_group(self, group):
        if _device_step.on_device(group["params"]):  # a GPU: multi-tensor launches
            group = _device_step.step_group(self, group, _device_step.adam_step)
            if group is None:
                return None
            return super()._step_group(group)
        hp = hyperparameters(group)
        if hp.get("differentiable") or hp.get("capturable") or hp.get("_tensor_lr") is not None:
            return super()._step_group(group)
        # The group's host parameters with a gradient of their own shape and dtype are
        # gathered first and updated together (``run_jobs``: over both cores when they are
        # free); any other parameter takes the per-parameter path, after them.
        jobs, sizes, rest = [], [], []
        state_of = self.state
        amsgrad = hp["amsgrad"]
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            arrays = host_arrays(p, g)
            if arrays is None:
                rest.append((p, g))
                continue
            a, ga = arrays
            if a.dtype.itemsize == 2 and not hp.get("fused"):  # float16/bfloat16: _update_half
                rest.append((p, g))
                continue
            state = state_of[p]
            if not state:
                self._init_state(state, p, hp)
            jobs.append((a, ga, state["exp_avg"]._array, state["exp_avg_sq"]._array,
                         state["max_exp_avg_sq"]._array if amsgrad else None,
                         self._step_tensor(state)))
            sizes.append(a.size)
            p._vc[0] += 1  # the parameter changes in place (below)
        if jobs:
            self._update_jobs(jobs, sizes, hp)
        for p, g in rest:
            self._step_param(p, g, group, hp)
        return None

    def _update_jobs(self, jobs, sizes, hp):
        """Adam's update of the gathered ``(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq,
        step)`` arrays; a parameter past ``_SPLIT_MIN`` values is split on its own."""
        lr, wd, eps = hp["lr"], hp["weight_decay"], hp["eps"]
        beta1, beta2 = hp["betas"]
        negate = hp["maximize"]
        l2 = wd != 0 and not hp["decoupled_weight_decay"]
        consts = {}  # per step count: (sqrt(1 - beta2**t), lr / (1 - beta1**t))
        for step in {job[5] for job in jobs}:
            consts[step] = (math.sqrt(1 - beta2 ** step), _step_size(hp, lr, beta1, step))
        scratch = self._scratch
        fused = bool(hp.get("fused"))
        big = _optimizer._SPLIT_MIN
        if max(sizes) >= big:
            small = []
            for job, size in zip(jobs, sizes):
                if size < big:
                    small.append((job, size))
                    continue
                p = job[0]
                if _fused_kernel(hp, p):  # its tail is the whole parameter's: not split
                    _adam_part(np, *job[:5], scratch(p, 0), scratch(p, 1), lr, wd, eps, beta1,
                               beta2, negate, l2, *consts[job[5]], fused=True)
                    continue
                split_update(_adam_part, (*job[:5], scratch(p, 0), scratch(p, 1)),
                             (lr, wd, eps, beta1, beta2, negate, l2, *consts[job[5]]))
            jobs, sizes = [j for j, _ in small], [s for _, s in small]

        def kernel(job, part):
            p, g, m, v, vmax, step = job
            _adam_part(np, p, g, m, v, vmax, scratch(p, 2 * part), scratch(p, 2 * part + 1),
                       lr, wd, eps, beta1, beta2, negate, l2, *consts[step],
                       fused=fused and _fused_kernel(hp, p))

        if jobs:
            run_jobs(kernel, jobs, sizes)

    def _init_state(self, state, param, group):
        moments_init(state, param)
        if group["amsgrad"]:
            xp = backend.xp_of(param._array)
            state["max_exp_avg_sq"] = _make(xp.zeros_like(param._array))

    def _update(self, param, grad, state, group):
        p = param._array
        if p.dtype.itemsize == 2 and type(p) is np.ndarray and not group.get("fused") and \
                group.get("_tensor_lr") is None:
            return self._update_half(param, grad, state, group)
        if grad.shape != p.shape or grad.dtype != p.dtype:
            return self._update_unfused(param, grad, state, group)
        # The rule as in-place passes over the parameter and its moments, intermediates in one
        # reused buffer (``out=``), no temporaries; large parameters are split across the
        # intra-op threads (``split_update``). Maximize is carried as a sign instead of
        # negating the gradient (-g - m == -(g + m) exactly); roundings match the unfused form.
        step = self._step_tensor(state)
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        l2 = wd != 0 and not group["decoupled_weight_decay"]
        if wd != 0 and not l2 and group.get("_tensor_lr") is not None:
            p *= _decay(group, lr, wd)  # torch's float32 factor; the update then skips it
            wd = 0
        arrays = (p, grad, state["exp_avg"]._array, state["exp_avg_sq"]._array,
                  state["max_exp_avg_sq"]._array if group["amsgrad"] else None,
                  self._scratch(p, 0), self._scratch(p, 1))
        consts = (lr, wd, eps, beta1, beta2, group["maximize"], l2,
                  math.sqrt(1 - beta2 ** step), _step_size(group, lr, beta1, step))
        if _fused_kernel(group, p):
            _adam_part(np, *arrays, *consts, fused=True)
        else:
            split_update(_adam_part, arrays, consts)

    def _update_unfused(self, param, grad, state, group):
        """The update with temporaries, for a gradient whose shape or dtype differs from the
        parameter's (broadcast or promoted as NumPy does)."""
        p, xp, m, v, step = update_moments(self, param, grad, state, group)
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        step_size = _step_size(group, lr, beta1, step)
        bc2_sqrt = math.sqrt(1 - beta2 ** step)
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]._array
            xp.maximum(vmax, v, out=vmax)
            denom = xp.sqrt(vmax) / bc2_sqrt + eps
        else:
            denom = xp.sqrt(v) / bc2_sqrt + eps
        p += (-step_size * m) / denom  # torch's addcdiv: (value * m) / denom, then the sum

    def _update_half(self, param, grad, state, group):
        """A float16/bfloat16 parameter (host arrays): torch's rule op by op in tensor ops,
        each computing in float32 and rounding once to the 16-bit type as torch's kernels do
        (lerp, mul, addcmul, sqrt, division, addcdiv); the fused passes above round the
        16-bit moments differently."""
        g = half_grad(param, grad, group)
        step = self._step_tensor(state)
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        m, v = half_moments(state, g, beta1, beta2, group)
        step_size = lr / (1 - beta1 ** step)
        bc2_sqrt = (1 - beta2 ** step) ** 0.5
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]
            np.maximum(vmax._array, v._array, out=vmax._array)
            v = vmax
        param.addcdiv_(m, (v.sqrt() / bc2_sqrt).add_(eps), value=-step_size)

    def _update_graph(self, param, grad, state, group):
        """The same update in tensor ops, recorded by autograd (``differentiable=True`` with a
        parameter or gradient that has history)."""
        from ..ops import maximum

        g = -grad if group["maximize"] else grad
        step = self._step_tensor(state)
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * wd)
            else:
                g = g + wd * param
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.lerp_(g, 1 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        # torch's differentiable step keeps the bias corrections as float32 tensors (its step
        # counter's dtype): the same roundings here
        f32 = np.float32
        step_size = float(f32(lr) / (f32(1) - f32(beta1) ** f32(step)))
        bc2_sqrt = float(np.sqrt(f32(1) - f32(beta2) ** f32(step)))
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]
            vmax.copy_(maximum(vmax, v))
            v = vmax
        # a copy of the first moment enters the graph: the buffer itself changes next step
        param.addcdiv_(m.clone(), v.sqrt() / bc2_sqrt + eps, value=-step_size)


from ._functional import adam  # noqa: E402,F401  (torch.optim.adam.adam)
