"""Top-level activation, loss, recurrent-cell and convolution functions (``torch.selu``,
``torch.kl_div``, ``torch.lstm_cell``, ``torch.convolution``, ...).

torch offers these besides ``torch.nn.functional`` with ATen's signatures: losses take
``reduction`` as an int (0 none, 1 mean, 2 sum) and have no legacy ``size_average``/``reduce``
arguments, cells take raw weights. Each function maps its arguments onto the ``F`` function
(or the recurrent ops) that hold the single definition of the math.
"""

import warnings

from ._inplace_functions import _require_tensor

__all__ = [
    "selu", "celu", "prelu", "rrelu", "threshold", "hardshrink", "kl_div", "bilinear",
    "binary_cross_entropy_with_logits", "cosine_embedding_loss", "margin_ranking_loss",
    "triplet_margin_loss", "hinge_embedding_loss", "poisson_nll_loss", "ctc_loss",
    "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "conv_tbc", "constant_pad_nd",
    "convolution", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "affine_grid_generator",
    "cudnn_is_acceptable",
]

_REDUCTIONS = ("none", "mean", "sum")


def _F():
    from .nn import functional

    return functional


def _reduction(reduction):
    if isinstance(reduction, str):
        return reduction
    if reduction not in (0, 1, 2):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def selu(input):
    """SELU of ``input``; see :func:`numtorch.nn.functional.selu`."""
    _require_tensor("selu", input)
    return _F().selu(input)


def celu(input, alpha=1.0):
    """CELU of ``input``; see :func:`numtorch.nn.functional.celu`."""
    _require_tensor("celu", input)
    return _F().celu(input, alpha)


def prelu(input, weight):
    """PReLU of ``input`` with learned negative slopes ``weight``; see
    :func:`numtorch.nn.functional.prelu`."""
    _require_tensor("prelu", input)
    return _F().prelu(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """Randomized leaky ReLU; see :func:`numtorch.nn.functional.rrelu`.

    Note: ``generator`` is accepted for signature compatibility; slopes come from numtorch's
    default generator.
    """
    _require_tensor("rrelu", input)
    return _F().rrelu(input, lower, upper, training)


def threshold(input, threshold, value):
    """Replace the elements of ``input`` that are ``<= threshold`` by ``value``."""
    _require_tensor("threshold", input)
    return _F().threshold(input, threshold, value)


def hardshrink(input, lambd=0.5):
    """Zero the elements of ``input`` with ``|x| <= lambd``; see
    :func:`numtorch.nn.functional.hardshrink`."""
    _require_tensor("hardshrink", input)
    return _F().hardshrink(input, lambd)


def kl_div(input, target, reduction=1, *, log_target=False):
    """Kullback-Leibler divergence with an int ``reduction`` (1 averages every element, as
    ``reduction='mean'`` of :func:`numtorch.nn.functional.kl_div`, without its warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return _F().kl_div(input, target, reduction=_reduction(reduction),
                           log_target=log_target)


def bilinear(input1, input2, weight, bias=None):
    """``x1^T W x2 + b`` per output feature; see :func:`numtorch.nn.functional.bilinear`."""
    return _F().bilinear(input1, input2, weight, bias)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=1):
    """Sigmoid plus binary cross entropy with an int ``reduction``; see
    :func:`numtorch.nn.functional.binary_cross_entropy_with_logits`."""
    return _F().binary_cross_entropy_with_logits(input, target, weight,
                                                 reduction=_reduction(reduction),
                                                 pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    """Cosine embedding loss with an int ``reduction``; see
    :func:`numtorch.nn.functional.cosine_embedding_loss`."""
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    """Margin ranking loss with an int ``reduction``; see
    :func:`numtorch.nn.functional.margin_ranking_loss`."""
    return _F().margin_ranking_loss(input1, input2, target, margin,
                                    reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction=1):
    """Triplet margin loss with an int ``reduction``; see
    :func:`numtorch.nn.functional.triplet_margin_loss`."""
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    """Hinge embedding loss with an int ``reduction``; see
    :func:`numtorch.nn.functional.hinge_embedding_loss`."""
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """Poisson negative log likelihood with every argument required and an int
    ``reduction``; see :func:`numtorch.nn.functional.poisson_nll_loss`."""
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_reduction(reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False):
    """Connectionist temporal classification loss with an int ``reduction``; see
    :func:`numtorch.nn.functional.ctc_loss`."""
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         _reduction(reduction), zero_infinity)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step from raw weights; see :func:`numtorch.ops.rnn_cell_forms.lstm_cell`."""
    from .ops import rnn_cell_forms

    return rnn_cell_forms.lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step from raw weights; see :func:`numtorch.ops.rnn_cell_forms.gru_cell`."""
    from .ops import rnn_cell_forms

    return rnn_cell_forms.gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` from raw weights."""
    from .ops import rnn_cell_forms

    return rnn_cell_forms.rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)`` from raw weights."""
    from .ops import rnn_cell_forms

    return rnn_cell_forms.rnn_relu_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution over time of a time-batch-channel input.

    Args:
        input (Tensor): ``(T, B, C_in)``.
        weight (Tensor): ``(K, C_in, C_out)``.
        bias (Tensor): ``(C_out,)``.
        pad (int): zeros added at both ends of the time axis.

    Returns:
        Tensor: ``(T + 2 * pad - K + 1, B, C_out)``.
    """
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = _F().conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


def constant_pad_nd(input, pad, value=0):
    """Pad ``input`` with ``value`` (negative amounts crop); see
    :func:`numtorch.nn.functional.pad`."""
    return _F().pad(input, tuple(pad), "constant", value)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """N-d (transposed) convolution chosen by ``weight``'s dimensions: the common entry of
    :func:`numtorch.nn.functional.conv1d` ... ``conv_transpose3d``."""
    F = _F()
    n = weight.dim() - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D, 4D or 5D weight for convolution, but got weight of "
                           f"size {list(weight.shape)}")
    stride, padding, dilation = tuple(stride), tuple(padding), tuple(dilation)
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, weight, bias, stride, padding, tuple(output_padding), groups,
                  dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


_INTERPOLATION = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """:func:`numtorch.nn.functional.grid_sample` with ATen's int modes: interpolation 0
    bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection."""
    return _F().grid_sample(input, grid, _INTERPOLATION[interpolation_mode],
                            _PADDING[padding_mode], align_corners)


grid_sampler_2d = grid_sampler
grid_sampler_3d = grid_sampler


def affine_grid_generator(theta, size, align_corners):
    """:func:`numtorch.nn.functional.affine_grid` (``align_corners`` required)."""
    return _F().affine_grid(theta, list(size), align_corners)


def cudnn_is_acceptable(self):
    """False: numtorch has no cuDNN kernels for any tensor."""
    return False
