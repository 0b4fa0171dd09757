"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``.

Gradients are rescaled in place on their raw arrays: clipping is bookkeeping between
``backward`` and ``step`` and must never record an autograd graph.
"""

import math
import warnings

import numpy as np

from ... import _dtype, backend
from ...backend import xp_of
from ..._tensor import Tensor, _make
from ...autograd.grad_mode import no_grad
from ...ops import _norm2_order

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _as_list(tensors):
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def _is_half(np_dtype):
    """float16 or bfloat16: torch accumulates their norms in float32 and rounds once."""
    return _dtype.np_kind(np_dtype) == "f" and np_dtype.itemsize == 2


def _vector_norm(xp, a, p, exact=True):
    """The ``p``-norm of all entries of array ``a``, as torch.linalg.vector_norm defines it
    (``exact``: a 2-norm summed in torch's order, else by one dot, ~40x faster). A float16 or
    bfloat16 array is summed in float32 (its squares overflow float16 past 256) and the norm
    rounded to its dtype, as torch's kernel does."""
    if _is_half(a.dtype):
        return xp.asarray(_vector_norm(xp, a.astype(np.float32), p, exact), dtype=a.dtype)
    if a.dtype.kind == "c":  # the norm of the magnitudes, real (float32 for complex64)
        a = xp.abs(a)
    if a.size == 0:
        if math.isinf(p):
            raise RuntimeError(f"clip_grad_norm_: cannot compute the {p} norm on an empty "
                               "tensor because the operation does not have an identity")
        return xp.zeros((), dtype=a.dtype)
    mag = xp.abs(a) if p != 2 or a.dtype.kind == "c" else a
    if p == math.inf:
        return mag.max()
    if p == -math.inf:
        return mag.min()
    if p == 0:
        return xp.asarray(xp.count_nonzero(a), dtype=a.dtype)
    if p == 1:
        return mag.sum()
    if p == 2 and exact and _norm2_order.applies(a, tuple(range(a.ndim))):
        return xp.sqrt(_norm2_order.sumsq_trailing(a, tuple(range(a.ndim)), False))
    if p == 2:  # |a|^2 == a*a exactly for real entries: the dot of ``a`` needs no abs pass
        flat = (mag if a.dtype.kind == "c" else a).ravel()
        return xp.sqrt(xp.vdot(flat, flat).real).astype(a.dtype)
    return (mag ** p).sum() ** (1.0 / p)


def _refuse_sparse(grads, op):
    """torch's error for a sparse COO gradient (``nn.Embedding(sparse=True)``): its norm and
    clamp kernels have no sparse version."""
    for g in grads:
        if g is not None and g.is_sparse:
            from ..._sparse import _unsupported

            raise _unsupported(op)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of all given tensors taken together, as if they were one long vector.

    Args:
        tensors: a Tensor or an iterable of Tensors (typically gradients).
        norm_type: the order of the norm; ``inf`` for the largest magnitude.
        error_if_nonfinite: raise when the total norm is ``nan`` or ``inf``.
        foreach: accepted for compatibility; the computation is the same either way.

    Returns:
        A 0-d Tensor (zero when ``tensors`` is empty).
    """
    norm_type = float(norm_type)
    tensors = [t for t in _as_list(tensors) if t is not None]
    _refuse_sparse(tensors, "linalg_vector_norm")
    arrays = [t._array for t in tensors]
    if not arrays:
        return _make(np.zeros((), dtype=_dtype.get_default_dtype().np))
    xp = xp_of(arrays[0])
    # torch's summation order costs ~2 ns an element in NumPy: kept for small models, whose
    # programs print the norm; large ones take the dot (their last bit may differ)
    exact = sum(a.size for a in arrays) <= _norm2_order.EXACT_MAX
    per = [_vector_norm(xp, a, norm_type, exact) for a in arrays]
    dtype = np.result_type(*[p.dtype for p in per])
    total = _vector_norm(xp, xp.stack([xp.asarray(p, dtype=dtype) for p in per]), norm_type)
    if error_if_nonfinite and not bool(xp.isfinite(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    total = xp.asarray(total, dtype=dtype)
    if backend.is_meta(arrays[0]):  # meta gradients: a meta norm (the arithmetic left meta)
        total = backend.to_device(total, backend.META)
    return _make(total)


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale every gradient in place by ``min(1, max_norm / (total_norm + 1e-6))``.

    Args:
        parameters: a Tensor or an iterable of Tensors whose ``.grad`` is scaled.
        max_norm: the largest allowed total norm.
        total_norm: the total norm, e.g. from :func:`get_total_norm`.
        foreach: accepted for compatibility.
    """
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    total = total_norm._array if isinstance(total_norm, Tensor) else np.asarray(total_norm)
    if isinstance(total_norm, Tensor) and _is_half(total.dtype):
        # torch's coefficient is half-precision tensor arithmetic: each op rounded to it
        dt = total.dtype

        def r(v):
            return float(np.asarray(np.float32(v)).astype(dt))
        f32 = np.float32
        coef = min(r(f32(max_norm) / f32(r(f32(float(total)) + f32(1e-6)))), 1.0)
    elif isinstance(total_norm, Tensor) and total.dtype.kind == "f":
        # torch's coefficient is tensor arithmetic in the norm's dtype (float32 roundings)
        dt = total.dtype.type
        coef = min(dt(max_norm) / (dt(float(total)) + dt(1e-6)), dt(1.0))
    else:
        coef = min(float(max_norm) / (float(total) + 1e-6), 1.0)
    # a non-finite norm scales to nan/zero as in torch, without NumPy's warning about it
    with no_grad(), np.errstate(invalid="ignore", over="ignore"):
        plain = []  # (array, tensor) of plain float gradients that own their memory
        for g in grads:
            a = g._array
            if type(a) is np.ndarray and a.dtype.kind == "f" and a.dtype.itemsize >= 4 and \
                    type(g) is Tensor and type(g._vc) is list and a.flags.writeable:
                # what mul_ does to a plain float gradient, without its dispatch (a few
                # microseconds per parameter, a model's worth per step)
                if a.base is None:
                    plain.append((a, g))
                    continue
                np.multiply(a, a.dtype.type(coef), out=a)  # the scalar in the grad's dtype
                g._vc[0] += 1
            else:
                g.mul_(coef)
        if plain:
            _scale_all(plain, coef)


def _scale(job, part):
    a, coef = job[0], job[2]
    np.multiply(a, a.dtype.type(coef), out=a)  # the scalar in the grad's dtype


def _scale_all(plain, coef):
    """Multiply the arrays of ``plain`` ((array, tensor) pairs, each array owning its memory)
    by ``coef`` in place, then count the writes in the tensors' versions. The multiplies go
    to the intra-op threads as contiguous runs of parameters when the model's gradients are
    large enough (``optim.optimizer.run_jobs``: nanoGPT's ~800K values, one single-core pass
    of ~0.3 ms per step otherwise); an array listed twice keeps the order of one thread.
    Elementwise products of distinct arrays, so the same bits however they are shared out."""
    from ...optim.optimizer import run_jobs

    run_jobs(_scale, [(a, g, coef) for a, g in plain], [a.size for a, _ in plain])
    for _, g in plain:
        g._vc[0] += 1


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Rescale gradients in place so that their total norm is at most ``max_norm``.

    Args:
        parameters: a Tensor or an iterable of Tensors with gradients.
        max_norm: the largest allowed total norm.
        norm_type: the order of the norm (``inf`` for the largest magnitude).
        error_if_nonfinite: raise a RuntimeError when the total norm is not finite.
        foreach: accepted for compatibility.

    Returns:
        The total norm of the gradients before clipping, as a 0-d Tensor.

    Example:
        >>> import numtorch as torch
        >>> p = torch.nn.Parameter(torch.ones(4))
        >>> p.grad = torch.full((4,), 3.0)
        >>> torch.nn.utils.clip_grad_norm_([p], 1.0)
        tensor(6.)
    """
    params = _as_list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of :func:`clip_grad_norm_` (warns, then clips the same way)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient in place to ``[-clip_value, clip_value]``.

    Args:
        parameters: a Tensor or an iterable of Tensors with gradients.
        clip_value: the largest allowed magnitude of a gradient entry.
        foreach: accepted for compatibility.
    """
    clip_value = float(clip_value)
    parameters = _as_list(parameters)
    _refuse_sparse([p.grad for p in parameters], "clamp_min_")
    with no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
