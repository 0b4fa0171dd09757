"""``torch.igamma`` / ``torch.igammac``: torch's names of the regularized incomplete gamma
functions :func:`numtorch.special.gammainc` / :func:`numtorch.special.gammaincc`."""

from ._tensor import Tensor

__all__ = ["igamma", "igammac"]


def _check(fn, input, other, other_pos=2):
    """torch's TypeError for a non-tensor argument (``other`` is position 1 of a method)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not isinstance(other, Tensor):
        raise TypeError(f"{fn}(): argument 'other' (position {other_pos}) must be Tensor, not "
                        f"{type(other).__name__}")


def igamma(input, other, *, out=None):
    """The regularized lower incomplete gamma function ``P(input, other)``; see
    :func:`numtorch.special.gammainc` (the gradient reaches ``other`` only, as in torch)."""
    from . import special

    _check("igamma", input, other)
    return special.gammainc(input, other, out=out)


def igammac(input, other, *, out=None):
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``; see
    :func:`numtorch.special.gammaincc`."""
    from . import special

    _check("igammac", input, other)
    return special.gammaincc(input, other, out=out)
