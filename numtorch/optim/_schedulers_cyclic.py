"""Cyclic schedules: cosine annealing with warm restarts, CyclicLR and OneCycleLR (the last
two optionally cycle SGD's momentum or Adam's beta1 against the lr)."""

import math
import types

from ._schedulers_base import LRScheduler, format_param, group_lrs, set_group_lr, warn_get_lr

__all__ = ["CosineAnnealingWarmRestarts", "CyclicLR", "OneCycleLR"]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_i`` epochs, ``T_i`` growing by ``T_mult``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        T_0 (int): length of the first period.
        T_mult (int): growth factor of the period. Default: 1.
        eta_min (float): smallest lr. Default: 0.
        last_epoch (int): last epoch when resuming. Default: -1.

    ``step(epoch)`` accepts fractional epochs (e.g. ``epoch + i / iters``).
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The cosine value at position ``T_cur`` of the current period."""
        warn_get_lr(self)
        lo = self.eta_min
        return [lo + (b - lo) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for b in self.base_lrs]

    def step(self, epoch=None):
        """Advance one epoch, or jump to the (possibly fractional) ``epoch``.

        Unlike the other schedules, torch's does not warn when it runs before the optimizer's
        first step (it is stepped per batch with fractional epochs, often before it), and
        its ``_step_count`` stays at 0 (torch's counts only the other schedules' steps)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    # index of the period that contains ``epoch`` (geometric period lengths)
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            set_group_lr(group, lr)
        self._last_lr = group_lrs(self.optimizer)


def _momentum_setup(sched, optimizer, base_momentum, max_momentum, last_epoch):
    """Check the optimizer has a momentum (or beta1) and start it at ``max_momentum``."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled")
    sched.use_beta1 = "betas" in optimizer.defaults
    bases = format_param("base_momentum", optimizer, base_momentum)
    maxes = format_param("max_momentum", optimizer, max_momentum)
    if last_epoch == -1:
        for hi, lo, group in zip(maxes, bases, optimizer.param_groups):
            _set_momentum(sched, group, hi)
            group["max_momentum"] = hi
            group["base_momentum"] = lo
    return bases, maxes


def _set_momentum(sched, group, value):
    if sched.use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class CyclicLR(LRScheduler):
    """Cycle the lr between ``base_lr`` and ``max_lr`` (updated every batch).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        base_lr (float or list): lower bound per group.
        max_lr (float or list): upper bound per group.
        step_size_up (int): iterations in the rising half. Default: 2000.
        step_size_down (int): iterations in the falling half (default: ``step_size_up``).
        mode (str): ``'triangular'``, ``'triangular2'`` or ``'exp_range'``.
        gamma (float): base of ``exp_range``'s decay. Default: 1.
        scale_fn (callable): custom amplitude scaling (overrides ``mode``).
        scale_mode (str): ``'cycle'`` or ``'iterations'``: the argument of ``scale_fn``.
        cycle_momentum (bool): cycle momentum inversely to the lr. Default: True.
        base_momentum (float or list): lower momentum bound. Default: 0.8.
        max_momentum (float or list): upper momentum bound. Default: 0.9.
        last_epoch (int): index of the last batch when resuming. Default: -1.
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        base_lrs = format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                set_group_lr(group, lr)
        self.max_lrs = format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _momentum_setup(self, optimizer, base_momentum, max_momentum, last_epoch)
            self.base_momentums = [g["base_momentum"] for g in optimizer.param_groups]
            self.max_momentums = [g["max_momentum"] for g in optimizer.param_groups]
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self.scale_mode = "cycle"
        else:
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        """Amplitude factor for cycle number (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        """The triangular wave at ``last_epoch``, scaled; also sets the momentum."""
        warn_get_lr(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale = x / self.step_ratio
        else:
            scale = (x - 1) / (self.step_ratio - 1)
        arg = cycle if self.scale_mode == "cycle" else self.last_epoch
        amp = self.scale_fn(arg)
        lrs = [b + (m - b) * scale * amp for b, m in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, lo, hi in zip(self.optimizer.param_groups, self.base_momentums,
                                     self.max_momentums):
                _set_momentum(self, group, hi - (hi - lo) * scale * amp)
        return lrs

    def state_dict(self):
        """Everything but the optimizer; a custom ``scale_fn`` is kept only as its
        ``__dict__`` when it is a callable object (functions cannot be saved)."""
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = dict(fn.__dict__)
        return state

    def load_state_dict(self, state_dict):
        """Restore the attributes; the custom ``scale_fn`` object keeps its identity. As
        torch, the ``_scale_fn_custom`` entry is taken out of ``state_dict`` itself."""
        saved = state_dict.pop("_scale_fn_custom")
        state = dict(state_dict)
        fn = self._scale_fn_custom
        self.__dict__.update(state)
        if fn is not None and saved is not None:
            fn.__dict__.update(saved)
        self._scale_fn_custom = fn
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up to ``max_lr``, then anneal far below the start.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        max_lr (float or list): peak lr per group.
        total_steps (int): number of steps (or give ``epochs`` and ``steps_per_epoch``).
        epochs (int): epochs, with ``steps_per_epoch``.
        steps_per_epoch (int): steps per epoch, with ``epochs``.
        pct_start (float): fraction of the cycle spent rising. Default: 0.3.
        anneal_strategy (str): ``'cos'`` or ``'linear'``.
        cycle_momentum (bool): cycle momentum inversely to the lr. Default: True.
        base_momentum (float or list): lower momentum bound. Default: 0.85.
        max_momentum (float or list): upper momentum bound. Default: 0.95.
        div_factor (float): ``initial_lr = max_lr / div_factor``. Default: 25.
        final_div_factor (float): ``min_lr = initial_lr / final_div_factor``. Default: 1e4.
        three_phase (bool): come back down to ``initial_lr`` before the final annealing.
        last_epoch (int): index of the last batch when resuming. Default: -1.
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True,
                 base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError("Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND "
                             "steps_per_epoch)")
        n = self.total_steps
        rise_end = float(pct_start * n) - 1
        if three_phase:
            self._schedule_phases = [
                dict(end_step=rise_end, start_lr="initial_lr", end_lr="max_lr",
                     start_momentum="max_momentum", end_momentum="base_momentum"),
                dict(end_step=float(2 * pct_start * n) - 2, start_lr="max_lr",
                     end_lr="initial_lr", start_momentum="base_momentum",
                     end_momentum="max_momentum"),
                dict(end_step=n - 1, start_lr="initial_lr", end_lr="min_lr",
                     start_momentum="max_momentum", end_momentum="max_momentum"),
            ]
        else:
            self._schedule_phases = [
                dict(end_step=rise_end, start_lr="initial_lr", end_lr="max_lr",
                     start_momentum="max_momentum", end_momentum="base_momentum"),
                dict(end_step=n - 1, start_lr="max_lr", end_lr="min_lr",
                     start_momentum="base_momentum", end_momentum="max_momentum"),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for peak, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = peak / div_factor
                group["max_lr"] = peak
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _momentum_setup(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        """The lr (and momentum) of the phase containing ``last_epoch``."""
        warn_get_lr(self)
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            last = len(self._schedule_phases) - 1
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == last:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(group[phase["start_momentum"]],
                                           group[phase["end_momentum"]], pct)
                    break
                start = end
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(self, group, mom)
        return lrs
