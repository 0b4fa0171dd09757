"""Closed-form and multiplicative schedules: lambda, step, multi-step, constant, linear,
exponential, polynomial and cosine annealing."""

import math
import types
from bisect import bisect_right
from collections import Counter

from ._schedulers_base import LRScheduler, warn_get_lr

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "PolynomialLR", "CosineAnnealingLR"]


def _lambdas(optimizer, fn):
    n = len(optimizer.param_groups)
    if isinstance(fn, (list, tuple)):
        if len(fn) != n:
            raise ValueError(f"Expected {n} lr_lambdas, but got {len(fn)}")
        return list(fn)
    return [fn] * n


class _LambdaState:
    """State dicts keep callable objects' attributes but never plain functions."""

    def state_dict(self):
        """Everything but the optimizer; ``lr_lambdas`` become their ``__dict__`` or None."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(f, types.FunctionType) else dict(f.__dict__)
                               for f in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        """Restore the attributes; callable objects get their saved ``__dict__`` back."""
        state = dict(state_dict)
        saved = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for f, d in zip(self.lr_lambdas, saved):
            if d is not None:
                f.__dict__.update(d)


class LambdaLR(_LambdaState, LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)`` per group.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        lr_lambda (callable or list): a factor function of the epoch, or one per group.
        last_epoch (int): last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """``base_lr * lambda(last_epoch)`` per group."""
        warn_get_lr(self)
        return [base * f(self.last_epoch) for base, f in zip(self.base_lrs, self.lr_lambdas)]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """Multiply each group's lr by ``lr_lambda(epoch)`` at every step after the first.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        lr_lambda (callable or list): a factor function of the epoch, or one per group.
        last_epoch (int): last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lr times ``lambda(last_epoch)`` (unchanged at epoch 0)."""
        warn_get_lr(self)
        groups = self.optimizer.param_groups
        # outside the constructor's step torch applies the factor even at epoch 0
        if not getattr(self, "_is_initial", False):
            return [g["lr"] * f(self.last_epoch) for g, f in zip(groups, self.lr_lambdas)]
        return [g["lr"] for g in groups]


class StepLR(LRScheduler):
    """Multiply the lr by ``gamma`` every ``step_size`` epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        step_size (int): period of the decay.
        gamma (float): decay factor. Default: 0.1.
        last_epoch (int): last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """Decay at multiples of ``step_size``, otherwise keep the lr."""
        warn_get_lr(self)
        groups = self.optimizer.param_groups
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [g["lr"] for g in groups]
        return [g["lr"] * self.gamma for g in groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by ``gamma`` at each milestone epoch (repeated milestones compound).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        milestones (list): epoch indices.
        gamma (float): decay factor. Default: 0.1.
        last_epoch (int): last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """Decay by ``gamma ** count`` when the epoch is a milestone."""
        warn_get_lr(self)
        groups = self.optimizer.param_groups
        if self.last_epoch not in self.milestones:
            return [g["lr"] for g in groups]
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch] for g in groups]

    def _get_closed_form_lr(self):
        marks = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(marks, self.last_epoch) for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the lr by ``factor`` until epoch ``total_iters``, then restore it.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        factor (float): multiplier in [0, 1]. Default: 1/3.
        total_iters (int): number of scaled epochs. Default: 5.
        last_epoch (int): last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """Scale at epoch 0, unscale at ``total_iters``, otherwise keep."""
        warn_get_lr(self)
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in groups]
        if self.last_epoch != self.total_iters:
            return [g["lr"] for g in groups]
        return [g["lr"] * (1.0 / self.factor) for g in groups]

    def _get_closed_form_lr(self):
        on = self.last_epoch >= self.total_iters
        return [b * (self.factor + on * (1 - self.factor)) for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Move the lr's multiplier linearly from ``start_factor`` to ``end_factor``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        start_factor (float): multiplier at epoch 0, in (0, 1]. Default: 1/3.
        end_factor (float): multiplier from ``total_iters`` on, in [0, 1]. Default: 1.
        total_iters (int): length of the ramp. Default: 5.
        last_epoch (int): last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The ratio of consecutive ramp multipliers applied to the current lr."""
        warn_get_lr(self)
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in groups]
        if self.last_epoch > self.total_iters or getattr(self, "_is_initial", False):
            return [g["lr"] for g in groups]
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor
                              + (self.last_epoch - 1) * span)
        return [g["lr"] * ratio for g in groups]

    def _get_closed_form_lr(self):
        frac = min(self.total_iters, self.last_epoch) / self.total_iters
        return [b * (self.start_factor + (self.end_factor - self.start_factor) * frac)
                for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the lr by ``gamma`` every epoch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        gamma (float): decay factor.
        last_epoch (int): last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lr times ``gamma`` (unchanged at epoch 0)."""
        warn_get_lr(self)
        groups = self.optimizer.param_groups
        if getattr(self, "_is_initial", False):
            return [g["lr"] for g in groups]
        return [g["lr"] * self.gamma for g in groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the lr as ``(1 - epoch / total_iters) ** power`` until ``total_iters``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        total_iters (int): epochs until the lr reaches zero. Default: 5.
        power (float): exponent of the decay. Default: 1.
        last_epoch (int): last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The ratio of consecutive decay factors applied to the current lr."""
        warn_get_lr(self)
        groups = self.optimizer.param_groups
        if self.last_epoch > self.total_iters or getattr(self, "_is_initial", False):
            return [g["lr"] for g in groups]
        n, e = self.total_iters, self.last_epoch
        factor = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power
        return [g["lr"] * factor for g in groups]

    def _get_closed_form_lr(self):
        frac = min(self.total_iters, self.last_epoch) / self.total_iters
        return [b * (1.0 - frac) ** self.power for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial lr to ``eta_min`` over ``T_max`` epochs (and back up,
    periodically, past it), in torch's recursive form.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        T_max (int): half period.
        eta_min (float): smallest lr. Default: 0.
        last_epoch (int): last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """One recursive cosine step from the current lr."""
        warn_get_lr(self)
        groups = self.optimizer.param_groups
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        if getattr(self, "_is_initial", False):  # resuming: keep the optimizer's lr
            return [g["lr"] for g in groups]
        if self._step_count == 1 and e > 0:  # a get_lr() right after resuming: closed form
            return self._get_closed_form_lr()
        if (e - 1 - t) % (2 * t) == 0:  # leaving the minimum: the recursion would divide by 0
            return [g["lr"] + (b - lo) * (1 - math.cos(math.pi / t)) / 2
                    for b, g in zip(self.base_lrs, groups)]
        ratio = (1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
        return [ratio * (g["lr"] - lo) + lo for g in groups]

    def _get_closed_form_lr(self):
        lo = self.eta_min
        return [lo + (b - lo) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]
