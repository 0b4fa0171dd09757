"""``torch._inductor.config``: inductor's flags, with torch's defaults (CPU build).

numtorch compiles nothing (``torch.compile`` runs the model eagerly), so the flags are only
recorded: a program can set and read them, and ``patch`` changes them for a block or a call.
As in torch, a name that is not a flag raises AttributeError, on reading and on setting, also
in the ``triton`` and ``cpp`` sections.
"""

import sys
import types

from .._config_patch import ConfigPatch, changes_of

__all__ = ["cpp", "patch", "triton"]

_FLAGS = {
    "coordinate_descent_tuning": False, "coordinate_descent_check_all_directions": False,
    "fx_graph_cache": True, "autotune_local_cache": True, "freezing": False,
    "max_autotune": False, "max_autotune_gemm": False, "max_autotune_pointwise": False,
    "epilogue_fusion": True, "force_fuse_int_mm_with_mul": False, "use_mixed_mm": True,
    "debug": False, "compile_threads": 2, "fallback_random": False, "implicit_fallbacks": True,
    "benchmark_kernel": False, "layout_optimization": True, "shape_padding": True,
    "split_reductions": True, "permute_fusion": False, "conv_1x1_as_mm": False,
    "size_asserts": True, "allow_buffer_reuse": True, "cpp_wrapper": False,
    "emulate_precision_casts": False,
}
_SECTIONS = {
    "triton": {"cudagraphs": False, "unique_kernel_names": True, "cudagraph_trees": True,
               "autotune_pointwise": True, "max_tiles": None, "multi_kernel": 0,
               "descriptive_names": "original_aten"},
    "cpp": {"threads": -1, "simdlen": None, "enable_kernel_profile": False,
            "weight_prepack": True},
}


class _Section:
    """A section of flags (``config.triton``): unknown names raise AttributeError."""

    def __init__(self, path, values):
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"{self._path}.{name} does not exist")

    def __setattr__(self, name, value):
        if name not in self._values:
            raise AttributeError(f"{self._path}.{name} does not exist")
        self._values[name] = value

    def __dir__(self):
        return sorted(self._values)


triton = _Section("torch._inductor.config.triton", _SECTIONS["triton"])
cpp = _Section("torch._inductor.config.cpp", _SECTIONS["cpp"])


class _ConfigModule(types.ModuleType):
    def __getattr__(self, name):  # only called for names the module does not hold
        raise AttributeError(f"torch._inductor.config.{name} does not exist")

    def __setattr__(self, name, value):
        if name not in _FLAGS and name not in self.__dict__:
            raise AttributeError(f"torch._inductor.config.{name} does not exist")
        super().__setattr__(name, value)


globals().update(_FLAGS)
sys.modules[__name__].__class__ = _ConfigModule


def _resolve(name):
    module = sys.modules[__name__]
    if "." in name:
        section, flag = name.split(".", 1)
        owner = getattr(module, section)
    else:
        owner, flag = module, name
    getattr(owner, flag)  # an unknown name: AttributeError before anything changes
    return owner, flag


def patch(arg1=None, arg2=None, **kwargs):
    """Change flags for a ``with`` block or a decorated call: ``patch(name, value)``,
    ``patch({name: value})`` or ``patch(name=value)`` (``"triton.cudagraphs"`` for a
    section's flag)."""
    return ConfigPatch(changes_of(arg1, arg2, kwargs), _resolve)
