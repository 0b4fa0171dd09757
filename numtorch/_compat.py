"""Start-up helpers PyTorch programs call: compile, deterministic algorithms, version info."""

__all__ = ["compile", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision",
           "get_float32_matmul_precision"]

_flags = {"deterministic": False, "warn_only": False, "matmul_precision": "highest"}


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):  # noqa: A001 - torch's name
    """Compile nothing: numtorch has no compiler (documented), so ``model`` runs as written.

    A module comes back wrapped as torch's does (``torch._dynamo.OptimizedModule``: its
    ``_orig_mod`` is ``model``, state-dict keys gain the ``_orig_mod.`` prefix), a function
    unchanged; ``disable=True`` returns ``model`` itself. Works as ``torch.compile(model)``
    and as a decorator with or without arguments.
    """
    if model is None:
        return lambda m: compile(m, disable=disable)
    if disable:
        return model
    from .nn.modules.module import Module

    if isinstance(model, Module):
        from ._dynamo.eval_frame import OptimizedModule

        return OptimizedModule(model)
    return model


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Record the flag; numtorch's NumPy kernels are deterministic already."""
    _flags["deterministic"] = bool(mode)
    _flags["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _flags["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _flags["warn_only"]


def set_float32_matmul_precision(precision):
    """Accepted values 'highest', 'high', 'medium'; NumPy always computes in float32."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}")
    _flags["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _flags["matmul_precision"]
