"""gradcheck / gradgradcheck: autograd's derivatives against central finite differences.

The default (slow) mode builds, for every pair of a differentiable output and an input that
requires grad, the whole Jacobian twice: numerically, by nudging one input element at a time
by ``eps`` either way, and analytically, with one backward pass per output element (one-hot
cotangents; rows are input elements, columns output elements, as torch lays them out). The
failure messages print both matrices the way torch does, so a user reading a failing check
sees the same report under either library. ``fast_mode=True`` compares one random projection
``u . (J v)`` per pair instead and, on a mismatch, recomputes the slow Jacobians for the
report. Complex outputs are checked as their imaginary and then their real part; a complex
input's numerical entry is ``d/dx + 1j d/dy``, the convention of torch's conjugate Wirtinger
gradients.

Beyond the values, a check runs each backward twice (``nondet_tol`` bounds the difference), a
backward with zero cotangents must give zero gradients, an output that does not require grad
must not depend on the inputs, and ``check_forward_ad`` builds the Jacobian with forward-mode
duals too. numtorch's engine always hands a backward materialised (zero) gradients, never
undefined ones, so ``check_undefined_grad`` has nothing further to test.
"""

import warnings

import numpy as np

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients disagree."""


_NOT_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output "
    "multiple times gives different values, although analytical gradient matches numerical "
    "gradient.The tolerance for nondeterminism was {tol}.\n\n"
    "NOTE: If your op relies on non-deterministic operations i.e., it is listed here:\n"
    "https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\n"
    "this failure might be expected.\n\n"
    "If you are adding a new operator, please file an issue and then use one of the\n"
    "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
    "If the test\n"
    "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
    "  with `nondet_tol=<tol>` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
    "  to have `gradcheck_nondet_tol=<tol>`.\n"
    "- is a Module test (e.g., in common_nn.py), then modify the corresponding\n"
    "  module_test entry to have `gradcheck_nondet_tol=<tol>`\n")

_FAST_MODE_NOTE = (
    "\n\nThe above quantities relating the numerical and analytical jacobians are computed \n"
    "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
    "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
    "Numerical:\n {num}\nAnalytical:\n{an}\n\n"
    "The max per-element difference (slow mode) is: {diff}.\n")


_UNDEFINED = ('Expected backward function to handle undefined output grads. Please look at '
              '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"')


class _Failed(Exception):
    """Internal: carries a failure message up to the raise_exception decision."""


def _tuple(x):
    from .._tensor import Tensor

    if isinstance(x, Tensor):
        return (x,)
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _is_tensor(x):
    from .._tensor import Tensor

    return isinstance(x, Tensor)


def _differentiable(t):
    return _is_tensor(t) and (t.dtype.is_floating_point or t.dtype.is_complex)


def _check_inputs(inputs):
    diff = []
    for idx, t in enumerate(inputs):
        if not (_is_tensor(t) and t.requires_grad):
            continue
        if t.dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{idx} requires gradient and is not a double precision "
                          "floating point or complex. This check will likely fail if all the "
                          "inputs are not of double precision floating point or complex. ",
                          UserWarning, stacklevel=2)
        if any(st == 0 and sz > 1 for st, sz in zip(t.stride(), t.shape)):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck.")
        diff.append(idx)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    return diff


def _real_outputs(outputs):
    """(label prefix, output index, real tensor) per checked output: a complex output becomes
    its imaginary part, then its real part."""
    parts = []
    for j, o in enumerate(outputs):
        if not _differentiable(o):
            continue
        if o.dtype.is_complex:
            parts.append(("While considering the imaginary part of complex outputs only, ", j,
                          lambda t: t.imag))
            parts.append(("While considering the real part of complex outputs only, ", j,
                          lambda t: t.real))
        else:
            parts.append(("", j, lambda t: t))
    return parts


def _evaluate(func, inputs, parts):
    outs = _tuple(func(*inputs))
    return [view(outs[j]).detach().clone() for _, j, view in parts]


def _numerical(func, inputs, i, parts, eps):
    """Numerical Jacobians (input ``i``'s elements x each part's elements), one per part."""
    import numtorch as nt

    x = inputs[i]
    # written straight into the array: a perturbation is not a version bump (the graph of the
    # first call must stay usable for the analytical Jacobian)
    data = x._array
    n = x.numel()
    columns = [[] for _ in parts]
    steps = (eps, eps * 1j) if x.dtype.is_complex else (eps,)
    for k in range(n):
        index = np.unravel_index(k, tuple(x.shape)) if x.dim() else ()
        original = data[index].copy()
        derivative = [None] * len(parts)
        for step in steps:
            data[index] = original - step
            minus = _evaluate(func, inputs, parts)
            data[index] = original + step
            plus = _evaluate(func, inputs, parts)
            data[index] = original
            for p, (b, a) in enumerate(zip(plus, minus)):
                d = ((b - a) / (2 * eps)).reshape(-1)
                if step != eps:
                    d = d * 1j
                derivative[p] = d if derivative[p] is None else derivative[p] + d
        for p, d in enumerate(derivative):
            columns[p].append(d)
    if n:
        return [nt.stack(c) for c in columns]
    outs = _evaluate(func, inputs, parts)
    return [nt.zeros(0, o.numel(), dtype=o.dtype if not x.dtype.is_complex else x.dtype,
                     device=x.device)
            for o in outs]


def _analytical(outs, inputs, diff, parts):
    """Analytical Jacobians per (part, input) pair from one-hot cotangents on the outputs
    ``outs``, computed twice (the second copy measures reentrancy)."""
    import numtorch as nt
    from numtorch import autograd

    runs = []
    for _ in range(2):
        table = {}
        for p, (_, j, view) in enumerate(parts):
            out = view(outs[j])
            cols = {i: [] for i in diff}
            flat = out.numel()
            for e in range(flat if out.requires_grad else 0):
                onehot = nt.zeros(flat, dtype=out.dtype, device=out.device)
                onehot[e] = 1
                grads = autograd.grad(out, [inputs[i] for i in diff], onehot.reshape(out.shape),
                                      retain_graph=True, allow_unused=True)
                for i, g in zip(diff, grads):
                    if g is None:
                        g = nt.zeros(inputs[i].numel(), dtype=inputs[i].dtype,
                                     device=inputs[i].device)
                    cols[i].append(g.detach().reshape(-1))
            for i in diff:
                table[p, i] = (nt.stack(cols[i], dim=1) if cols[i]
                               else nt.zeros(inputs[i].numel(), flat, dtype=inputs[i].dtype,
                                        device=inputs[i].device))
        runs.append(table)
    return runs


def _close(a, n, rtol, atol):
    import numtorch as nt

    if a.numel() == 0:
        return True
    dtype = nt.promote_types(a.dtype, n.dtype)
    return bool(nt.allclose(a.to(dtype), n.to(dtype), rtol=rtol, atol=atol))


def _mismatch(prefix, j, i, num, an, forward=False):
    kind = "Jacobian computed with forward mode mismatch" if forward else "Jacobian mismatch"
    return (f"{prefix}{kind} for output {j} with respect to input {i},\n"
            f"numerical:{num}\nanalytical:{an}\n")


def _check_zero_dependence(func, inputs, diff, outputs, eps):
    """An output that does not require grad must not change with the inputs."""
    for j, o in enumerate(outputs):
        if not _differentiable(o) or o.requires_grad:
            continue
        for i in diff:
            num = _numerical(func, inputs, i, [("", j, lambda t: t)], eps)[0]
            if num.numel() and bool((num != 0).any()):
                raise _Failed("Numerical gradient for function expected to be zero")


def _check_backward(func, inputs, outputs, diff, parts, eps, rtol, atol, nondet_tol):
    numerical = {i: _numerical(func, inputs, i, parts, eps) for i in diff}
    first, second = _analytical(outputs, inputs, diff, parts)
    for p, (prefix, j, _) in enumerate(parts):
        for i in diff:
            num, an = numerical[i][p], first[p, i]
            if not _close(an, num, rtol, atol):
                raise _Failed(_mismatch(prefix, j, i, num, an))
    for key, an in first.items():
        again = second[key]
        if an.numel() and float((an - again).abs().max()) > nondet_tol:
            raise _Failed(_NOT_REENTRANT.format(tol=nondet_tol))
    return numerical, first


def _check_forward(func, inputs, diff, parts, numerical, rtol, atol):
    import numtorch as nt
    from . import forward_ad as fwAD

    for i in diff:
        x = inputs[i]
        rows = [[] for _ in parts]
        for k in range(x.numel()):
            tangent = nt.zeros(x.numel(), dtype=x.dtype, device=x.device)
            tangent[k] = 1
            with fwAD.dual_level():
                dual = list(inputs)
                dual[i] = fwAD.make_dual(x.detach(), tangent.reshape(x.shape))
                outs = _tuple(func(*dual))
                for p, (_, j, view) in enumerate(parts):
                    out = view(outs[j])
                    t = fwAD.unpack_dual(out).tangent
                    rows[p].append(nt.zeros(out.numel(), dtype=out.dtype, device=out.device) if t is None
                                   else t.detach().reshape(-1).clone())
        for p, (prefix, j, _) in enumerate(parts):
            an = nt.stack(rows[p]) if rows[p] else numerical[i][p]
            if not _close(an, numerical[i][p], rtol, atol):
                raise _Failed(_mismatch(prefix, j, i, numerical[i][p], an, forward=True))


def _check_mul_by_grad_output(outputs, inputs, diff, message):
    """A backward given zero cotangents must give zero gradients."""
    import numtorch as nt
    from numtorch import autograd

    outs = [o for o in outputs if _differentiable(o) and o.requires_grad]
    if not outs:
        return
    zeros = [nt.zeros_like(o) for o in outs]
    grads = autograd.grad(outs, [inputs[i] for i in diff], zeros, retain_graph=True,
                          allow_unused=True)
    for g in grads:
        if g is not None and bool((g != 0).any()):
            raise _Failed(message)


def _check_undefined_grad(func, inputs, diff):
    """torch also runs each output's backward with an undefined cotangent (and, with several
    outputs, all of them at once); numtorch's engine hands backward functions zeros instead
    of undefined gradients, so each round is a fresh call with zero cotangents."""
    outputs = _tuple(func(*inputs))
    live = [o for o in outputs if _differentiable(o) and o.requires_grad]
    rounds = len(live) + 1 if len(live) > 1 else len(live)
    for r in range(rounds):
        if r:
            outputs = _tuple(func(*inputs))
        _check_mul_by_grad_output(outputs, inputs, diff, _UNDEFINED)


def _check_batched(outs, inputs, diff, parts):
    """The batched cotangent path must give each cotangent's gradient."""
    import numtorch as nt
    from numtorch import autograd

    for _, j, view in parts:
        out = view(outs[j])
        if not out.requires_grad or out.numel() == 0:
            continue
        batch = nt.eye(out.numel(), dtype=out.dtype, device=out.device).reshape(out.numel(), *out.shape)
        batched = autograd.grad(out, [inputs[i] for i in diff], batch, retain_graph=True,
                                allow_unused=True, is_grads_batched=True)
        for e in range(out.numel()):
            single = autograd.grad(out, [inputs[i] for i in diff], batch[e],
                                   retain_graph=True, allow_unused=True)
            for b, s in zip(batched, single):
                if (b is None) != (s is None) or (b is not None and not bool(
                        nt.allclose(b[e], s))):
                    raise _Failed("While computing batched gradients, got: batched grad "
                                  "does not match the gradient of each cotangent")


