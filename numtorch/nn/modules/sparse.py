"""nn modules: sparse (torch's file of the same name; forward passes call nn.functional)."""

from ... import _creation
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


def _check_padding_idx(padding_idx, num_embeddings, message):
    if padding_idx is None:
        return None
    if padding_idx > 0 and padding_idx >= num_embeddings or padding_idx < -num_embeddings:
        raise AssertionError(message)
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def _table(num_embeddings, embedding_dim, _weight, factory):
    if _weight is None:
        return Parameter(_creation.empty((num_embeddings, embedding_dim), **factory)), True
    if list(_weight.shape) != [num_embeddings, embedding_dim]:
        raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
    return Parameter(_weight), False


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``.

    The weight is drawn from N(0, 1), with the ``padding_idx`` row (if any) zeroed.

    Args:
        num_embeddings (int): the number of rows.
        embedding_dim (int): the size of each vector.
        padding_idx (int, optional): a row that starts at zero and gets no gradient
            (negative values count from the end).
        max_norm (float, optional): looked-up rows with a larger norm are rescaled in place.
        norm_type (float): the norm for ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): divide row gradients by index frequency. Default: False.
        sparse (bool): give ``weight`` a sparse COO gradient. Default: False.

    Shape:
        - Input: integer tensor of any shape. Output: ``input.shape + (embedding_dim,)``.

    Example:
        >>> torch.nn.Embedding(10, 3)(torch.tensor([[1, 2], [4, 9]])).shape
        torch.Size([2, 2, 3])

    Note:
        With ``sparse=True`` the weight's gradient is a sparse COO tensor (CPU weights; see
        :func:`numtorch.nn.functional.embedding`); SGD, SparseAdam and Adagrad take it.
    """

    __constants__ = ["num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
                     "scale_grad_by_freq", "sparse"]

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _check_padding_idx(padding_idx, num_embeddings,
                                              "Padding_idx must be within num_embeddings")
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.weight, fresh = _table(num_embeddings, embedding_dim, _weight,
                                    {"device": device, "dtype": dtype})
        if fresh:
            self.reset_parameters()
        if _freeze:
            self.weight._set_requires_grad(False)  # (allowed inside torch.func)
        self.sparse = sparse

    def reset_parameters(self):
        """Draw the weight from N(0, 1) and zero the padding row."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """Build an ``Embedding`` around a given 2-D table (used as is, not copied).

        Args:
            embeddings (Tensor): the ``(num_embeddings, embedding_dim)`` weight.
            freeze (bool): the weight gets no gradient. Default: True.
            padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse: as in the
                constructor.

        Returns:
            Embedding: the new module.

        Example:
            >>> e = torch.nn.Embedding.from_pretrained(torch.eye(3))
            >>> e(torch.tensor([1]))
            tensor([[0., 1., 0.]])
        """
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, _weight=embeddings, _freeze=freeze, padding_idx=padding_idx,
                   max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (see
    :func:`numtorch.nn.functional.embedding_bag`).

    Args:
        num_embeddings (int): the number of rows.
        embedding_dim (int): the size of each vector.
        max_norm (float, optional): looked-up rows with a larger norm are rescaled in place.
        norm_type (float): the norm for ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): divide row gradients by index frequency. Default: False.
        mode (str): ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
        sparse (bool): give ``weight`` a sparse COO gradient. Default: False.
        include_last_offset (bool): ``offsets`` has one extra, final entry. Default: False.
        padding_idx (int, optional): an index left out of every bag; its row starts at zero.

    Shape:
        - Input: 1-D indices with 1-D ``offsets``, or 2-D ``(B, L)``. Output:
          ``(B, embedding_dim)``.

    Example:
        >>> bag = torch.nn.EmbeddingBag(10, 3, mode="sum")
        >>> bag(torch.tensor([1, 2, 4, 5]), torch.tensor([0, 2])).shape
        torch.Size([2, 3])
    """

    __constants__ = ["num_embeddings", "embedding_dim", "max_norm", "norm_type",
                     "scale_grad_by_freq", "mode", "sparse", "include_last_offset",
                     "padding_idx"]

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _check_padding_idx(padding_idx, num_embeddings,
                                              "padding_idx must be within num_embeddings")
        self.weight, fresh = _table(num_embeddings, embedding_dim, _weight,
                                    {"device": device, "dtype": dtype})
        if fresh:
            self.reset_parameters()
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self):
        """Draw the weight from N(0, 1) and zero the padding row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode='{self.mode}'"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """Build an ``EmbeddingBag`` around a given 2-D table (used as is, not copied).

        Args:
            embeddings (Tensor): the ``(num_embeddings, embedding_dim)`` weight.
            freeze (bool): the weight gets no gradient. Default: True.
            max_norm, norm_type, scale_grad_by_freq, mode, sparse, include_last_offset,
                padding_idx: as in the constructor.

        Returns:
            EmbeddingBag: the new module.

        Example:
            >>> bag = torch.nn.EmbeddingBag.from_pretrained(torch.eye(3), mode="sum")
            >>> bag(torch.tensor([[0, 2]]))
            tensor([[1., 0., 1.]])
        """
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, _weight=embeddings, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
