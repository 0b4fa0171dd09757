"""nn modules: the softmax family (Softmin, Softmax, Softmax2d, LogSoftmax).

They belong to torch's ``nn.modules.activation`` and are re-exported there; ``__module__``
names that file, so reprs, pickles and saved models use torch's path.
"""

from .. import functional as F
from .module import Module

__all__ = ["Softmin", "Softmax", "Softmax2d", "LogSoftmax"]


class _SoftmaxBase(Module):
    __constants__ = ["dim"]

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):  # modules pickled before ``dim`` existed
            self.dim = None

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(_SoftmaxBase):
    """Softmax of ``-x`` along ``dim`` (see :func:`numtorch.nn.functional.softmin`).

    Args:
        dim (int): the dimension to normalise.

    Example:
        >>> torch.nn.Softmin(dim=0)(torch.tensor([0.0, 0.0]))
        tensor([0.5000, 0.5000])
    """

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=4)


class Softmax(_SoftmaxBase):
    """Softmax along ``dim`` (see :func:`numtorch.nn.functional.softmax`).

    Args:
        dim (int): the dimension to normalise.

    Example:
        >>> torch.nn.Softmax(dim=0)(torch.tensor([0.0, 0.0]))
        tensor([0.5000, 0.5000])
    """

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=4)


class Softmax2d(Module):
    """Softmax over the channels at every spatial location of a ``(N, C, H, W)`` or
    ``(C, H, W)`` input.

    Example:
        >>> torch.nn.Softmax2d()(torch.zeros(2, 1, 1)).flatten()
        tensor([0.5000, 0.5000])
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=4)


class LogSoftmax(_SoftmaxBase):
    """``log(softmax(x))`` along ``dim`` (see :func:`numtorch.nn.functional.log_softmax`).

    Args:
        dim (int): the dimension to normalise.

    Example:
        >>> torch.nn.LogSoftmax(dim=0)(torch.tensor([0.0, 0.0]))
        tensor([-0.6931, -0.6931])
    """

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=4)


for _cls in (Softmin, Softmax, Softmax2d, LogSoftmax):
    _cls.__module__ = "numtorch.nn.modules.activation"
