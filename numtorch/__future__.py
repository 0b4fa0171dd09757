"""``torch.__future__``: switches for behaviour that is planned to become the default.

Two switches govern how ``nn.Module`` conversions (``to``, ``float``, ``cpu``...) treat
parameters:

- ``set_overwrite_module_params_on_conversion(True)``: every conversion puts new
  ``Parameter`` objects (with converted gradients) in the module; the old ones keep their
  values.
- ``set_swap_module_params_on_conversion(True)``: the parameter objects are kept and their
  contents swapped (numtorch's conversions always keep the objects, so this is the default
  behaviour here).
"""

__all__ = ["get_overwrite_module_params_on_conversion", "get_swap_module_params_on_conversion",
           "set_overwrite_module_params_on_conversion", "set_swap_module_params_on_conversion"]

_overwrite_module_params_on_conversion = False
_swap_module_params_on_conversion = False


def set_overwrite_module_params_on_conversion(value):
    """Whether module conversions put new parameter objects in the module (see the module
    docstring).

    Args:
        value (bool): the new setting. Default of the process: False.
    """
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion():
    """The value last given to :func:`set_overwrite_module_params_on_conversion`."""
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value):
    """Whether module conversions swap the contents of the parameter objects they keep (and
    take precedence over the overwrite setting).

    Args:
        value (bool): the new setting. Default of the process: False.
    """
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion():
    """The value last given to :func:`set_swap_module_params_on_conversion`."""
    return _swap_module_params_on_conversion
