"""``torch.nn.utils.memory_format``: store convolution weights in a given memory format
(channels-last convolutions then need no layout change of the weight)."""

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, classes):
    from ...autograd.grad_mode import no_grad

    if isinstance(module, classes):
        with no_grad():
            weight = module.weight.detach().clone(memory_format=memory_format)
            module.weight.data = weight
    for child in module.children():
        _convert(child, memory_format, classes)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give every ``Conv2d``/``ConvTranspose2d`` weight in ``module`` (recursively) the
    ``memory_format`` (e.g. ``torch.channels_last``); returns ``module``, changed in
    place."""
    from ..modules.conv import Conv2d, ConvTranspose2d

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Give every ``Conv3d``/``ConvTranspose3d`` weight in ``module`` (recursively) the
    ``memory_format`` (e.g. ``torch.channels_last_3d``); returns ``module``, changed in
    place."""
    from ..modules.conv import Conv3d, ConvTranspose3d

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
