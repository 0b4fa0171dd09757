"""Start-up helpers PyTorch programs call: compile, deterministic algorithms, version info."""

__all__ = ["compile", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision",
           "get_float32_matmul_precision"]

_flags = {"deterministic": False, "warn_only": False, "matmul_precision": "highest"}

# the names torch.compile accepts for backend= (torch 2.13's registry), and inductor's modes
_BACKENDS = frozenset({
    "aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
    "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts",
    "cudagraphs", "eager", "eager_debug", "eager_noexcept", "inductor", "invoke_subgraph",
    "openxla", "openxla_eval", "pre_dispatch_eager", "ts", "tvm"})
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def _check_compile_args(backend, mode, options):
    """torch.compile's own argument errors (raised when a model is given, as torch's)."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if not isinstance(backend, str):
        return  # a callable backend (or anything else torch takes without looking)
    if backend not in _BACKENDS:
        from ._dynamo.exc import InvalidBackend

        raise InvalidBackend(backend)
    if backend == "inductor" and mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, name=None, disable=False, recompile_limit=None,
            isolate_recompiles=False, shapes_spec=None):  # noqa: A001 - torch's name
    """Compile nothing: numtorch has no compiler (documented), so ``model`` runs as written.

    A module comes back wrapped as torch's does (``torch._dynamo.OptimizedModule``: its
    ``_orig_mod`` is ``model``, state-dict keys gain the ``_orig_mod.`` prefix), a function
    unchanged; ``disable=True`` returns ``model`` itself. Works as ``torch.compile(model)``
    and as a decorator with or without arguments.
    """
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    _check_compile_args(backend, mode, options)
    if disable:
        return model
    from .nn.modules.module import Module

    if isinstance(model, Module):
        from ._dynamo.eval_frame import OptimizedModule, OptimizeContext

        return OptimizedModule(model, OptimizeContext(backend))
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
    """'highest', 'high' or 'medium' (NumPy always computes in float32); as in torch, the two
    lower ones also turn on ``backends.cuda.matmul.allow_tf32``, and another value warns and
    changes nothing."""
    if precision not in ("highest", "high", "medium"):
        import warnings

        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _flags["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _flags["matmul_precision"]
