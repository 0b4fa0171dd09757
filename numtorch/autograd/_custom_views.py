"""Outputs of a custom Function that share memory with a tensor: an input returned as-is, or a
view made inside ``forward``.

torch hands such an output back as a view of the input's base whose grad_fn is the Function's
node. Writing it in place would let view+inplace autograd replace the user's backward (wrong
gradients), so torch refuses that, and refuses to use it once its memory was written some other
way (through the base, another view, ``.detach()``, or under no_grad). With several
differentiable outputs the refusal is the one of ops returning several views.

Here such an output is a view of the base's root whose recorded step (``CustomOutputView`` or
``CustomOutputsView``: the output's geometry over the storage) marks where it came from; like a
split piece it remembers (the root's grad_fn, the version) when it was made
(``autograd.inplace.refresh_view`` compares them). Outputs that join no graph (the inputs need
no grad, or the output was marked non-differentiable) stay views made under no_grad, whose
refusals name the custom Function too (``_extra["custom_view"]``).
"""

from . import graph

CUSTOM_TAIL = ("This view was created inside a custom Function (or because an input was "
               "returned as-is) and the autograd logic to handle view+inplace would override "
               "the custom backward associated with the custom Function, leading to incorrect "
               "gradients. This behavior is forbidden. You can fix this by cloning the output "
               "of the custom Function.")

_CLASSES = {}


def _step_class(multi):
    """The view step recorded for such an output (an as_strided read of the root's storage,
    so forward-mode tangents are read through it the same way)."""
    cls = _CLASSES.get(multi)
    if cls is None:
        from ..ops.strided_views import AsStrided

        if multi:
            cls = type("CustomOutputsView", (AsStrided,), {
                "__doc__": "One of several differentiable outputs of a custom Function "
                           "sharing memory with a tensor (written in place: refused).",
                "multi_output": True})
        else:
            cls = type("CustomOutputView", (AsStrided,), {
                "__doc__": "The one differentiable output of a custom Function sharing "
                           "memory with a tensor (written in place: refused).",
                "custom_function": True})
        _CLASSES[multi] = cls
    return cls


def from_custom_function(view):
    """Whether view ``view`` is, or was viewed from, such an output (a custom-Function step in
    its view chain)."""
    chain = view._view_fn
    while chain is not None:
        cls, _, chain = chain
        if getattr(cls, "custom_function", False):
            return True
    return False


def op_name(fn):
    """How torch's view refusals name node ``fn``: 'Select' for SelectBackward0, 'MyFn' for a
    custom Function's MyFnBackward."""
    if fn is None:
        return "None"
    return fn.name().rstrip("0123456789").removesuffix("Backward")


def _geometry(arr):
    from ..ops._util import elem_strides, storage_offset

    return {"size": tuple(arr.shape), "stride": elem_strides(arr),
            "storage_offset": storage_offset(graph._make(arr))}


def wire(ctx, o, index, source, n_diff):
    """Make output ``o`` (a fresh tensor over ``source``'s memory, ``source`` being an input or
    the base of a view made in forward) the graph view torch returns: node ``ctx``, output
    ``index``."""
    root = source._base if source._base is not None else source
    o._base = root
    o._vc = source._vc
    o._view_fn = (_step_class(n_diff > 1), _geometry(o._array), None)
    o._view_src = (root._grad_fn, o._vc[0])
    o._requires_grad, o._grad_fn, o._output_nr = True, ctx, index


def untracked(o, source, n_diff):
    """Mark ``o`` (over ``source``'s memory) a view made under no_grad inside a custom Function:
    using it after a write, or writing it with grad mode on, is refused naming the Function."""
    if o._base is None:  # an input returned as-is: a view of it
        root = source._base if source._base is not None else source
        o._base = root
        o._vc = source._vc
        o._view_fn = None
        o._view_src = o._vc[0]
    extra = o._extra if o._extra is not None else {}
    extra["custom_view"] = "multi" if n_diff > 1 else "custom"
    o._extra = extra


def no_grad_tail(t):
    """The tail of the refusal of no_grad view ``t`` when it came out of a custom Function, or
    None."""
    kind = t._extra.get("custom_view") if t._extra else None
    if kind is None:
        return None
    if kind == "multi":
        from .inplace import _MULTI_VIEW_TAIL

        return _MULTI_VIEW_TAIL
    return CUSTOM_TAIL
