"""``torch.cuda.tunable``: TunableOp, torch's run-time choice among its GEMM kernels. numtorch's
GEMMs are single cuBLAS calls made by CuPy, with nothing to choose between, so every function
here refuses: with torch's own error on a machine without CUDA, with a RuntimeError on a GPU."""

from .. import backend

# public name -> the torch._C function its CPU-only build reports missing
_CALLS = {
    "enable": "_cuda_tunableop_enable", "is_enabled": "_cuda_tunableop_is_enabled",
    "tuning_enable": "_cuda_tunableop_tuning_enable",
    "tuning_is_enabled": "_cuda_tunableop_tuning_is_enabled",
    "record_untuned_enable": "_cuda_record_untuned_enable",
    "record_untuned_is_enabled": "_cuda_record_untuned_is_enabled",
    "set_max_tuning_duration": "_cuda_tunableop_set_max_tuning_duration",
    "get_max_tuning_duration": "_cuda_tunableop_get_max_tuning_duration",
    "set_max_tuning_iterations": "_cuda_tunableop_set_max_tuning_iterations",
    "get_max_tuning_iterations": "_cuda_tunableop_get_max_tuning_iterations",
    "set_filename": "_cuda_tunableop_set_filename", "get_filename": "_cuda_tunableop_get_filename",
    "get_results": "_cuda_tunableop_get_results",
    "get_validators": "_cuda_tunableop_get_validators",
    "write_file_on_exit": "_cuda_tunableop_write_file_on_exit",
    "write_file": "_cuda_tunableop_write_file", "read_file": "_cuda_tunableop_get_filename",
    "tune_gemm_in_file": "_cuda_tunableop_get_filename",
    "mgpu_tune_gemm_in_file": "_cuda_tunableop_get_filename",
    "set_rotating_buffer_size": "_cuda_tunableop_set_rotating_buffer_size",
    "get_rotating_buffer_size": "_cuda_tunableop_get_rotating_buffer_size",
    "set_numerical_check_tolerances": "_cuda_tunableop_set_numerical_check_tolerances",
}

__all__ = list(_CALLS)


def _refusing(name, missing):
    def function(*args, **kwargs):
        if backend.cupy_or_none() is None:
            raise AttributeError(f"module 'torch._C' has no attribute '{missing}'")
        raise RuntimeError(f"torch.cuda.tunable.{name}: numtorch's GEMMs are cuBLAS calls made "
                           "by CuPy; there are no TunableOp kernels to tune")

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"TunableOp's ``{name}`` (refused: see the module docstring)."
    return function


globals().update({name: _refusing(name, missing) for name, missing in _CALLS.items()})
