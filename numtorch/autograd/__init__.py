"""Reverse-mode automatic differentiation: ``backward``, ``grad`` and grad-mode switches."""

from .grad_mode import (  # noqa: F401  (grad_mode first: graph and _tensor import it)
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
    is_multithreading_enabled, no_grad, set_grad_enabled, set_multithreading_enabled,
)
from . import graph  # noqa: E402,F401
from . import engine  # noqa: E402
from . import _func_transforms  # noqa: E402

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "gradcheck", "gradgradcheck", "Function", "once_differentiable"]


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, (tuple, list)) and not isinstance(x, graph.GradientEdge):
        return tuple(x)
    if isinstance(x, (graph.Tensor, graph.GradientEdge)) or not hasattr(x, "__iter__"):
        return (x,)
    return tuple(x)  # any other iterable, as torch takes it: model.parameters(), a set


def _grads_tuple(x):
    """The gradients argument as torch reads it: a tensor, or an iterable of them (a bare
    number is refused: 'int' object is not iterable)."""
    if x is None:
        return None
    if isinstance(x, (graph.Tensor, graph.GradientEdge)):
        return (x,)
    return tuple(x)


def _count_mismatch(outputs, grads, fn_name):
    """torch checks each (output, gradient) pair before it counts them."""
    from . import _grad_shapes

    _grad_shapes.root_grads(outputs, grads, False, fn_name)
    raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate gradients of ``tensors`` w.r.t. graph leaves into their ``.grad``.

    Args:
        tensors (Tensor or sequence of Tensor): outputs to differentiate.
        grad_tensors (Tensor or sequence, optional): the vector in the vector-Jacobian product;
            may be omitted for one-element outputs.
        retain_graph (bool, optional): keep saved values for another backward. Defaults to
            ``create_graph``.
        create_graph (bool): record the backward pass so higher derivatives can be taken.
        grad_variables: the 0.x name of ``grad_tensors``.
        inputs (sequence of Tensor, optional): accumulate only into these tensors.
    """
    if _func_transforms.KINDS:
        _func_transforms.refuse_backward()
    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs = _as_tuple(tensors)
    grads = _grads_tuple(grad_tensors)
    if grads is None:
        grads = (None,) * len(outputs)
    grads = grads[:len(outputs)]  # torch pairs them up and ignores the extra gradients
    if len(grads) != len(outputs):  # (an empty list is no gradient at all, not None)
        _count_mismatch(outputs, grads, "backward")
    ins = _as_tuple(inputs)
    if ins is not None and len(ins) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    engine.run_backward(outputs, grads, retain_graph, create_graph, inputs=ins,
                        allow_unused=True, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return the gradients of ``outputs`` w.r.t. ``inputs`` (no ``.grad`` is touched).

    Args:
        outputs (Tensor or sequence of Tensor): outputs to differentiate.
        inputs (Tensor or sequence of Tensor): tensors to differentiate with respect to.
        grad_outputs (optional): the vector in the vector-Jacobian product, one per output.
        retain_graph (bool, optional): keep saved values. Defaults to ``create_graph``.
        create_graph (bool): make the result differentiable (higher-order derivatives).
        allow_unused (bool): return None for inputs the outputs do not depend on.
        materialize_grads (bool): return zeros instead of None for unused inputs.

    Example:
        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> torch.autograd.grad((x ** 3).sum(), x)
        (tensor([ 3., 12.]),)
    """
    if not only_inputs:
        import warnings

        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    if ins is not None and len(ins) == 0:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _grads_tuple(grad_outputs)
    if grads is None:
        grads = (None,) * len(outs)
    if len(grads) > len(outs):  # torch pairs them up and ignores the extra gradients
        grads = grads[:len(outs)]
    if len(grads) != len(outs):
        _count_mismatch(outs, grads, "grad")
    sparse = _sparse_inputs(ins)
    if sparse is None:
        res = engine.run_backward(outs, grads, retain_graph, create_graph, inputs=ins,
                                  allow_unused=allow_unused, accumulate=False, fn_name="grad")
    else:
        res = _sparse_grads(outs, grads, retain_graph, create_graph, ins, sparse, allow_unused)
    if materialize_grads:
        from .. import ops

        # (differentiable zeros under create_graph, as torch's)
        res = [r if r is not None else ops.zeros_like(t)._set_requires_grad(create_graph)
               for r, t in zip(res, ins)]
    return tuple(res)


