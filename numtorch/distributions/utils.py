"""Helpers shared by the distributions: broadcasting parameters, converting between logits
and probabilities, lazily computed attributes and packing lower triangles into vectors."""

import math
from functools import update_wrapper
from numbers import Number

import numpy as np

import numtorch as torch
import numtorch.nn.functional as F
from .._grad_state import _state as _grad_state

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant


def _broadcast_shape(*shapes):
    """The broadcast of ``shapes`` as a ``torch.Size``; torch's error when they clash."""
    out = []
    for shape in shapes:
        shape = tuple(shape)
        n = max(len(out), len(shape))
        a = [1] * (n - len(out)) + out
        b = [1] * (n - len(shape)) + list(shape)
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor "
                                   f"b ({b[i]}) at non-singleton dimension {i}")
        out = [y if x == 1 else x for x, y in zip(a, b)]
    return torch.Size(out)


def _broadcast_tensors(*tensors):
    """Views of ``tensors`` expanded to their common shape (gradients flow back)."""
    shape = _broadcast_shape(*(t.shape for t in tensors))
    return tuple(t if t.shape == shape else t.expand(shape) for t in tensors)


def broadcast_all(*values):
    """Broadcast numbers and tensors to one shape, returning tensors.

    Numbers become tensors of the dtype and device of the first tensor among ``values`` (the
    default dtype when there is none).

    Raises:
        ValueError: when a value is neither a number nor a tensor.
    """
    if not all(isinstance(v, (torch.Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    like = next((v for v in values if isinstance(v, torch.Tensor)), None)
    if like is None:
        opts = {"dtype": torch.get_default_dtype()}
    else:
        opts = {"dtype": like.dtype, "device": like.device}
    tensors = [v if isinstance(v, torch.Tensor) else torch.tensor(v, **opts) for v in values]
    return _broadcast_tensors(*tensors)


def _broadcast_params(dist, **params):
    """Broadcast ``params`` together (``broadcast_all``) and store each on ``dist`` by name.

    Returns:
        torch.Size: the batch shape: ``()`` when every parameter is a Python number, else the
        broadcast shape.
    """
    tensors = broadcast_all(*params.values())
    for name, t in zip(params, tensors):
        setattr(dist, name, t)
    if all(isinstance(v, Number) for v in params.values()):
        return torch.Size()
    return tensors[0].size()


def _expand_params(dist, cls, batch_shape, instance, *names):
    """``expand`` of a distribution whose state is the tensors (or distributions) ``names``,
    each expanded to ``batch_shape`` on a new instance of ``cls`` (or ``instance``, for a
    subclass), which validates as ``dist`` does."""
    new = dist._get_checked_instance(cls, instance)
    batch_shape = torch.Size(batch_shape)
    for name in names:
        setattr(new, name, getattr(dist, name).expand(batch_shape))
    super(cls, new).__init__(batch_shape, validate_args=False)
    new._validate_args = dist._validate_args
    return new


def _need_probs_or_logits(probs, logits):
    """Torch's error unless exactly one of ``probs`` and ``logits`` is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _set_probs_or_logits(dist, probs, logits, total_count=None):
    """Store the given one of ``probs``/``logits`` on ``dist`` (also as ``dist._param``, the
    tensor ``_new`` copies dtype and device from), broadcast as a tensor; with ``total_count``
    (binomial families) broadcast together with it, the count cast to the parameter's dtype.

    Returns:
        torch.Size: the batch shape: ``()`` for a Python number, else the parameter's shape.
    """
    _need_probs_or_logits(probs, logits)
    name, value = ("probs", probs) if probs is not None else ("logits", logits)
    if total_count is None:
        (param,) = broadcast_all(value)
        shape = torch.Size() if isinstance(value, Number) else param.size()
    else:
        count, param = broadcast_all(total_count, value)
        dist.total_count = count.type_as(param)
        shape = param.size()
    setattr(dist, name, param)
    dist._param = param
    return shape


def _expand_probs_or_logits(dist, new, shape):
    """Give ``new`` (an ``expand`` of ``dist``) whichever of ``probs``/``logits`` ``dist`` has
    computed so far, expanded to ``shape``."""
    for name in ("probs", "logits"):
        if name in dist.__dict__:  # lazy properties store themselves once computed
            param = getattr(dist, name).expand(shape)
            setattr(new, name, param)
            new._param = param


def _standard_normal(shape, dtype, device):
    """Standard normal draws of the given shape, dtype and device."""
    return torch.randn(shape, dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sum ``value`` over its last ``dim`` dimensions (``dim == 0`` returns it unchanged)."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def _bce_with_logits(logits, target):
    """Elementwise ``binary_cross_entropy_with_logits``; 0-d inputs go through as one-element
    vectors (numtorch's loss op mishandles 0-d arrays)."""
    if logits.dim() == 0 and target.dim() == 0:
        return F.binary_cross_entropy_with_logits(logits.reshape(1), target.reshape(1),
                                                  reduction="none").reshape(())
    return F.binary_cross_entropy_with_logits(logits, target, reduction="none")


def _poisson(rate):
    """Poisson draws shaped like ``rate`` (numtorch's sampler fails on 0-d tensors)."""
    return torch.poisson(rate.reshape(-1)).reshape(rate.shape)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: a sigmoid when ``is_binary``, else a softmax over the last
    dimension."""
    if is_binary:
        return torch.sigmoid(logits)
    return F.softmax(logits, dim=-1)


_EPS = {}  # dtype -> its machine epsilon (a finfo per log_prob call costs more than the clamp)


def clamp_probs(probs):
    """Keep probabilities a machine epsilon away from 0 and 1 so their logs stay finite."""
    dt = probs.dtype
    eps = _EPS.get(dt)
    if eps is None:
        eps = _EPS[dt] = torch.finfo(dt).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities: log-odds when ``is_binary``, else log-probabilities."""
    ps = clamp_probs(probs)
    if is_binary:
        return torch.log(ps) - torch.log1p(-ps)
    return torch.log(ps)


class lazy_property:
    """A read-only attribute computed on first access and then stored on the instance.

    Accessed on the class it returns itself; inside ``torch.enable_grad`` so a parameter
    derived under ``no_grad`` (for example while sampling) still keeps its graph.
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        if _grad_state.grad:  # grad mode already on: enable_grad would change nothing
            value = self.wrapped(instance)
        else:
            with torch.enable_grad():
                value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a ``lazy_property`` looks like on its class: both kinds, so tools that inspect
    properties (and the constraint checks) recognise it."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of the lower triangle (up to diagonal offset ``diag``) of the last two
    dimensions of ``mat``, row by row, as a vector."""
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = np.tril_indices(n, k=diag, m=n)
    idx = torch.tensor(rows * n + cols, device=mat.device)
    return mat.reshape(mat.shape[:-2] + (n * n,))[..., idx]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of :func:`tril_matrix_to_vec`: a square matrix whose lower triangle (up to
    ``diag``) holds ``vec`` and whose other entries are zero."""
    m = vec.shape[-1]
    # the side D solves (D + diag)(D + diag + 1)/2 = m (diag <= 0), or the same count with the
    # triangle clipped by the matrix (diag > 0): D^2 + (2 diag + 1) D - diag (diag + 1) = 2 m
    disc = 1 + 8 * m if diag <= 0 else (2 * diag + 1) ** 2 + 4 * diag * (diag + 1) + 8 * m
    root = (math.sqrt(disc) - (2 * diag + 1)) / 2
    n = int(round(root))
    if abs(root - n) > 1e-9:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as the "
                         "lower triangular part of a square D x D matrix.")
    rows, cols = np.tril_indices(n, k=diag, m=n)
    idx = torch.tensor(rows * n + cols, device=vec.device)
    out = torch.zeros(vec.shape[:-1] + (n * n,), dtype=vec.dtype, device=vec.device)
    out = out.index_add(-1, idx, vec)
    return out.reshape(vec.shape[:-1] + (n, n))
