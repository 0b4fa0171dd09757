"""Lua classes that load as ``numtorch.legacy.nn`` objects.

``nn.<Name>`` maps to the legacy class of that name, cudnn's drop-in modules to their
``nn`` counterparts; the saved field table becomes the object's attributes (legacy modules
use Lua's field names), then ``_post_load`` fills in fields older versions did not save.
"""

__all__ = []

_ALIASES = {
    "nn.SpatialConvolutionMM": "SpatialConvolution",
    "nn.SpatialConvolutionMap": None,
}


def module_class(class_name):
    """The legacy.nn class for a Lua class name, or None."""
    prefix, _, name = class_name.partition(".")
    if prefix not in ("nn", "cudnn") or not name:
        return None
    if class_name in _ALIASES:
        name = _ALIASES[class_name]
        if name is None:
            return None
    from ...legacy import nn as legacy_nn

    cls = getattr(legacy_nn, name, None)
    if isinstance(cls, type) and issubclass(cls, (legacy_nn.Module, legacy_nn.Criterion)):
        return cls
    return None


def fill_module(obj, fields):
    """Give ``obj`` the string-keyed ``fields`` as attributes and complete it."""
    for key, value in fields.items():
        if isinstance(key, str):
            obj.__dict__[key] = value
    obj._post_load()
    return obj
