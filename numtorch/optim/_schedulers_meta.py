"""Schedules driven by a metric (ReduceLROnPlateau) or by other schedulers (SequentialLR,
ChainedScheduler)."""

import math
import warnings
from bisect import bisect_right

from ._schedulers_base import _EPOCH_DEPRECATION, LRScheduler, group_lrs, set_group_lr
from .optimizer import Optimizer

__all__ = ["ReduceLROnPlateau", "SequentialLR", "ChainedScheduler"]


class ReduceLROnPlateau(LRScheduler):
    """Reduce the lr by ``factor`` when a metric stops improving for ``patience`` epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        mode (str): ``'min'`` (lower is better) or ``'max'``.
        factor (float): multiplier applied on a plateau, < 1. Default: 0.1.
        patience (int): bad epochs tolerated before reducing. Default: 10.
        threshold (float): smallest change counted as an improvement. Default: 1e-4.
        threshold_mode (str): ``'rel'`` (relative to the best) or ``'abs'``.
        cooldown (int): epochs to wait after a reduction before counting again. Default: 0.
        min_lr (float or list): lower bound of the lr per group. Default: 0.
        eps (float): reductions smaller than this are skipped. Default: 1e-8.
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.factor = factor
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * n
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = group_lrs(optimizer)
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        # (mode_worse first: the state dict lists the attributes in torch's order)
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        """Whether a recent reduction still suspends the counting of bad epochs."""
        return self.cooldown_counter > 0

    def is_better(self, a, best):
        """Whether metric ``a`` improves on ``best`` by more than the threshold."""
        rel = self.threshold_mode == "rel"
        if self.mode == "min":
            return a < best * (1.0 - self.threshold) if rel else a < best - self.threshold
        return a > best * (self.threshold + 1.0) if rel else a > best + self.threshold

    def step(self, metrics, epoch=None):
        """Record this epoch's metric and reduce the lr after too many bad epochs."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = group_lrs(self.optimizer)

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError("The number of param groups in the `optimizer` "
                                   f"({len(groups)}) differs from when `ReduceLROnPlateau` "
                                   f"was initialized ({len(self.min_lrs)}), usually due to a "
                                   "new param group being added to the optimizer. Please "
                                   "modify the `min_lrs` field to match the length of the "
                                   "`optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, floor in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, floor)
            if old - new > self.eps:
                set_group_lr(group, new)

    def load_state_dict(self, state_dict):
        """Restore the attributes and the comparison mode."""
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


def _same_optimizer(kind, schedulers, optimizer):
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{kind} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{kind} does not support `ReduceLROnPlateau` scheduler as it "
                             "requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {i} in the given schedulers sequence.")
        if s.optimizer is not optimizer:
            raise ValueError(f"{kind} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(s).__name__} at index {i} has "
                             f"{s.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Composite(LRScheduler):
    """State dicts of schedulers made of schedulers: the children's dicts are nested."""

    def state_dict(self):
        """Own attributes plus each child scheduler's state dict under ``_schedulers``."""
        state = {k: v for k, v in self.__dict__.items()
                 if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        """Restore the attributes and every child scheduler."""
        state = dict(state_dict)
        children = state.pop("_schedulers")
        self.__dict__.update(state)
        for s, d in zip(self._schedulers, children):
            s.load_state_dict(d)


class SequentialLR(_Composite):
    """Run schedulers one after the other, switching at the ``milestones`` epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        schedulers (list): the schedulers, in order.
        milestones (list): epochs at which the next scheduler takes over.
        last_epoch (int): last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got "
                             "no scheduler.")
        _same_optimizer("SequentialLR", schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to "
                             f"be one more than the number of milestone points, but got "
                             f"number of schedulers {len(schedulers)} and the number of "
                             f"milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # each child already stepped once on construction: restart from the initial lr and
        # let only the first one take its initial step
        for group in optimizer.param_groups:
            set_group_lr(group, group["initial_lr"])
        for s in schedulers:
            s.last_epoch -= 1
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self):
        """Step the scheduler in charge of this epoch (a new one starts from epoch 0)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            with warnings.catch_warnings():  # torch restarts the next one without a warning
                warnings.filterwarnings("ignore", "The epoch parameter", UserWarning)
                sched.step(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()


class ChainedScheduler(_Composite):
    """Step several schedulers together; their multiplicative effects compound.

    Args:
        schedulers (list): the chained schedulers.
        optimizer (Optimizer): their optimizer (default: the first scheduler's).
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be "
                             "chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _same_optimizer("ChainedScheduler", schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = [g["lr"] for g in schedulers[-1].optimizer.param_groups]

    def step(self):
        """Step every chained scheduler once."""
        for s in self._schedulers:
            s.step()
        self._last_lr = [g["lr"] for g in self._schedulers[-1].optimizer.param_groups]