def _projection_failure(func, inputs, outs, diff, parts, eps, rtol, atol, nondet_tol,
                        seed=0):
    """Fast mode: one random projection per (part, input) pair; (part, input, numerical,
    analytical) of the first pair that disagrees, or None."""
    import numtorch as nt
    from numtorch import autograd

    rng = np.random.default_rng(seed)
    for p, (prefix, j, view) in enumerate(parts):
        out = view(outs[j])
        for i in diff:
            x = inputs[i]
            u = nt.tensor(rng.standard_normal(tuple(out.shape)), dtype=out.dtype, device=out.device)
            v = nt.tensor(rng.standard_normal(tuple(x.shape)), dtype=x.dtype, device=x.device)
            if x.dtype.is_complex:
                v = v + 1j * nt.tensor(rng.standard_normal(tuple(x.shape)), dtype=x.dtype, device=x.device)
            projections = []
            for _ in range(2):  # twice: the second run measures reentrancy
                (g,) = autograd.grad(out, x, u, retain_graph=True, allow_unused=True)
                projections.append(0.0 if g is None else _real_dot(g, v))
            analytical = projections[0]
            data = x._array
            original = data.copy()
            step = (eps * v.detach())._array
            data[...] = original - step
            minus = _evaluate(func, inputs, parts)[p]
            data[...] = original + step
            plus = _evaluate(func, inputs, parts)[p]
            data[...] = original
            numerical = _real_dot((plus - minus) / (2 * eps), u)
            if not abs(analytical - numerical) <= atol + rtol * abs(numerical):
                return p, i, numerical, analytical
            if abs(projections[1] - analytical) > nondet_tol:
                raise _Failed(_NOT_REENTRANT.format(tol=nondet_tol))
    return None


