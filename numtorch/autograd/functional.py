"""Higher-level derivatives of whole functions: vjp, jvp, jacobian, hessian, hvp, vhp.

Everything is built on ``autograd.grad``. ``jvp`` uses the double-vjp trick (differentiate the
vjp, which is linear in its cotangent, with respect to that cotangent), so it needs no
forward-mode engine. ``jacobian`` takes one vjp per output element (reverse mode); the
``vectorize`` flag is accepted but rows are still computed one at a time, also for
``strategy="forward-mode"`` (with torch's option checks and result containers).
"""

from .. import _tensor
from . import _func_transforms
from .grad_mode import enable_grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(x, name, fn):
    # only a tuple is a sequence here (a list is refused whole, as torch refuses it)
    is_tuple = isinstance(x, tuple)
    for i, t in enumerate(x if is_tuple else (x,)):
        if not isinstance(t, _tensor.Tensor):
            where = f"value at index {i}" if is_tuple else f"given {name}"
            raise TypeError(f"The {name} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but the {where} has type {type(t)}.")
    return is_tuple, (x if is_tuple else (x,))


def _prepare_inputs(inputs, create_graph):
    """Fresh differentiable handles on the inputs (linked to the caller's graph only when the
    result itself must be differentiable)."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            if _func_transforms.KINDS:  # torch's requires_grad_() refusal inside torch.func
                from ..func._batched import _REQUIRES_GRAD_IN_TRANSFORM

                raise RuntimeError(_REQUIRES_GRAD_IN_TRANSFORM)
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _check_outputs(outputs, strict):
    """Strict mode: every output must be on the graph of the inputs."""
    for i, o in enumerate(outputs if strict else ()):
        if not o.requires_grad:
            raise RuntimeError(f"Output {i} of the user-provided function does not require "
                               "gradients. The outputs must be computed in a differentiable "
                               "manner from the input when running in strict mode.")


def _check_first_grads(grads, strict, unused_ok=False):
    """Strict mode for the Hessian functions: each gradient must exist (unless ``unused_ok``)
    and still depend on the inputs, or the second derivative is identically zero."""
    for i, g in enumerate(grads if strict else ()):
        if g is None and not unused_ok:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if g is None or not g.requires_grad:
            raise RuntimeError(f"While computing the hessian, found that the jacobian of the "
                               f"user-provided function with respect to input {i} is "
                               "independent of the input. This is not allowed in strict mode. "
                               "You should ensure that your function is twice differentiable "
                               "and that the jacobian depends on the inputs (this would be "
                               "violated by a linear function for example).")


def _grad_or_zeros(outputs, inputs, grad_outputs, create_graph, strict, fn):
    diff = [o for o in outputs if o.requires_grad]
    gos = [g for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not diff:
        grads = (None,) * len(inputs)
    else:
        from . import grad

        grads = grad(diff, inputs, gos, create_graph=create_graph, retain_graph=True,
                     allow_unused=True)
    res = []
    for i, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent of "
                                   f"input {i}. This is not allowed in strict mode.")
            g = _zeros_like(x)
        res.append(g)
    return tuple(res)


def _zeros_like(t):
    from .. import _creation

    return _creation.zeros_like(t)


def _scalar_grad(func, xs, fn, strict=False):
    """The gradient of the single-element output of ``func(*xs)``, kept differentiable."""
    out = func(*xs)
    is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn)
    if is_tuple or len(outs) != 1:  # (torch refuses a one-tensor tuple too)
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain "
                           "a single element")
    _check_outputs(outs, strict)
    from . import grad

    gs = grad(outs[0].reshape(()), xs, create_graph=True, allow_unused=True)
    return outs[0], gs


def _dot_grad(gs, vs, wrt, create_graph):
    """d/d(wrt) of sum_i <gs_i, vs_i>: the double-vjp step shared by jvp and vhp."""
    from . import grad

    pairs = [(g, v_) for g, v_ in zip(gs, vs) if g is not None and g.requires_grad]
    if not pairs:
        return (None,) * len(wrt)
    total = sum((g * v_).sum() for g, v_ in pairs)
    return grad(total, wrt, create_graph=create_graph, allow_unused=True)


def _out(is_tuple, values):
    return values if is_tuple else values[0]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Return ``(func(inputs), v^T J)``.

    Args:
        func (callable): takes the inputs, returns a tensor or tuple of tensors.
        inputs (Tensor or tuple): where to evaluate.
        v (Tensor or tuple, optional): the cotangent; may be omitted for a scalar output.
        create_graph (bool): make the result differentiable.
        strict (bool): raise if an output does not depend on some input.
    """
    with enable_grad():
        is_in_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _prepare_inputs(ins, create_graph)
        outs = func(*ins)
        is_out_tuple, outs = _as_tuple(outs, "outputs of the user-provided function", "vjp")
        _check_outputs(outs, strict)
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function "
                                   "returns a single Tensor with a single element.")
            vs = (None,)
        else:
            _, vs = _as_tuple(v, "v", "vjp")
            _check_v(vs, outs)
        grads = _grad_or_zeros(outs, ins, vs, create_graph, strict, "vjp")
    outs = tuple(o if create_graph else o.detach() for o in outs)
    grads = tuple(g if create_graph else g.detach() for g in grads)
    return _out(is_out_tuple, outs), _out(is_in_tuple, grads)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Return ``(func(inputs), J v)`` (the directional derivative along ``v``)."""
    with enable_grad():
        _, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _prepare_inputs(ins, create_graph)
        vs = _input_vectors(v, ins, "jvp")
        outs = func(*ins)
        is_out_tuple, outs = _as_tuple(outs, "outputs of the user-provided function", "jvp")
        _check_outputs(outs, strict)
        # u is a dummy cotangent: vjp(u) = J^T u is linear in u, so d(vjp . v)/du = J v
        us = tuple(_zeros_like(o)._set_requires_grad(True) for o in outs)
        from . import grad

        diff = [(o, u) for o, u in zip(outs, us) if o.requires_grad]
        if diff:
            gs = grad([o for o, _ in diff], ins, [u for _, u in diff], create_graph=True,
                      allow_unused=True)
        else:
            gs = (None,) * len(ins)
        jv = _dot_grad(gs, vs, us, create_graph)
        res = []
        for i, (j, u) in enumerate(zip(jv, us)):
            if j is None:
                if strict:
                    raise RuntimeError(f"The output of the user-provided function is independent "
                                       f"of input(s); output {i} has no gradient in strict mode.")
                j = _zeros_like(u)
            res.append(j if create_graph else j.detach())
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return _out(is_out_tuple, outs), _out(is_out_tuple, tuple(res))


def _check_jacobian_options(strict, vectorize, create_graph, strategy, outputs_checked=False):
    """The option combinations torch refuses (it computes forward mode only batched, and
    neither forward mode nor its vectorized reverse mode checks strictness)."""
    name = "torch.autograd.functional.jacobian"
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                f'{name}: `create_graph=True` and `strategy="forward-mode"` are not supported '
                'together (yet). Please either set `create_graph=False` or '
                '`strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                f'{name}: `strict=True` and `strategy="forward-mode"` are not supported together '
                '(yet). Please either set `strict=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                      "Hessian isonly implemented for `vectorize=True`.")
    elif strict and vectorize and outputs_checked:
        raise RuntimeError(f"{name}: `strict=True` and `vectorized=True` are not supported "
                           "together. Please either set `strict=False` or `vectorize=False`.")


def _input_vectors(v, ins, fn):
    """The vectors ``v`` paired with the inputs ``ins`` (checked), or ones for a single
    one-element input when ``v`` is None (torch's only case without one)."""
    if v is None:
        if len(ins) != 1 or ins[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the "
                               "user-provided function is a single Tensor with a single "
                               "element.")
        from .. import _creation

        return (_creation.ones_like(ins[0]),)
    _, vs = _as_tuple(v, "v", fn)
    _check_v(vs, ins)
    return vs


def _check_v(vs, refs):
    """torch's checks of a cotangent/tangent tuple against the tensors it pairs with."""
    if len(vs) != len(refs):
        if len(refs) == 1:
            raise RuntimeError("The given v should contain a single Tensor.")
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but got "
                           f"{len(vs)}.")
    for i, (v_, r) in enumerate(zip(vs, refs)):
        if tuple(v_.shape) != tuple(r.shape):
            where = "v" if len(refs) == 1 else f"Entry {i} in v"
            raise RuntimeError(f"{where} has invalid size: should be {r.shape} but got "
                               f"{v_.shape}.")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: shape ``output.shape + input.shape`` (nested
    tuples for several inputs/outputs)."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    _check_jacobian_options(strict, vectorize, create_graph, strategy)
    from .. import ops

    with enable_grad():
        is_in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        # torch's forward mode pushes tangents through the caller's inputs themselves: its
        # Jacobian stays joined to the graph of inputs that require grad (as with create_graph)
        keep = create_graph or (strategy == "forward-mode" and any(
            isinstance(t, _tensor.Tensor) and t.requires_grad for t in ins))
        ins = _prepare_inputs(ins, keep)
        outs = func(*ins)
        is_out_tuple, outs = _as_tuple(outs, "outputs of the user-provided function",
                                       "jacobian")
        _check_outputs(outs, strict)
        _check_jacobian_options(strict, vectorize, create_graph, strategy, outputs_checked=True)
        from . import grad

        if strategy == "reverse-mode" and any(o.numel() == 0 for o in outs):
            # torch's reverse mode stacks one row per output element: none to stack
            if not vectorize:
                raise RuntimeError("stack expects a non-empty TensorList")
            if all(o.numel() == 0 for o in outs):
                raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
        table = []
        for i, out in enumerate(outs):
            rows = [[] for _ in ins]
            flat = out.reshape(-1)
            for k in range(flat.shape[0]):
                if out.requires_grad:
                    gs = grad(flat[k], ins, retain_graph=True, create_graph=keep,
                              allow_unused=True)
                else:
                    gs = (None,) * len(ins)
                for j, (g, x) in enumerate(zip(gs, ins)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {j}. This is not allowed "
                                               "in strict mode.")
                        g = _zeros_like(x)
                    elif strict and create_graph and not g.requires_grad:
                        # the caller asked for a differentiable Jacobian that is constant
                        raise RuntimeError(f"The jacobian of the user-provided function is "
                                           f"independent of input {j}. This is not allowed in "
                                           "strict mode when create_graph=True.")
                    rows[j].append(g if keep else g.detach())
            per_input = []
            for j, x in enumerate(ins):
                if rows[j]:
                    jac = ops.stack(rows[j], 0).reshape((*out.shape, *x.shape))
                else:
                    jac = x.new_zeros((*out.shape, *x.shape)) if out.numel() == 0 \
                        else _zeros_like(x)
                per_input.append(jac)
            table.append(_out(is_in_tuple, tuple(per_input)))
    if strategy == "forward-mode" and is_in_tuple:  # torch's forward mode nests lists here
        table = [list(row) for row in table]
        return table if is_out_tuple else table[0]
    return _out(is_out_tuple, tuple(table))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    is_in_tuple, ins = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("reverse-mode", "forward-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    _check_jacobian_options(strict, vectorize, create_graph, outer_jacobian_strategy)

    def grad_fn(*xs):
        _, gs = _scalar_grad(func, xs, "hessian", strict)
        _check_first_grads(gs, strict, unused_ok=True)
        return tuple(g if g is not None else _zeros_like(x) for g, x in zip(gs, xs))

    res = jacobian(grad_fn, ins, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    if not is_in_tuple:
        return res[0][0]
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Return ``(func(inputs), v^T H)`` for a scalar function."""
    return _vhp("vhp", func, inputs, v, create_graph, strict)


def _vhp(_fn, func, inputs, v, create_graph, strict):
    with enable_grad():
        is_in_tuple, ins = _as_tuple(inputs, "inputs", _fn)
        ins = _prepare_inputs(ins, create_graph)
        vs = _input_vectors(v, ins, _fn)
        value, gs = _scalar_grad(func, ins, _fn, strict)
        _check_first_grads(gs, strict)
        res = _dot_grad(gs, vs, ins, create_graph)
        res = tuple((r if create_graph else r.detach()) if r is not None else _zeros_like(x)
                    for r, x in zip(res, ins))
    return (value if create_graph else value.detach()), _out(is_in_tuple, res)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Return ``(func(inputs), H v)``; equal to vhp for twice-differentiable functions."""
    return _vhp("hvp", func, inputs, v, create_graph, strict)
