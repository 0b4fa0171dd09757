"""``torch.nested``: tensors whose components differ in shape, kept in one flat buffer.

Two layouts, as in torch 2.13: ``torch.strided`` (any component dims may differ; torch warns
that its API is a prototype) and ``torch.jagged`` (only the first component dim differs; the
tensor has a size such as ``(2, j1, 3)`` and ``values()``/``offsets()``). See
``_nested_tensor.py`` for the storage and ``_nested_ops.py`` for the operations.

Note: ``narrow``, non-contiguous jagged tensors (``offsets`` together with
``lengths``) and jagged tensors ragged in a dim other than 1 are not implemented yet and raise
NotImplementedError.
"""

import warnings

import numpy as np

from .._layout import jagged, strided
from .._tensor import Tensor
from ._nested_ops import not_run, pad
from ._nested_tensor import NestedTensor, RaggedSize, new_leaf, wrap

__all__ = [
    "as_nested_tensor",
    "masked_select",
    "narrow",
    "nested_tensor",
    "nested_tensor_from_jagged",
    "to_padded_tensor",
]

_PROTOTYPE = ("The PyTorch API of nested tensors is in prototype stage and will change in the "
              "near future. We recommend specifying layout=torch.jagged when constructing a "
              "nested tensor, as this layout receives active development, has better operator "
              "coverage, and works with torch.compile.")
_warned = [False]  # torch warns once per process


def _warn_strided():
    if not _warned[0]:
        _warned[0] = True
        warnings.warn(_PROTOTYPE, UserWarning, stacklevel=4)


def _numtorch():
    import numtorch

    return numtorch


def _components(tensor_list, dtype, device, keep_graph):
    nt = _numtorch()
    comps = []
    for x in tensor_list:
        if isinstance(x, Tensor):
            t = x if keep_graph else x.detach()
        else:
            t = nt.as_tensor(x)
        if dtype is not None or device is not None:
            t = t.to(device=device, dtype=dtype)
        comps.append(t)
    if comps and dtype is None:  # one dtype for the buffer: the first component's
        comps = [c.to(comps[0].dtype) for c in comps]
    for i, c in enumerate(comps):
        if c.dim() != comps[0].dim():
            raise RuntimeError(f"All Tensors given to nested_tensor must have the same "
                               f"dimension. Found dimension {c.dim()} for Tensor at index {i} "
                               f"and dimension {comps[0].dim()} for Tensor at index 0.")
    return comps


def _build(comps, layout, requires_grad, keep_graph, dtype=None):
    nt = _numtorch()
    if layout is None:
        layout = strided
    if layout is not strided and layout is not jagged:
        raise RuntimeError(f"Specified layout is unsupported for nested tensors: {layout}")
    if layout is strided:
        _warn_strided()
    rank = comps[0].dim() if comps else 0  # (no components: a 1-d nested tensor, as torch)
    sizes = np.array([list(c.shape) for c in comps], dtype=np.int64).reshape(len(comps), rank)
    offsets = ragged = None
    if layout is jagged:
        if not comps:
            raise RuntimeError("Cannot construct a nested tensor from an empty tensor list")
        if rank == 0:
            raise RuntimeError("Cannot construct a nested tensor from a list of zero-dim tensors")
        if len(sizes) and (sizes[:, 1:] != sizes[0, 1:]).any():
            raise NotImplementedError("numtorch: jagged nested tensors ragged in a dim other "
                                      "than the first component dim are not implemented")
        offsets = nt.as_tensor(np.concatenate(([0], np.cumsum(sizes[:, 0]))).astype(np.int64))
        ragged = RaggedSize()
    flat = nt.cat([c.reshape(-1) for c in comps]) if comps else nt.empty(0, dtype=dtype)
    if keep_graph and flat.requires_grad:
        t = wrap(flat, sizes, layout, ragged, offsets)
        return t
    return new_leaf(flat.detach()._array, sizes, layout, requires_grad, ragged, offsets)


def nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A nested tensor (a leaf with no history) holding copies of the tensors in
    ``tensor_list`` (tensors, or nested lists of numbers), all of one rank.

    ``layout`` is ``torch.strided`` (the default; torch warns once that it is a prototype) or
    ``torch.jagged``, where only the first dimension of the components may differ.
    """
    comps = _components(tensor_list, dtype, device, keep_graph=False)
    return _build(comps, layout, requires_grad, keep_graph=False, dtype=dtype)


def as_nested_tensor(ts, dtype=None, device=None, layout=None):
    """A nested tensor from a list of tensors (or the rows of a tensor) that keeps their
    autograd history: gradients flow back to the inputs."""
    if isinstance(ts, NestedTensor):
        if layout is None or layout is ts.layout:
            return ts if dtype is None and device is None else ts.to(device=device, dtype=dtype)
        ts = ts.unbind()
    elif isinstance(ts, Tensor):
        ts = ts.unbind(0)
    elif not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError("as_nested_tensor(): Expected first argument to be a tensor or a list "
                        "/ tuple of tensors ")
    comps = _components(ts, dtype, device, keep_graph=True)
    return _build(comps, layout, False, keep_graph=True)


_SYMBOLS = {}  # id(offsets) -> (offsets, symbol): one ragged size per offsets tensor


def _symbol_for(offsets, pad_len):
    hit = _SYMBOLS.get(id(offsets))
    if hit is not None and hit[0] is offsets:
        return hit[1]
    sym = RaggedSize(pad_len)
    _SYMBOLS[id(offsets)] = (offsets, sym)
    return sym


def nested_tensor_from_jagged(values, offsets=None, lengths=None, jagged_dim=None,
                              min_seqlen=None, max_seqlen=None):
    """A jagged nested tensor over ``values`` (``(total, *inner)``) split at ``offsets``
    (or after ``lengths``); it shares ``offsets`` and its ragged size with every tensor built
    on the same offsets, and gradients flow back to ``values``."""
    nt = _numtorch()
    if offsets is None:
        if lengths is None:
            raise RuntimeError("nested_tensor_from_jagged(): At least one of offsets or "
                               "lengths is required.")
        offsets = nt.cat([nt.zeros(1, dtype=lengths.dtype, device=lengths.device),
                          nt.cumsum(lengths, 0)])
        lengths = None
    if lengths is not None:
        raise NotImplementedError("numtorch: non-contiguous jagged nested tensors (offsets "
                                  "with lengths) are not implemented")
    if jagged_dim not in (None, 1):
        raise NotImplementedError("numtorch: jagged_dim other than 1 is not implemented")
    off = np.asarray(offsets.detach().cpu().numpy(), dtype=np.int64)
    inner = [int(s) for s in values.shape[1:]]
    sizes = np.array([[int(n)] + inner for n in np.diff(off)], dtype=np.int64)
    sizes = sizes.reshape(len(off) - 1, 1 + len(inner))
    # a graph node of its own (a view of a leaf would be wrapped as a second leaf)
    flat = values.reshape(-1) * 1 if values.requires_grad else values.reshape(-1)
    # torch pads to max_seqlen when given, else to the number of rows (a bound it need not
    # compute): the longest component is never looked for
    sym = _symbol_for(offsets, int(max_seqlen) if max_seqlen is not None else len(values))
    if flat.requires_grad:
        return wrap(flat, sizes, jagged, sym, offsets)
    return new_leaf(flat._array, sizes, jagged, False, sym, offsets)


def to_padded_tensor(input, padding, output_size=None):
    """The components of nested ``input`` written into one dense tensor of shape
    ``output_size`` (default: the largest size along each dim), the rest ``padding``.
    Differentiable: the gradient is the valid part of the padded gradient."""
    if not isinstance(input, NestedTensor):
        raise not_run("to_padded_tensor", "CPU")
    return pad(input, padding, output_size)


def narrow(tensor, dim, start, length, layout=strided):
    """Not implemented yet in numtorch (raises NotImplementedError)."""
    raise NotImplementedError("numtorch: torch.nested.narrow is not implemented")


def masked_select(tensor, mask):
    """A jagged nested tensor of the elements of dense ``tensor`` where the bool ``mask``
    (broadcast to it) is True, one component per row of the last dimension (differentiable
    in ``tensor``)."""
    nt = _numtorch()
    if isinstance(tensor, NestedTensor):
        raise RuntimeError(f"torch.nested.masked_select requires a strided tensor, given "  # noqa: TRY004
                           f"{tensor.layout}")
    if mask.dtype is not nt.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = nt.broadcast_shapes(tensor.shape, mask.shape)
    full = mask.expand(shape)
    picked = nt.masked_select(tensor.expand(shape), full)
    last = shape[-1] if len(shape) else 1
    lengths = full.reshape(-1, last).sum(-1)
    counts = lengths.cpu().numpy().astype(np.int64)
    offsets = nt.as_tensor(np.concatenate(([0], np.cumsum(counts))).astype(np.int64))
    sym = RaggedSize(len(picked))  # torch pads these to the number of elements picked
    if picked.requires_grad:
        return wrap(picked, counts[:, None], jagged, sym, offsets)
    return new_leaf(picked._array, counts[:, None], jagged, False, sym, offsets)


