"""The ``*_copy`` functions (``torch.permute_copy``, ``torch.view_copy``, ...) and the split
variants ``split_with_sizes`` / ``unsafe_split`` / ``unsafe_chunk``.

A ``<view>_copy`` returns what ``<view>`` returns, as a new contiguous tensor that shares no
memory with its input; gradients flow as through the view. The ``unsafe_`` splits are the
plain splits: torch only skips a view-aliasing check that numtorch does not make.
"""

from ._dispatch_error import no_kernel
from ._inplace_functions import _require_tensor

_VIEW_COPIES = {
    "alias_copy": lambda x: x.view_as(x),
    "as_strided_copy": lambda x, size, stride, storage_offset=None: x.as_strided(
        size, stride, storage_offset),
    "diagonal_copy": lambda x, offset=0, dim1=0, dim2=1: x.diagonal(offset, dim1, dim2),
    "expand_copy": lambda x, size, *, implicit=False: x.expand(tuple(size)),
    "narrow_copy": lambda x, dim, start, length: _narrow(x, dim, start, length),
    "permute_copy": lambda x, dims: x.permute(tuple(dims)),
    "select_copy": lambda x, dim, index: x.select(dim, index),
    "slice_copy": lambda x, dim=0, start=None, end=None, step=1: x[
        (slice(None),) * (dim % max(x.dim(), 1)) + (slice(start, end, step),)],
    "squeeze_copy": lambda x, dim=None: x.squeeze() if dim is None else x.squeeze(dim),
    "t_copy": lambda x: x.t(),
    "transpose_copy": lambda x, dim0, dim1: x.transpose(dim0, dim1),
    "unfold_copy": lambda x, dimension, size, step: x.unfold(dimension, size, step),
    "unsqueeze_copy": lambda x, dim: x.unsqueeze(dim),
    "view_as_complex_copy": lambda x: _view_as("complex", x),
    "view_as_real_copy": lambda x: _view_as("real", x),
    "view_copy": lambda x, size: x.view(size),
}

_SPLIT_COPIES = {
    "split_copy": lambda x, split_size, dim=0: x.split(split_size, dim),
    "split_with_sizes_copy": lambda x, split_sizes, dim=0: split_with_sizes(x, split_sizes, dim),
    "unbind_copy": lambda x, dim=0: x.unbind(dim),
}

# the parts of a sparse tensor; torch has their copies for the compressed layouts only (a COO
# input reaches no kernel), the dense-input errors being the parts' own
_SPARSE_PART_COPIES = ("ccol_indices_copy", "col_indices_copy", "crow_indices_copy",
                       "indices_copy", "row_indices_copy", "values_copy")

__all__ = sorted(_VIEW_COPIES) + sorted(_SPLIT_COPIES) + sorted(_SPARSE_PART_COPIES) + [
    "detach_copy", "split_with_sizes", "unsafe_split", "unsafe_chunk",
    "unsafe_split_with_sizes",
]


def _narrow(x, dim, start, length):
    if x.is_sparse:  # a sparse COO tensor narrows into a new one (it has no view)
        from .ops import sparse_ops

        return sparse_ops.narrow_copy(x, dim, start, length)
    return x.narrow(dim, start, length)


def _view_as(kind, x):
    import numtorch

    if kind == "complex":
        return numtorch.view_as_complex(x)
    return numtorch.view_as_real(x.resolve_conj())  # (the copy form takes a conj() result)


def _copy_form(name, view, many):
    def fn(input, *args, **kwargs):
        _require_tensor(name, input)
        out = view(input, *args, **kwargs)
        if input.is_sparse:  # (sparse narrow_copy: already a new tensor, its node torch's)
            return out
        if many:
            return tuple(o.clone(memory_format=_contiguous()) for o in out)
        return out.clone(memory_format=_contiguous())

    fn.__name__ = fn.__qualname__ = name
    base = name[:-len("_copy")]
    what = "a tuple of new tensors" if many else "a new contiguous tensor"
    fn.__doc__ = (f"What :meth:`numtorch.Tensor.{base}` returns, as {what} that shares no "
                  f"memory with ``input`` (gradients flow as through the view).")
    return fn


def _contiguous():
    from ._layout import contiguous_format

    return contiguous_format


for _name, _view in _VIEW_COPIES.items():
    globals()[_name] = _copy_form(_name, _view, False)
for _name, _view in _SPLIT_COPIES.items():
    globals()[_name] = _copy_form(_name, _view, True)
del _name, _view


def _sparse_part_copy(name):
    part = name[:-len("_copy")]

    def fn(input):
        _require_tensor(name, input)
        if input.is_sparse:
            device = "CUDA" if input.device.type == "cuda" else "CPU"
            raise no_kernel(name, f"Sparse{device}", mobile_hint=True)
        return getattr(input, part)().clone()

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"A copy of :meth:`numtorch.Tensor.{part}` of a sparse compressed tensor "
                  "(as torch, COO tensors have no such kernel).")
    return fn


for _name in _SPARSE_PART_COPIES:
    globals()[_name] = _sparse_part_copy(_name)
del _name


def detach_copy(input):
    """A new tensor with ``input``'s values, outside the autograd graph.

    Note: torch 2.13 marks its result as requiring grad (with no usable ``grad_fn``);
    numtorch returns a plain detached copy.
    """
    _require_tensor("detach_copy", input)
    return input.detach().clone(memory_format=_contiguous())


def split_with_sizes(input, split_sizes, dim=0):
    """Split ``input`` along ``dim`` into views of the given sizes, which must add up to the
    size of that dimension.

    Returns:
        tuple of Tensor: one view per entry of ``split_sizes``.
    """
    _require_tensor("split_with_sizes", input)
    if input.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = dim + input.dim() if dim < 0 else dim
    if not 0 <= d < input.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    sizes = [int(s) for s in split_sizes]
    size = input.shape[d]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={sizes}")
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                           f"(input tensor's size at dimension {dim}), but got "
                           f"split_sizes={sizes}")
    return tuple(input.split(sizes, d))


def _unsafe(pieces, name):
    """The pieces as torch's unsafe variants give them: they share memory with the input but
    autograd does not see them as views (in-place writes allowed, own version counters)."""
    from .autograd.graph import rename_node

    for piece in pieces:
        if piece._extra is not None:
            piece._extra.pop("multi_view", None)
        piece._base = piece._view_fn = None
        piece._vc = [0]
        rename_node(piece, name)
    return pieces


def unsafe_split(input, split_size, dim=0):
    """:func:`numtorch.split` with an int ``split_size``, outputs not tracked as views."""
    _require_tensor("unsafe_split", input)
    return _unsafe(tuple(input.split(split_size, dim)), "UnsafeSplitBackward0")


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """:func:`split_with_sizes`, outputs not tracked as views."""
    return _unsafe(split_with_sizes(input, split_sizes, dim), "UnsafeSplitWithSizesBackward0")


def unsafe_chunk(input, chunks, dim=0):
    """:func:`numtorch.chunk`, outputs not tracked as views."""
    _require_tensor("unsafe_chunk", input)
    return _unsafe(tuple(input.chunk(chunks, dim)), "UnsafeSplitBackward0")
