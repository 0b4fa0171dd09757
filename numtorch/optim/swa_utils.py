"""Weight averaging: ``AveragedModel`` (stochastic weight averaging and exponential moving
averages), the ``SWALR`` schedule and ``update_bn`` (recompute batch-norm statistics for the
averaged weights)."""

import copy
import itertools
import math

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from ._schedulers_base import LRScheduler, format_param, warn_get_lr

__all__ = [
    "SWALR",
    "AveragedModel",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]


_INT_ADDCDIV = ("Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def _is_float(t):
    return t.dtype.is_floating_point or t.dtype.is_complex


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place update of a list of averages: ``ema = decay * ema + (1 - decay) * x``."""
    @no_grad()
    def ema_update(ema_params, current_params, num_averaged):
        for e, c in zip(ema_params, current_params):
            if _is_float(e):
                e.lerp_(c, 1 - decay)
            else:
                e.copy_(e * decay + c * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """An in-place update of a list of running means over ``num_averaged + 1`` models."""
    @no_grad()
    def swa_update(averaged_params, current_params, num_averaged):
        n = num_averaged + 1
        for a, c in zip(averaged_params, current_params):
            if _is_float(a):
                a.lerp_(c, 1 / n)
            elif isinstance(num_averaged, Tensor):
                raise RuntimeError(_INT_ADDCDIV)
            else:
                a.add_(c - a, alpha=1.0 / n)
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """``(ema, x, n) -> decay * ema + (1 - decay) * x``."""
    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """``(avg, x, n) -> avg + (x - avg) / (n + 1)``, the running mean."""
    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters are averages of ``model``'s over time.

    Args:
        model (Module): the model to average (deep-copied).
        device (str or device, optional): where to keep the copy.
        avg_fn (callable, optional): ``avg_fn(averaged, current, n_averaged)`` returning the
            new average of one tensor.
        multi_avg_fn (callable, optional): ``multi_avg_fn(averaged_list, current_list,
            n_averaged)`` updating the averages in place. Without either, the equal-weight
            running mean (SWA).
        use_buffers (bool): average the buffers too (otherwise they are copied from
            ``model`` at each update). Default: False.

    Example:
        >>> net = torch.nn.Linear(2, 2)
        >>> swa = torch.optim.swa_utils.AveragedModel(net)
        >>> swa.update_parameters(net)
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        import numtorch

        self.register_buffer("n_averaged", numtorch.tensor(0, dtype=numtorch.long,
                                                           device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _tensors(self, model):
        if self.use_buffers:
            return list(itertools.chain(model.parameters(), model.buffers()))
        return list(model.parameters())

    @no_grad()
    def update_parameters(self, model):
        """Fold ``model``'s current parameters (and buffers, with ``use_buffers``) into the
        averages; the first call copies them."""
        mine = self._tensors(self.module)
        theirs = [t.detach().to(a.device) for a, t in zip(mine, self._tensors(model))]
        mine = [a.detach() for a in mine]
        n = int(self.n_averaged)
        if n == 0:
            for a, t in zip(mine, theirs):
                a.copy_(t)
        elif self.multi_avg_fn is not None:
            groups = {}
            for a, t in zip(mine, theirs):  # one call per (device, dtype), as in torch
                key = (str(a.device), a.dtype)
                groups.setdefault(key, ([], []))
                groups[key][0].append(a)
                groups[key][1].append(t)
            for (dev, _), (a_list, t_list) in groups.items():
                self.multi_avg_fn(a_list, t_list, self.n_averaged.to(dev))
        else:
            fn = self.avg_fn or get_swa_avg_fn()
            for a, t in zip(mine, theirs):
                a.copy_(fn(a, t, self.n_averaged.to(a.device)))
        if not self.use_buffers:  # keep the buffers in step with the source model
            for b_avg, b in zip(self.module.buffers(), model.buffers()):
                b_avg.detach().copy_(b.detach().to(b_avg.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute the running statistics of every batch-norm layer of ``model`` with one pass
    over ``loader`` (cumulative averages, as after ``momentum=None``).

    Args:
        loader (iterable): batches (a list or tuple batch contributes its first element).
        model (Module): the model (an ``AveragedModel`` works too).
        device (str or device, optional): where to move each batch.
    """
    from ..nn.modules.batchnorm import _BatchNorm

    momenta = {}
    for m in model.modules():
        if isinstance(m, _BatchNorm):
            m.reset_running_stats()
            momenta[m] = m.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for m in momenta:
        m.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for m, momentum in momenta.items():
        m.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` steps, then keep
    it there.

    Args:
        optimizer (Optimizer): the optimizer.
        swa_lr (float or list): the target learning rate (one per group, or one for all).
        anneal_epochs (int): steps of the annealing (0: jump at once). Default: 10.
        anneal_strategy (str): ``"cos"`` or ``"linear"``. Default: ``"cos"``.
        last_epoch (int): the index of the last epoch when resuming. Default: -1.
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr.item() if isinstance(lr, Tensor) else lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @property
    def anneal_func(self):
        return self._cosine_anneal if self._anneal_strategy == "cos" else self._linear_anneal

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        warn_get_lr(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        # undo the previous step's mix to recover the schedule's own starting rate
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev = [self._get_initial_lr(float(g["lr"]), g["swa_lr"], prev_alpha)
                for g in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, prev)]
