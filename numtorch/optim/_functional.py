"""Functional forms of the optimizers at torch's paths (``torch.optim.sgd.sgd``,
``torch.optim.adam.adam``, ``torch.optim.adamw.adamw``, ``torch.optim._adafactor.adafactor``).

Each takes the parameters, their gradients and the state tensors as parallel lists and updates
them in place, running the same per-parameter update as the optimizer class (so the two can
never disagree). A state list entry that starts as None (SGD's first momentum buffer) is
filled in.
"""

from ..autograd.grad_mode import no_grad

__all__ = ["adafactor", "adam", "adamw", "sgd"]


def _run(cls, params, grads, states, group):
    """Apply ``cls``'s update to each parameter with its state dict; returns the states."""
    opt = cls.__new__(cls)  # the update reads no instance attributes beyond the group
    with no_grad():
        for p, g, state in zip(params, grads, states):
            cls._update(opt, p, g._array, state, group)
            p._vc[0] += 1
    return states


def _states(names, lists):
    n = len(lists[0]) if lists else 0
    out = []
    for i in range(n):
        out.append({k: lst[i] for k, lst in zip(names, lists) if lst and lst[i] is not None})
    return out


def sgd(params, d_p_list, momentum_buffer_list, has_sparse_grad=False, foreach=None,
        fused=None, grad_scale=None, found_inf=None, *, weight_decay, momentum, lr, dampening,
        nesterov, maximize):
    """One SGD step on ``params`` (see :class:`numtorch.optim.SGD`); momentum buffers that
    are None are created and stored back into ``momentum_buffer_list``."""
    from .sgd import SGD

    states = [{} if b is None else {"momentum_buffer": b} for b in momentum_buffer_list]
    group = dict(weight_decay=weight_decay, momentum=momentum, lr=lr, dampening=dampening,
                 nesterov=nesterov, maximize=maximize)
    _run(SGD, params, d_p_list, states, group)
    for i, st in enumerate(states):
        if momentum_buffer_list[i] is None and "momentum_buffer" in st:
            momentum_buffer_list[i] = st["momentum_buffer"]


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=None,
         capturable=False, differentiable=False, fused=None, grad_scale=None, found_inf=None,
         has_complex=False, decoupled_weight_decay=False, *, amsgrad, beta1, beta2, lr,
         weight_decay, eps, maximize):
    """One Adam step (see :class:`numtorch.optim.Adam`); ``state_steps`` are advanced."""
    from .adam import Adam

    states = _states(("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"),
                     [state_steps, exp_avgs, exp_avg_sqs, max_exp_avg_sqs if amsgrad else []])
    group = dict(lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay,
                 amsgrad=amsgrad, maximize=maximize, decoupled_weight_decay=decoupled_weight_decay)
    _run(Adam, params, grads, states, group)


def adamw(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=None,
          capturable=False, differentiable=False, fused=None, grad_scale=None, found_inf=None,
          has_complex=False, *, amsgrad, beta1, beta2, lr, weight_decay, eps, maximize):
    """One AdamW step (Adam with decoupled weight decay)."""
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
         decoupled_weight_decay=True, amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, eps=eps, maximize=maximize)


def adafactor(params, grads, row_vars, col_vars, variances, state_steps, foreach=None,
              grad_scale=None, found_inf=None, has_complex=False, *, d, lr, beta2_decay,
              weight_decay, eps1, eps2, maximize):
    """One Adafactor step (see :class:`numtorch.optim.Adafactor`)."""
    from ._adafactor import Adafactor

    states = _states(("step", "row_var", "col_var", "variance"),
                     [state_steps, row_vars, col_vars, variances])
    group = dict(lr=lr, beta2_decay=beta2_decay, eps=(eps1, eps2), d=d,
                 weight_decay=weight_decay, maximize=maximize)
    _run(Adafactor, params, grads, states, group)


# each is defined, as far as anyone can tell, in its optimizer's module (torch's paths)
sgd.__module__ = "numtorch.optim.sgd"
adam.__module__ = "numtorch.optim.adam"
adamw.__module__ = "numtorch.optim.adamw"
adafactor.__module__ = "numtorch.optim._adafactor"
