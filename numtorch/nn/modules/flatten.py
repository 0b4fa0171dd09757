"""Flatten (merge a range of dims into one) and Unflatten (split one dim into several)."""

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merge dims ``start_dim..end_dim`` into one (by default all but the batch dim).

    Example:
        >>> torch.nn.Flatten()(torch.zeros(32, 1, 5, 5)).shape
        torch.Size([32, 25])
    """

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        """See :meth:`numtorch.Tensor.flatten`."""
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _require_int_sizes(sizes):
    if isinstance(sizes, (tuple, list)):
        for i, s in enumerate(sizes):
            if not isinstance(s, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element of "
                                f"type {type(s).__name__} at pos {i}")
        return
    raise TypeError(f"unflattened_size must be a tuple of ints, but found type "
                    f"{type(sizes).__name__}")


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (one entry may be -1).

    Example:
        >>> torch.nn.Unflatten(1, (2, 5, 5))(torch.zeros(2, 50)).shape
        torch.Size([2, 2, 5, 5])
    """

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim, unflattened_size):
        super().__init__()
        _require_int_sizes(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        """See :meth:`numtorch.Tensor.unflatten`."""
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
