"""The learning-rate scheduler base class shared by every schedule."""

import functools
import warnings
import weakref

from .._tensor import Tensor
from .optimizer import Optimizer
from .._class_repr import object_repr

__all__ = ["LRScheduler", "_LRScheduler", "format_param", "warn_get_lr", "set_group_lr",
           "group_lrs"]

_EPOCH_DEPRECATION = ("The epoch parameter in `scheduler.step()` was not necessary and is being "
                      "deprecated where possible. Please use `scheduler.step()` to step the "
                      "scheduler. During the deprecation, if epoch is different from None, the "
                      "closed form is used instead of the new chainable form, where available. "
                      "Please open an issue if you are unable to replicate your use case: "
                      "https://github.com/pytorch/pytorch/issues/new/choose.")


def format_param(name, optimizer, param):
    """One value per parameter group: a list/tuple is checked, a scalar is repeated."""
    n = len(optimizer.param_groups)
    if isinstance(param, (list, tuple)):
        if len(param) != n:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has {n}.")
        return list(param)
    return [param] * n


def set_group_lr(group, value, key="lr"):
    """Store a scheduled value: a tensor ``lr`` is filled in place (the optimizer and any
    other holder keep seeing it), anything else is replaced."""
    if isinstance(value, Tensor):
        value = value.item()
    current = group.get(key)
    if isinstance(current, Tensor):
        current.fill_(value)
    else:
        group[key] = value


def group_lrs(optimizer):
    """Each group's ``lr`` (tensors copied, so later in-place updates do not show through)."""
    return [g["lr"].clone() if isinstance(g["lr"], Tensor) else g["lr"]
            for g in optimizer.param_groups]


def warn_get_lr(scheduler):
    """``get_lr()`` is internal to ``step()``; calling it directly gets a warning as in torch."""
    if not getattr(scheduler, "_get_lr_called_within_step", False):
        warnings.warn("To get the last learning rate computed by the scheduler, please use "
                      "`get_last_lr()`.", UserWarning, stacklevel=3)


def _track_optimizer_step(optimizer):
    """Wrap ``optimizer.step`` so the scheduler can tell whether it ran before its own step."""
    if getattr(optimizer.step, "_wrapped_by_lr_sched", False):
        return
    method = optimizer.step
    ref = weakref.ref(optimizer)

    @functools.wraps(method)
    def step(*args, **kwargs):
        opt = ref()
        if opt is not None:
            opt._opt_called = True
        return method(*args, **kwargs)

    step._wrapped_by_lr_sched = True
    optimizer.step = step


class LRScheduler:
    """Base class of the learning-rate schedules.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` is driven.
        last_epoch (int): index of the last epoch when resuming; -1 starts afresh.

    Subclasses define ``get_lr()`` (the chainable form, from the current ``lr``) and, where a
    formula exists, ``_get_closed_form_lr()`` used by the deprecated ``step(epoch)``.
    """

    __repr__ = object_repr  # <torch.utils.data...>, as error messages quote it

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                lr = group["lr"]
                group.setdefault("initial_lr", lr.clone() if isinstance(lr, Tensor) else lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming scheduler with last_epoch >= 0.\nThis "
                                   "typically happens when:\n1. You're trying to resume "
                                   "training from a checkpoint but haven't properly loaded the "
                                   "optimizer state\n2. You're using last_epoch >= 0 for a fresh "
                                   "training run (not recommended)")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _track_optimizer_step(optimizer)
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True  # lets resuming schedules jump to their closed form
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Everything but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore the attributes saved by ``state_dict()``."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates set by the last ``step()``, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        """The next learning rates (each subclass defines it; torch's base raises a bare
        NotImplementedError)."""
        raise NotImplementedError

    def _check_call_order(self):
        if self._step_count != 1:
            return
        if not getattr(self.optimizer.step, "_wrapped_by_lr_sched", False):
            warnings.warn("Seems like `optimizer.step()` has been overridden after learning "
                          "rate scheduler initialization. Please, make sure to call "
                          "`optimizer.step()` before `lr_scheduler.step()`. See more details at "
                          "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-"
                          "rate", UserWarning, stacklevel=3)
        elif not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                          "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                          "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                          "will result in PyTorch skipping the first value of the learning rate "
                          "schedule. See more details at https://pytorch.org/docs/stable/"
                          "optim.html#how-to-adjust-learning-rate", UserWarning, stacklevel=3)

    def step(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``, deprecated) and update the groups' lr."""
        self._check_call_order()
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            set_group_lr(group, lr)
        self._last_lr = group_lrs(self.optimizer)


_LRScheduler = LRScheduler
