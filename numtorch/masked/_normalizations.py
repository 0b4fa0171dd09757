"""Functions along one dim that keep the input's shape: softmax and its kin over the kept
elements (masked-out ones get 0, or -inf for log_softmax), scans, normalize, logaddexp."""

import numtorch as _nt

from ._mask_args import fill, first_dim, input_mask, masked_fill_identity, to_dtype
from ._reductions import norm


def softmax(input, dim, *, dtype=None, mask=None):
    """softmax over the kept elements along ``dim``; 0 where masked out, nan in a slice with
    nothing kept."""
    x = masked_fill_identity("amax", input, mask)
    return _nt.softmax(x, first_dim(dim), dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """log_softmax over the kept elements along ``dim``; -inf where masked out."""
    x = masked_fill_identity("amax", input, mask)
    return _nt.log_softmax(x, first_dim(dim), dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    """softmin over the kept elements along ``dim``; 0 where masked out."""
    x = masked_fill_identity("amin", input, mask)
    return _nt.nn.functional.softmin(x, first_dim(dim), dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):  # noqa: A002
    """The kept elements divided by their ``ord``-norm along ``dim`` (at least ``eps``);
    masked-out elements give 0."""
    x = input if dtype is None else input.to(dtype)
    m = input_mask(x, mask)
    d = first_dim(dim)
    scale = norm(x, ord, d, keepdim=True, mask=mask)
    return fill(x, m, 0) / _nt.clamp(scale, min=eps)


def cumsum(input, dim, *, dtype=None, mask=None):
    """Running sum along ``dim`` with masked-out elements counted as 0."""
    x = masked_fill_identity("cumsum", input, mask)
    return _nt.cumsum(x, first_dim(dim), dtype=input.dtype if dtype is None else dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """Running product along ``dim`` with masked-out elements counted as 1."""
    x = masked_fill_identity("cumprod", input, mask)
    return _nt.cumprod(x, first_dim(dim), dtype=input.dtype if dtype is None else dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """log(exp(input) + exp(other)) with each operand's masked-out elements taken as -inf."""
    a = masked_fill_identity("logaddexp", input, input_mask)
    b = masked_fill_identity("logaddexp", other, other_mask)
    return to_dtype(_nt.logaddexp(a, b), dtype)
