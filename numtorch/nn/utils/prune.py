"""Pruning: reparametrise ``module.<name>`` as ``<name>_orig * <name>_mask``.

Applying a method moves the parameter to ``<name>_orig``, stores the mask as the buffer
``<name>_mask`` and registers the method itself as a forward pre-hook that recomputes
``module.<name>`` before every call. Pruning the same tensor again wraps the methods in a
:class:`PruningContainer`, which prunes only the entries (or channels) still alive.
Masks carry no gradient, so they are computed on raw arrays.
"""

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import numpy as np

from ... import _creation, _sampling, ops
from ..._class_repr import object_repr as _object_repr
from ..._tensor import _make
from ...autograd.grad_mode import no_grad
from ...backend import xp_of
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask",
           "identity", "random_unstructured", "l1_unstructured", "random_structured",
           "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """Base class of pruning methods: subclasses define ``compute_mask`` and
    ``PRUNING_TYPE`` (``"unstructured"``, ``"structured"`` or ``"global"``)."""

    __repr__ = _object_repr  # torch's name in the default object repr

    _tensor_name: str

    def __call__(self, module, inputs):
        """Forward pre-hook: recompute ``module.<name>`` from its original and its mask."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for tensor ``t``, given the mask already applied to it."""

    def apply_mask(self, module):
        """``<name>_orig * <name>_mask`` of ``module`` (differentiable in the original).

        Args:
            module: a module pruned by this method.
        """
        assert self._tensor_name is not None, \
            f"Module {module} has to be pruned"  # same guard as torch
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)`` and return the method.

        Args:
            module: the module holding the tensor.
            name: the parameter's name.
            importance_scores: optional Tensor (same shape) that decides the mask instead
                of the parameter's values.
        """
        old_method = None
        found = 0
        hook_keys = []
        for k, hook in module._forward_pre_hooks.items():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old_method = hook
                hook_keys.append(k)
                found += 1
        if found > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor "
                                 f"{name} of module {module}. Use a PruningContainer.")
        for k in hook_keys:
            del module._forward_pre_hooks[k]

        orig = getattr(module, name)
        if importance_scores is not None:
            if tuple(importance_scores.shape) != tuple(orig.shape):
                raise AssertionError(f"importance_scores should have the same shape as "
                                     f"parameter {name} of {module}")
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old_method is not None:
            if isinstance(old_method, PruningContainer):
                container = old_method
            else:
                container = PruningContainer(old_method)
            container.add_pruning_method(method)
            method = container
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _creation.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            scores = importance_scores if importance_scores is not None else orig
            with no_grad():
                mask = method.compute_mask(scores.detach(), default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes for it (no module involved).

        Args:
            t: the tensor to prune.
            default_mask: the mask already applied (all ones by default).
            importance_scores: optional Tensor deciding the mask instead of ``t``.
        """
        if importance_scores is not None:
            if tuple(importance_scores.shape) != tuple(t.shape):
                raise AssertionError("importance_scores should have the same shape as tensor t")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else _creation.ones_like(t)
        with no_grad():
            mask = self.compute_mask(importance_scores.detach(), default_mask=default_mask)
        return t * mask

    def remove(self, module):
        """Make the pruning permanent: ``module.<name>`` becomes a plain parameter again."""
        assert self._tensor_name is not None, f"Module {module} has to be pruned before " \
                                              f"pruning can be removed"
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods on one tensor; the last one prunes what is still alive."""

    def __init__(self, *args):
        self._pruning_methods = tuple()
        if args:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method`` (it must act on the same tensor name)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and getattr(self, "_tensor_name", None) != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{getattr(self, '_tensor_name', None)}' to PruningContainer. "
                f"Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """Apply the newest method to the part of ``t`` the previous masks kept.

        Unstructured methods see the surviving entries as a 1-D tensor, structured ones the
        surviving channels along their ``dim``, global ones the whole tensor.
        """
        method = self._pruning_methods[-1]
        new_mask = default_mask.clone().to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            slc = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to "
                                     "have the attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim if method.dim >= 0 else n_dims + method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            others = [d for d in range(n_dims) if d != dim]
            keep = default_mask.sum(dim=others) != 0 if others else default_mask != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep
            slc = tuple(slc)
        elif kind == "global":
            slc = tuple([slice(None)] * t.dim())
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask stays all ones (useful to reparametrise only)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        """The given mask, unchanged."""
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Reparametrise ``module.<name>`` with an all-ones mask."""
        return super().apply(module, name)


def _validate_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral)
            and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or "
                         "a non-negative integer")


def _validate_amount(amount, tensor_size):
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters "
                         f"to prune={tensor_size}")


def _validate_structured(t):
    shape = tuple(t.shape)
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {len(shape)} dims")


def _validate_dim(t, dim):
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _n_to_prune(amount, tensor_size):
    """How many of ``tensor_size`` entries to prune (torch's error when an int ``amount`` is
    more than there are)."""
    _validate_amount(amount, tensor_size)
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _prune_smallest(amount, t, default_mask, scores):
    """``default_mask`` with the entries of the ``amount`` smallest ``scores()`` (computed only
    when something is pruned, so no random numbers are drawn otherwise) set to zero."""
    k = _n_to_prune(amount, t.numel())
    if k == 0:
        return default_mask.clone()
    return _zero_smallest(default_mask, scores(), k)


