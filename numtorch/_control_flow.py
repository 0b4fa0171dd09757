"""``torch.cond`` and ``torch.while_loop`` with eager semantics.

torch traces both branches / the loop body into a graph; numtorch has no graph compiler, so
it runs the chosen branch or the loop in Python. Results and gradients are those of the code
that ran, as in torch's eager mode.
"""

from ._tensor import Tensor

__all__ = ["cond", "while_loop"]


def _truth(value, what):
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise RuntimeError(f"Expected {what} to be bool or single-element tensor, but got "
                               f"{value}.")
        return bool(value.item())
    if isinstance(value, (bool, int)):
        return bool(value)
    raise RuntimeError(f"Expected {what} to be bool or single-element tensor, but got "
                       f"{value!r}.")


def cond(pred, true_fn, false_fn, operands=()):
    """Call ``true_fn(*operands)`` if ``pred`` holds, else ``false_fn(*operands)``.

    Args:
        pred (bool or Tensor): a bool or a one-element tensor.
        true_fn, false_fn (callable): the branches; they take the operands and should
            return tensors of the same structure, shapes and dtypes.
        operands (tuple or list of Tensor): the branch inputs.

    Returns:
        What the chosen branch returned.

    Example:
        >>> x = torch.tensor([1.0, -2.0])
        >>> torch.cond(x.sum() > 0, lambda a: a + 1, lambda a: a - 1, (x,))
        tensor([ 0., -3.])
    """
    branch = true_fn if _truth(pred, "pred") else false_fn
    return branch(*operands)


def _check_same(carried, out):
    if len(carried) != len(out):
        raise RuntimeError(f"Expected body_fn_output and carried_inputs to have the same "
                           f"number of elements, but got {len(out)} and {len(carried)}")
    for i, (a, b) in enumerate(zip(out, carried)):
        if isinstance(a, Tensor) and isinstance(b, Tensor) and (
                a.dtype is not b.dtype or a.shape != b.shape):
            raise RuntimeError(f"Expected body_fn_output and carried_inputs to have same "
                               f"metadata but found: pair[{i}] differs (dtype {a.dtype} vs "
                               f"{b.dtype}, shape {tuple(a.shape)} vs {tuple(b.shape)})")


def while_loop(cond_fn, body_fn, carried_inputs):
    """Run ``carried = body_fn(*carried)`` while ``cond_fn(*carried)`` holds.

    Args:
        cond_fn (callable): takes the carried values, returns a bool or one-element tensor.
        body_fn (callable): takes the carried values, returns the next ones (same number,
            shapes and dtypes).
        carried_inputs (tuple or list): the initial values.

    Returns:
        The last carried values: a tuple, or a single value when ``body_fn`` returns one.

    Example:
        >>> torch.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2),
        ...                  (torch.tensor(0), torch.ones(2)))
        (tensor(3), tensor([8., 8.]))
    """
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list, but got "
                           f"{type(carried_inputs).__name__}")
    carried = tuple(carried_inputs)
    bare = False
    while _truth(cond_fn(*carried), "cond_fn's result"):
        out = body_fn(*carried)
        bare = not isinstance(out, (tuple, list))
        out = (out,) if bare else tuple(out)
        _check_same(carried, out)
        carried = out
    return carried[0] if bare else carried
