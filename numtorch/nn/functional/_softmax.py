"""nn.functional: the softmax family (softmax, softmin, log_softmax, gumbel_softmax).

Re-exported by ``activation.py``; the stable kernels are ``numtorch.ops.softmax``'s. Without
``dim`` the legacy implicit choice is made, with torch's deprecation warning.
"""

import warnings

from ... import _dtype
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops.softmax import log_softmax as _log_softmax, softmax as _softmax

__all__ = ["softmax", "softmin", "log_softmax", "gumbel_softmax"]


def _tensor_arg(fn, input):
    raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                    f"{type(input).__name__}")


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  f"to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_input(fn, input, dtype):
    # the dtype is checked by numtorch.ops.softmax, which knows the dim (torch's message
    # names the kernel for the last dim or for another one)
    if not isinstance(input, Tensor):
        _tensor_arg(fn, input)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Rescale slices along ``dim`` to be positive and sum to 1: ``exp(x) / sum(exp(x))``.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise. Without it a legacy choice is made (0 for 0-,
            1- and 3-d inputs, else 1) with torch's deprecation warning.
        dtype (numtorch.dtype, optional): cast ``input`` to this dtype first.

    Returns:
        Tensor: the probabilities.

    Example:
        >>> torch.nn.functional.softmax(torch.tensor([0.0, 0.0]), dim=0)
        tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    _softmax_input("softmax", input, dtype)
    return _softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax of ``-input``: small entries get large probabilities.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise (see :func:`softmax` for ``None``).
        dtype (numtorch.dtype, optional): cast ``input`` to this dtype first.

    Returns:
        Tensor: the probabilities.

    Example:
        >>> torch.nn.functional.softmin(torch.tensor([0.0, 0.0]), dim=0)
        tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is None:
        return softmax(-input, dim)
    # negated before the cast, as torch's: a bool input is refused even with a float dtype
    return softmax((-input).to(_dtype.as_dtype(dtype)), dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(input))`` computed stably in one pass.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise (see :func:`softmax` for ``None``).
        dtype (numtorch.dtype, optional): cast ``input`` to this dtype first.

    Returns:
        Tensor: the log-probabilities.

    Example:
        >>> torch.nn.functional.log_softmax(torch.tensor([0.0, 0.0]), dim=0)
        tensor([-0.6931, -0.6931])
    """
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    _softmax_input("log_softmax", input, dtype)
    return _log_softmax(input, dim, dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Sample from the Gumbel-softmax (concrete) distribution, optionally one-hot.

    Gumbel noise ``-log(E)``, ``E ~ Exponential(1)`` (numtorch's default generator), is added
    to ``logits``; the softmax of the sum divided by ``tau`` is returned. With ``hard=True``
    the result is the one-hot vector of the largest entry in the forward pass, while the
    gradient is that of the soft sample (the straight-through estimator).

    Args:
        logits (Tensor): unnormalised log-probabilities.
        tau (float): the temperature (> 0). Default: 1.
        hard (bool): return one-hot samples. Default: False.
        eps (float): unused; kept for compatibility (a value other than the default warns).
        dim (int): the dimension holding the categories. Default: -1.

    Returns:
        Tensor: samples of ``logits``' shape whose slices along ``dim`` sum to 1.

    Example:
        >>> y = torch.nn.functional.gumbel_softmax(torch.zeros(2, 3), hard=True)
        >>> y.sum(-1)
        tensor([1., 1.])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    with no_grad():
        gumbels = -logits.new_empty(logits.shape).exponential_().log()
    y = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y
    with no_grad():
        index = y.max(dim, keepdim=True)[1]
        y_hard = logits.new_zeros(logits.shape).scatter_(dim, index, 1.0)
    return y_hard - y.detach() + y