def _real_dot(a, b):
    prod = (a.reshape(-1) * b.reshape(-1).conj()) if a.dtype.is_complex or b.dtype.is_complex \
        else a.reshape(-1) * b.reshape(-1)
    total = prod.sum()
    return float(total.real if total.dtype.is_complex else total)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check ``func``'s first derivatives at ``inputs`` against finite differences.

    Args:
        func (callable): maps the inputs to a tensor or a tuple of tensors.
        inputs (Tensor or tuple): arguments of ``func``; those requiring grad are checked
            (float64/complex128 give meaningful results; others trigger a warning).
        eps (float): the finite-difference step.
        atol, rtol (float): tolerances of the element-wise comparison of the Jacobians.
        raise_exception (bool): raise GradcheckError on failure instead of returning False.
        nondet_tol (float): largest difference allowed between two backward runs.
        check_batched_grad (bool): also check batched cotangents (``is_grads_batched``).
        check_forward_ad (bool): also build the Jacobian with forward-mode AD.
        check_backward_ad (bool): check the reverse-mode Jacobian.
        fast_mode (bool): compare random projections instead of whole Jacobians.

    Returns:
        bool: True when every check passes.

    Raises:
        GradcheckError: on a mismatch, when ``raise_exception`` is True.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    inputs = _tuple(inputs)
    diff = _check_inputs(inputs)
    outputs = _tuple(func(*inputs))
    for o in outputs:
        o.requires_grad  # noqa: B018 - a non-tensor output fails here, as in torch
    parts = _real_outputs(outputs)
    numerical = None
    try:
        _check_zero_dependence(func, inputs, diff, outputs, eps)
        parts = [part for part in parts if outputs[part[1]].requires_grad]
        if fast_mode and check_backward_ad:
            failed = _projection_failure(func, inputs, outputs, diff, parts, eps, rtol, atol,
                                          nondet_tol)
            if failed is not None:
                p, i, num, an = failed
                prefix, j, _ = parts[p]
                slow_num = _numerical(func, inputs, i, parts, eps)[p]
                slow_an = _analytical(outputs, inputs, diff, parts)[0][p, i]
                diff_max = float((slow_an.to(slow_num.dtype) - slow_num).abs().max()) \
                    if slow_num.numel() else 0.0
                raise _Failed(_mismatch(prefix, j, i, num, an).rstrip("\n") +
                              _FAST_MODE_NOTE.format(num=slow_num, an=slow_an, diff=diff_max))
        elif check_backward_ad:
            numerical, _ = _check_backward(func, inputs, outputs, diff, parts, eps, rtol, atol,
                                           nondet_tol)
        if check_forward_ad:
            if numerical is None:
                numerical = {i: _numerical(func, inputs, i, parts, eps) for i in diff}
            _check_forward(func, inputs, diff, parts, numerical, rtol, atol)
        if check_backward_ad:
            _check_mul_by_grad_output(outputs, inputs, diff,
                                      "backward not multiplied by grad_output")
            if check_batched_grad:
                _check_batched(outputs, inputs, diff, parts)
            if check_undefined_grad:
                _check_undefined_grad(func, inputs, diff)
    except _Failed as failure:
        if raise_exception:
            raise GradcheckError(str(failure)) from None
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check ``func``'s second derivatives: gradcheck of its vector-Jacobian product.

    Without ``grad_outputs``, cotangents uniform in [-1, 1) are drawn from the default
    generator (one per differentiable output, requiring grad), so the check is also
    differentiated with respect to them.
    """
    import numtorch as nt
    from numtorch import autograd

    inputs = _tuple(inputs)
    outs = _tuple(func(*inputs))
    if grad_outputs is None:
        grad_outputs = []
        for o in outs:
            if not (_differentiable(o) and o.requires_grad):
                continue
            g = nt.empty(tuple(o.shape), dtype=o.dtype, device=o.device).uniform_(-1, 1)
            if gen_non_contig_grad_outputs and g.dim():
                g = nt.stack([g, g], dim=-1)[..., 0]
            grad_outputs.append(g._set_requires_grad())
    grad_outputs = _tuple(grad_outputs)
    n_in = len(inputs)

    def vjp(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = [o for o in _tuple(func(*ins)) if _differentiable(o) and o.requires_grad]
        diff = [t for t in ins if _is_tensor(t) and t.requires_grad]
        gs = autograd.grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(vjp, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_batched_grad=check_batched_grad,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev,
                     fast_mode=fast_mode)