def _zero_smallest(mask, scores, k):
    """Zero (in ``mask``'s flat view) the entries of the ``k`` smallest ``scores``."""
    xp = xp_of(scores)
    flat = scores.reshape(-1)
    idx = xp.argpartition(flat, k - 1)[:k] if k < flat.size else xp.arange(flat.size)
    out = mask._array.copy().reshape(-1)
    out[idx] = 0
    return _make(out.reshape(mask.shape))


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries (an int, or a fraction of the tensor) chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """``default_mask`` with ``amount`` further entries, drawn uniformly, set to zero."""
        # torch prunes the entries with the largest draws: negated, the same stream prunes
        # the same entries after the same seed.
        return _prune_smallest(self.amount, t, default_mask,
                               lambda: -_sampling.rand_like(t)._array)

    @classmethod
    def apply(cls, module, name, amount):
        """Prune ``module.<name>`` at random."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest magnitude."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the ``amount`` smallest ``|t|`` entries set to zero."""
        return _prune_smallest(self.amount, t, default_mask,
                               lambda: xp_of(t._array).abs(t._array))

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Prune the smallest-magnitude entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(t, dim, keep):
    """A mask of ``t``'s shape that is one on the channels ``keep`` (bools or indices)."""
    xp = xp_of(t._array)
    mask = xp.zeros(t.shape, dtype=t._array.dtype)
    slc = [slice(None)] * t.dim()
    slc[dim] = keep
    mask[tuple(slc)] = 1
    return mask


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """``default_mask`` times a mask that zeroes ``amount`` random channels."""
        _validate_structured(t)
        _validate_dim(t, self.dim)
        size = t.shape[self.dim]
        k = _n_to_prune(self.amount, size)
        if k == 0:
            return default_mask
        prob = _sampling.rand(size, dtype=t.dtype)._array
        threshold = np.partition(prob, k - 1)[k - 1]
        mask = _channel_mask(t, self.dim, prob > threshold)
        return _make(mask * default_mask._array.astype(mask.dtype))

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Prune random channels of ``module.<name>``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest ``L_n`` norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """``default_mask`` times a mask keeping the channels of largest ``L_n`` norm."""
        _validate_structured(t)
        _validate_dim(t, self.dim)
        size = t.shape[self.dim]
        k = _n_to_prune(self.amount, size)
        dim = self.dim if self.dim >= 0 else t.dim() + self.dim
        others = [d for d in range(t.dim()) if d != dim]
        norm = ops.norm(t, p=self.n, dim=others).cpu()._array  # a few numbers: host-side pick
        if k == 0:
            return default_mask
        keep = np.argpartition(-norm, size - k - 1)[:size - k] if size - k > 0 else []
        mask = _channel_mask(t, dim, np.asarray(keep, dtype=np.int64))
        return _make(mask * default_mask._array.astype(mask.dtype))

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Prune the channels of ``module.<name>`` with the smallest ``L_n`` norm."""
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes with a mask given by the user."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        """``default_mask`` times the user's mask."""
        assert tuple(default_mask.shape) == tuple(self.mask.shape)
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Prune ``module.<name>`` with ``mask``."""
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Reparametrise ``module.<name>`` with an all-ones mask; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>``; returns ``module``.

    Args:
        module: the module holding the tensor.
        name: the parameter's name.
        amount: an int (how many entries) or a float in [0, 1] (which fraction).
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` of smallest magnitude.

    Args:
        module: the module holding the tensor.
        name: the parameter's name.
        amount: an int (how many entries) or a float in [0, 1] (which fraction).
        importance_scores: optional Tensor ranking the entries instead of their values.

    Example:
        >>> import numtorch as torch
        >>> m = torch.nn.utils.prune.l1_unstructured(torch.nn.Linear(4, 2), "weight", 3)
        >>> int((m.weight == 0).sum())
        3
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` channels along ``dim`` of ``module.<name>`` of least L_n norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune several tensors together, ranking all their entries in one pool.

    Args:
        parameters: iterable of ``(module, name)`` pairs.
        pruning_method: an unstructured pruning class, e.g. :class:`L1Unstructured`.
        importance_scores: optional dict from ``(module, name)`` to score Tensors.
        **kwargs: passed to ``pruning_method`` (e.g. ``amount``).
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    with no_grad():
        scores = parameters_to_vector(
            [importance_scores.get((m, n), getattr(m, n)).detach() for m, n in parameters])
        default_mask = parameters_to_vector(
            [getattr(m, n + "_mask", _creation.ones_like(getattr(m, n))) for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the '
                        f"`pruning_method`. Found method {pruning_method} of type "
                        f"{method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    with no_grad():
        final = container.compute_mask(scores, default_mask)
    pointer = 0
    for m, n in parameters:
        param = getattr(m, n)
        size = param.numel()
        custom_from_mask(m, n, mask=final[pointer:pointer + size].view_as(param))
        pointer += size


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` with the given mask; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent and drop the mask and hook.

    Raises:
        ValueError: when ``module.<name>`` is not pruned.
    """
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    """Whether ``module`` or any submodule carries a pruning hook."""
    for _, sub in module.named_modules():
        for hook in sub._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False
