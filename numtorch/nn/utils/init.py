"""``torch.nn.utils.init``: ``skip_init``, building a module without spending time on its
parameter initialisation."""

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Build ``module_cls(*args, **kwargs)`` whose parameters and buffers hold unspecified
    values, to be filled by the caller (e.g. from a checkpoint).

    The class must accept a ``device`` argument, as torch requires.

    Note: numtorch has no "meta" device to build on, so the module's own initialisation
    runs; its values are still to be treated as unspecified.
    """
    from ..modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
