"""``torch.native_norm``: the p-norm kernel torch keeps for sparse COO tensors.

torch registers it for sparse COO storage only (a full reduction over the stored values);
dense and compressed tensors get its dispatcher error. No gradient, as in torch.
"""

from ._dispatch_error import no_kernel
from .autograd.grad_mode import no_grad

__all__ = ["native_norm"]

_UNSET = object()


def native_norm(input, p=2, dim=_UNSET, keepdim=_UNSET, dtype=_UNSET):
    """The ``p``-norm of all stored values of a sparse COO tensor.

    Called as ``native_norm(input, p=2)`` or ``native_norm(input, p, dim, keepdim, dtype)``;
    ``dim`` must be empty or name every dimension and ``dtype`` must be None (torch's sparse
    kernel supports only full reductions in the values' own dtype).

    Example:
        >>> torch.native_norm(torch.tensor([[3., 0.], [0., -4.]]).to_sparse())
        tensor(5.)
    """
    full_form = dim is not _UNSET or keepdim is not _UNSET or dtype is not _UNSET
    op = "native_norm.ScalarOpt_dim_dtype" if full_form else "native_norm"
    device = "CUDA" if input.device.type == "cuda" else "CPU"
    if not input.is_sparse:
        prefix = "SparseCsr" if input.layout is not _strided() else ""
        raise no_kernel(op, prefix + device, mobile_hint=True)
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {_type_name(input.dtype)} instead.")
    if full_form:
        dims = [] if dim is _UNSET or dim is None else (
            [dim] if isinstance(dim, int) else list(dim))
        nd = input.dim()
        if dims and sorted({d % max(nd, 1) for d in dims}) != list(range(nd)):
            raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' "
                               "must either be empty or contain all dimensions of the input")
        if dtype is not _UNSET and dtype is not None:
            raise RuntimeError("norm_sparse currently does not support 'dtype' argument")
    from .ops.matrix_norms import vector_norm

    with no_grad():
        values = input.coalesce()._values() if not input.is_coalesced() else input._values()
        return vector_norm(values.detach(), 2 if p is None else p)


def _strided():
    from . import strided

    return strided


def _type_name(dt):
    from . import _dtype

    return _dtype._TYPE_DISPLAY[dt.name]