def _sparse_inputs(ins):
    """For ``grad``'s inputs: None when none is a sparse tensor, else, per input, None or the
    tensors its gradient collects from (a sparse tensor's autograd lives on its values
    tensor, and a sparse leaf's dense gradient from torch.mm & co. on its ``origin``)."""
    if ins is None or not any(hasattr(t, "_grad_of_values") for t in ins):
        return None
    parts = []
    for t in ins:
        arr = getattr(t, "_array", None)
        if not hasattr(t, "_grad_of_values") or getattr(arr, "values", None) is None:
            parts.append(None)
            continue
        origin = getattr(arr, "origin", None)
        parts.append((arr.values,) + ((origin,) if origin is not None and origin.requires_grad
                                      else ()))
    return parts


def _sparse_grads(outs, grads, retain_graph, create_graph, ins, sparse, allow_unused):
    """``grad`` with sparse inputs: the gradients of their values (as the sparse layout) and
    of their dense stand-ins, added up."""
    flat, where = [], []
    for t, parts in zip(ins, sparse):
        where.append(len(flat))
        flat.extend((t,) if parts is None else parts)
    res = engine.run_backward(outs, grads, retain_graph, create_graph, inputs=tuple(flat),
                              allow_unused=True, accumulate=False, fn_name="grad")
    out = []
    for k, (t, parts, at) in enumerate(zip(ins, sparse, where)):
        if parts is None:
            g = res[at]
        else:
            gv = res[at]
            g = None if gv is None else t._grad_of_values(gv)
            if len(parts) > 1 and res[at + 1] is not None:  # the dense gradient of torch.mm
                g = res[at + 1] if g is None else res[at + 1] + g.to_dense()
        if g is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {k} appears to not have "
                               "been used in the graph. Set allow_unused=True if this is the "
                               "desired behavior.")
        out.append(g)
    return out


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """``grad`` with ``is_grads_batched``: dim 0 of every cotangent indexes a batch of
    cotangents; the result stacks one vector-Jacobian product per batch entry."""
    import numtorch as nt

    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    grads = _as_tuple(grad_outputs) or (None,) * len(outs)
    for i, (g, o) in enumerate(zip(grads, outs)):
        if g is None and o.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if g is None and o.dim() == 0:  # torch batches its implicit 0-d gradient
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some "
                             "input, but that input is a Tensor of dimensionality 0 so "
                             "expected in_dim to satisfy 0 <= in_dim < 0.")
        if g is not None and g.dim() == 0:  # torch reads the batch size off dim 0 first
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python "
                             "or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a "
                             "number")
        if g is None or tuple(g.shape[1:]) != tuple(o.shape):
            # (torch's message shows the grad_output's shape without its first two dims)
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {g.shape[2:] if g is not None else None} "
                f"and output[{i}] has a shape of {o.shape}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap.")
    n = grads[0].shape[0] if grads else 0
    if grads and n == 0:  # torch's batched run reads entry 0 of the batch
        raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
    if retain_graph is None:
        retain_graph = create_graph
    rows = []
    for b in range(n):
        rows.append(grad(outs, ins, tuple(g[b] for g in grads),
                         retain_graph=retain_graph or b < n - 1, create_graph=create_graph,
                         allow_unused=allow_unused))
    result = []
    for k, t in enumerate(ins):
        column = [row[k] for row in rows]
        if not column:
            result.append(t.new_zeros((0,) + tuple(t.shape)))
        elif all(c is None for c in column):
            # materialized as torch does it: the input's zeros, without a batch dimension
            result.append(nt.zeros_like(t)._set_requires_grad(create_graph)
                          if materialize_grads else None)
        else:
            result.append(nt.stack([c if c is not None else nt.zeros_like(t)
                                     for c in column]))
    return tuple(result)


from .gradcheck import gradcheck, gradgradcheck  # noqa: E402
from .function import (  # noqa: E402,F401
    Function, FunctionCtx, InplaceFunction, NestedIOFunction, once_differentiable,
)
from . import function  # noqa: E402,F401
from .variable import Variable  # noqa: E402,F401
from .anomaly_mode import (  # noqa: E402,F401
    detect_anomaly, set_detect_anomaly, is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from . import functional  # noqa: E402,F401
from . import forward_ad  # noqa: E402,F401
