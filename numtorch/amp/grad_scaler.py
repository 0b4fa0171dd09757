"""``GradScaler``: loss scaling for low-precision training, with torch's dynamic schedule.

The loss is multiplied by a scale before ``backward`` so that small float16 gradients do not
underflow; ``unscale_`` divides the gradients by it again and notes any inf/NaN, ``step``
skips the optimizer step when one was found, and ``update`` halves the scale after an
overflow or doubles it after ``growth_interval`` clean steps. A ``"cuda"`` scaler on a machine
without a GPU warns and disables itself; a disabled scaler passes every call through.
"""

import collections.abc
import enum
import warnings
from collections import defaultdict

from .. import _creation, _dtype
from .._class_repr import object_repr as _object_repr
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = ["OptState", "GradScaler"]

_NO_SCALE = ("This may indicate your script did not use scaler.scale(loss or outputs) "
             "earlier in the iteration.")
_BAD_NEW_SCALE = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                  "torch.FloatTensor with requires_grad=False.")


class OptState(enum.Enum):
    """Where an optimizer is in the current iteration."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale):
    """Multiply each of ``grads`` by ``inv_scale`` in place; set ``found_inf`` to 1 if any
    gradient holds an inf or NaN."""
    from .. import ops

    with no_grad():
        for g in grads:
            if not bool(ops.isfinite(g).all()):
                found_inf.fill_(1.0)
            g.mul_(inv_scale)


def _amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
                       growth_interval):
    """torch's schedule: back off after an overflow; grow after ``growth_interval`` clean
    steps, unless growing would overflow float32 (then only the count restarts)."""
    with no_grad():
        if found_inf.item():
            scale.mul_(backoff_factor)
            growth_tracker.fill_(0)
            return scale
        successful = growth_tracker.item() + 1
        if successful == growth_interval:
            grown = scale * growth_factor
            if bool(grown.isfinite()):
                scale.copy_(grown)
            successful = 0
        growth_tracker.fill_(successful)
    return scale


class GradScaler:
    """Scale the loss, unscale and check the gradients, and adapt the scale.

    Args:
        device (str): ``"cuda"`` (default) or ``"cpu"``: where the scale tensor lives.
        init_scale (float): starting scale. Default: ``2.0 ** 16``.
        growth_factor (float): multiplier after ``growth_interval`` clean steps (> 1).
        backoff_factor (float): multiplier after a step with inf/NaN gradients (< 1).
        growth_interval (int): clean steps between growths. Default: 2000.
        enabled (bool): False makes every method a pass-through. Default: True.

    Example:
        >>> model = torch.nn.Linear(2, 1)
        >>> opt = torch.optim.SGD(model.parameters(), lr=0.1)
        >>> scaler = torch.amp.GradScaler("cpu")
        >>> scaler.scale(model(torch.ones(1, 2)).sum()).backward()
        >>> scaler.step(opt)
        >>> scaler.update()
        >>> scaler.get_scale()
        65536.0
    """

    __repr__ = _object_repr  # torch's name in the default object repr

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            from .. import cuda

            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not "
                              "available.  Disabling.", stacklevel=2)
                self._enabled = False
        if self._enabled:
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        assert self._scale is not None, f"Attempted {funcname} but _scale is None.  " + _NO_SCALE
        assert self._growth_tracker is not None, (
            f"Attempted {funcname} but _growth_tracker is None.  " + _NO_SCALE)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        assert self._growth_tracker is None, "_growth_tracker initialized before _scale"
        self._scale = _creation.full((), self._init_scale, dtype=_dtype.float32, device=dev)
        self._growth_tracker = _creation.full((), self._init_growth_tracker,
                                              dtype=_dtype.int32, device=dev)

    def scale(self, outputs):
        """``outputs`` (a tensor, or nested lists/tuples/iterables of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device)

        def apply(value):
            if isinstance(value, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(value.device)
                return value * self._scale.to(device=value.device)
            if isinstance(value, collections.abc.Iterable):
                scaled = map(apply, value)
                return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        grads = defaultdict(list)  # device -> gradients there
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype == _dtype.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                grads[param.grad.device].append(param.grad)
        per_device = {}
        for dev, device_grads in grads.items():
            per_device[dev] = found_inf.to(device=dev).clone()
            _amp_foreach_non_finite_check_and_unscale_(device_grads, per_device[dev],
                                                       inv_scale.to(device=dev))
        return per_device

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale (once per iteration), in place."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # the reciprocal in double, as torch computes it, then back to float32
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _creation.full((), 0.0, dtype=_dtype.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf,
                                                             False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale if needed, then ``optimizer.step(...)`` unless a gradient was inf/NaN.

        Returns:
            What ``optimizer.step`` returned, or None when the step was skipped.
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        assert len(state["found_inf_per_device"]) > 0, \
            "No inf checks were recorded for this optimizer."
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Set the scale for the next iteration: ``new_scale`` if given, else by the schedule
        from this iteration's inf/NaN checks."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                assert new_scale.device.type == self._device, _BAD_NEW_SCALE
                assert new_scale.numel() == 1, _BAD_NEW_SCALE
                assert new_scale.requires_grad is False, _BAD_NEW_SCALE
                scale.copy_(new_scale)
        else:
            found = [f.to(device=scale.device) for state in self._per_optimizer_states.values()
                     for f in state["found_inf_per_device"].values()]
            assert len(found) > 0, "No inf checks were recorded prior to update."
            combined = found[0]
            for f in found[1:]:
                combined = combined + f
            _amp_update_scale_(scale, growth_tracker, combined, self._growth_factor,
                               self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def get_scale(self):
        """The current scale as a float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return self._growth_tracker.item()

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """``scale``, the factors, ``growth_interval`` and ``_growth_tracker`` (empty when
        disabled), with torch's keys, so checkpoints move between the libraries."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            assert len(self._per_optimizer_states) == 0, (
                "A GradScaler instance may only be pickled at the beginning of an iteration, "
                "or at the end after scaler.update().")
            # the tensors are rebuilt lazily from these after unpickling
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer):
        scale, _ = self._check_scale_growth_tracker("_check_inf_per_device")
        dummy_inv_scale = _creation.full((), 1.0, dtype=_dtype.float32, device=scale.device)
        found_inf = _creation.full((), 0.0, dtype=_dtype.float32, device=scale.device)
        state = self._per_optimizer_states[id(optimizer)]
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, dummy_inv_scale,
                                                             found_inf, True)
        return state["found_inf_per_device"]

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
