"""gradcheck / gradgradcheck: compare analytic gradients with central finite differences.

Each check projects onto random directions (a random cotangent ``u`` on the outputs and a
random direction ``v`` on the inputs), so it costs two function evaluations per direction
instead of two per input element: ``u . (J v)`` from finite differences must equal
``(J^T u) . v`` from autograd.
"""

import numpy as np

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytic and numerical gradients disagree."""


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _diff_inputs(inputs):
    from .._tensor import Tensor

    return [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              n_directions=3, seed=0, **unused):
    """Check ``func``'s first derivatives at ``inputs`` (float64 tensors requiring grad).

    Args:
        func (callable): maps the input tensors to a tensor or tuple of tensors.
        inputs (Tensor or tuple): arguments of ``func``.
        eps (float): finite-difference step.
        atol, rtol (float): tolerances on the projected derivative.
        raise_exception (bool): raise GradcheckError on failure instead of returning False.
        n_directions (int): how many random projections to test.

    Returns:
        bool: True when every projection agrees.
    """
    from .. import autograd, ops

    inputs = _tuple(inputs)
    diff = _diff_inputs(inputs)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for t in diff:
        if t.dtype.name != "float64":
            import warnings

            warnings.warn(f"gradcheck: input of dtype {t.dtype} is not float64; finite "
                          "differences will be imprecise", UserWarning, stacklevel=2)
    rng = np.random.default_rng(seed)
    outs = _tuple(func(*inputs))
    keep = [k for k, o in enumerate(outs) if o.requires_grad]
    outs_diff = [outs[k] for k in keep]

    def evaluate():
        # grad mode stays on: ``func`` may itself differentiate (gradgradcheck's vjp)
        res = _tuple(func(*inputs))
        return [res[k]._array.copy() for k in keep]

    for _ in range(n_directions):
        # the random directions live where the tensors do (a GPU's, for CUDA tensors)
        us = [ops.tensor_from_array(_draw(rng, o)) for o in outs_diff]
        vs = [_draw(rng, t) for t in diff]
        analytic_grads = autograd.grad(outs_diff, diff, us, retain_graph=True,
                                       allow_unused=True)
        analytic = sum(float((g._array * v).sum()) for g, v in zip(analytic_grads, vs)
                       if g is not None)
        originals = [t._array.copy() for t in diff]
        try:
            for t, v, o in zip(diff, vs, originals):
                t._array[...] = o + eps * v
            plus = evaluate()
            for t, v, o in zip(diff, vs, originals):
                t._array[...] = o - eps * v
            minus = evaluate()
        finally:
            for t, o in zip(diff, originals):
                t._array[...] = o
        numeric = sum(float(((p - m) / (2 * eps) * u._array).sum())
                      for p, m, u in zip(plus, minus, us))
        if not abs(analytic - numeric) <= atol + rtol * abs(numeric):
            if raise_exception:
                raise GradcheckError(f"Jacobian mismatch: the analytic projection {analytic!r} "
                                     f"differs from the numerical one {numeric!r}")
            return False
    return True


def _draw(rng, like):
    """Standard normal values of ``like``'s shape and dtype, on ``like``'s device."""
    from .. import backend

    return backend.to_device(rng.standard_normal(like.shape).astype(like._array.dtype),
                             like.device)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, n_directions=3, seed=0, **unused):
    """Check ``func``'s second derivatives by gradchecking its vector-Jacobian product."""
    from .. import autograd, ops

    inputs = _tuple(inputs)
    rng = np.random.default_rng(seed + 1)
    outs = _tuple(func(*inputs))
    if grad_outputs is None:
        grad_outputs = tuple(
            ops.tensor_from_array(_draw(rng, o)).requires_grad_() for o in outs
            if o.requires_grad)
    grad_outputs = _tuple(grad_outputs)
    n_in = len(inputs)

    def vjp(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = [o for o in _tuple(func(*ins)) if o.requires_grad]
        diff = _diff_inputs(ins)
        gs = autograd.grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(vjp, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, n_directions=n_directions, seed=seed)
