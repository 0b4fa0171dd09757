"""How nested tensors print: the strided layout lists its components, the jagged one its size."""

from .._layout import jagged
from .._tensor import _make


def _autograd_suffix(nt):
    fn = nt.grad_fn
    if fn is not None:
        return f", grad_fn=<{type(fn).__name__}>"
    return ", requires_grad=True" if nt._requires_grad else ""


def format_nested(nt):
    """``nested_tensor([...])`` (strided) or ``NestedTensor(size=..., offsets=...)`` (jagged)."""
    if nt._nlayout is jagged:
        size = ", ".join(str(s) for s in nt._sym_sizes())
        fn = nt.grad_fn
        grad = f", grad_fn=<{type(fn).__name__} object at {hex(id(fn))}>" if fn is not None \
            else (", requires_grad=True" if nt._requires_grad else "")
        return (f"NestedTensor(size=({size}), offsets={nt._noffsets!r}{grad}, "
                f"contiguous={nt.is_contiguous()})")
    parts = []
    for comp in nt.detach().unbind():
        shown = _make(comp._array)
        shown._requires_grad = nt._requires_grad  # each component shows the flag, not a node
        parts.append("  " + repr(shown).replace("\n", "\n  "))
    body = ",\n".join(parts)
    return f"nested_tensor([\n{body}\n]{_autograd_suffix(nt)})"
