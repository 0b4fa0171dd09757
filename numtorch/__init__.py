"""numtorch: PyTorch's API on NumPy. ``import numtorch as torch`` and run PyTorch code.

Tensors wrap NumPy arrays (CuPy arrays on CUDA devices); autograd, ``nn``, ``optim`` and
``utils.data`` follow PyTorch's behaviour, which is the specification.
"""

__version__ = "0.1.0"

# every process-wide effect of importing numtorch (allocator tuning, NumPy's error callback,
# a warnings filter) is made here, and documented in numtorch/_process_settings.py
from . import _process_settings  # noqa: E402

_process_settings.apply()

from . import autograd  # noqa: F401,E402  (first: the Tensor class imports its grad mode)
from ._tensor import Tensor  # noqa: F401
from ._legacy_types import (  # noqa: F401
    DoubleTensor, FloatTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor,
    ByteTensor, BoolTensor, BFloat16Tensor,
)
from ._dtype import (  # noqa: F401
    dtype, float16, float32, float64, complex64, complex128, int8, int16, int32, int64, uint8,
    uint16, uint32, uint64, bool, half, float, double, short, int, long, cfloat, cdouble,
    get_default_dtype, set_default_dtype, promote_types, result_type as _result_type, bfloat16,
    finfo, iinfo,
)
from ._device import device, set_default_device, get_default_device  # noqa: F401
from ._size import Size  # noqa: F401
from ._random import (  # noqa: F401
    Generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state,
    default_generator,
)
from ._creation import *  # noqa: F401,F403
from ._from_data import *  # noqa: F401,F403
from ._check_fns import (  # noqa: F401  (torch._check and its family)
    _check, _check_index, _check_is_size, _check_not_implemented, _check_tensor_all,
    _check_tensor_all_with, _check_type, _check_value, _check_with)
from ._ranges import *  # noqa: F401,F403
from ._sampling import *  # noqa: F401,F403
from . import _random_fills  # noqa: F401  (the values of Tensor.uniform_ & co)
from .ops import *  # noqa: F401,F403
from .ops import zeros_like as _ops_zeros_like  # noqa: F401
from . import _ops_tree  # noqa: E402  (torch.ops.<namespace>: answered by the ops package)

_ops_tree.install(ops)  # noqa: F405
from ._creation import zeros_like  # noqa: F401,E402  (the public one, with dtype/device)
from .autograd.grad_mode import (  # noqa: F401
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled, is_inference,
)
from .autograd.anomaly_mode import (  # noqa: F401
    is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from ._default_type import set_default_tensor_type  # noqa: F401,E402
from ._tensor_str import set_printoptions  # noqa: F401
from . import return_types  # noqa: F401
from . import linalg  # noqa: F401,E402  (torch.linalg)
from .linalg import LinAlgError as _LinAlgError  # noqa: F401,E402  (torch._C._LinAlgError)
from .ops.spectral import stft, istft  # noqa: F401,E402
from .ops.sparse_ops import hspmm, smm, sparse_coo_tensor, spmm  # noqa: F401,E402  (sparse COO)
from .ops.segment_reduce import segment_reduce  # noqa: F401,E402
from ._torch_syncbn import *  # noqa: F401,F403,E402  (SyncBatchNorm building blocks)
from ._native_norm import native_norm  # noqa: F401,E402
from .ops.hashing import hash_tensor  # noqa: F401,E402
from .sparse._compressed import (  # noqa: F401,E402  (CSR/CSC/BSR/BSC)
    sparse_bsc_tensor, sparse_bsr_tensor, sparse_compressed_tensor, sparse_csc_tensor,
    sparse_csr_tensor)
from . import sparse  # noqa: F401,E402  (torch.sparse)
from .ops.windows import (  # noqa: F401,E402
    hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window,
)
from . import testing  # noqa: F401  (torch.testing is available after `import torch`)
from . import nn  # noqa: F401,E402
from .nn.functional.pooling import (  # noqa: F401,E402  (torch.max_pool2d and friends)
    avg_pool1d, max_pool1d, max_pool1d_with_indices, max_pool2d, max_pool3d,
)
from .nn.functional.adaptive_pooling import (  # noqa: F401,E402
    adaptive_avg_pool1d, adaptive_max_pool1d_with_indices as adaptive_max_pool1d,
)
from .nn.functional.conv import (  # noqa: F401,E402  (torch.conv2d and friends)
    conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d,
)
from .nn.functional.vision import pixel_shuffle, pixel_unshuffle  # noqa: F401,E402
from .nn.functional.distance import (  # noqa: F401,E402  (torch.cosine_similarity and friends)
    cosine_similarity, pairwise_distance, pdist,
)
from ._creation_buffer import frombuffer  # noqa: F401,E402
from .nn.functional import channel_shuffle  # noqa: F401,E402
from . import optim  # noqa: F401,E402
from . import utils  # noqa: F401,E402
from . import storage  # noqa: F401,E402
from .storage import (  # noqa: F401,E402
    TypedStorage, UntypedStorage, Storage, FloatStorage, DoubleStorage, HalfStorage,
    LongStorage, IntStorage, ShortStorage, CharStorage, ByteStorage, BoolStorage,
    ComplexFloatStorage, ComplexDoubleStorage, BFloat16Storage,
)
from . import serialization  # noqa: F401,E402
from .serialization import save, load  # noqa: F401,E402
from . import cuda, backends, jit, accelerator  # noqa: F401,E402
from . import amp, cpu  # noqa: F401,E402  (torch.amp, torch.cpu and torch.autocast)
from ._layout import (  # noqa: F401,E402
    layout, memory_format, strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc,
    jagged, contiguous_format, channels_last, channels_last_3d, preserve_format,
    legacy_contiguous_format,
)
from .amp.autocast_mode import (  # noqa: F401,E402
    autocast, is_autocast_enabled, set_autocast_enabled, get_autocast_dtype,
    set_autocast_dtype, is_autocast_cpu_enabled, set_autocast_cpu_enabled,
    get_autocast_cpu_dtype, set_autocast_cpu_dtype, get_autocast_gpu_dtype,
    set_autocast_gpu_dtype, is_autocast_cache_enabled, set_autocast_cache_enabled,
    clear_autocast_cache, autocast_increment_nesting, autocast_decrement_nesting,
)
from . import multiprocessing  # noqa: F401,E402  (registers the shared-memory reducers)
from . import distributed  # noqa: F401,E402  (MPI; mpi4py is imported on first use)
from . import onnx  # noqa: F401,E402  (torch.onnx; the onnx package loads on export)
from . import profiler  # noqa: F401,E402  (torch.profiler)
from .autograd import profiler as _autograd_profiler  # noqa: F401,E402  (autograd.profiler)
from ._threads import (  # noqa: F401,E402
    set_num_threads, get_num_threads, get_num_interop_threads, set_num_interop_threads,
)
from ._compat import (  # noqa: F401,E402
    compile, use_deterministic_algorithms, are_deterministic_algorithms_enabled,
    is_deterministic_algorithms_warn_only_enabled, set_float32_matmul_precision,
    get_float32_matmul_precision,
)
from math import e, inf, nan, pi  # noqa: F401,E402  (torch.pi, torch.e, torch.inf, torch.nan)
from ._quantized_api import *  # noqa: F401,F403,E402  (quint8, quantize_per_tensor, ...)
# torch's top-level forms of in-place methods, nn functions, view copies and switches
from ._inplace_functions import *  # noqa: F401,F403,E402  (torch.exp_, torch.dropout_, ...)
from ._torch_norm_dropout import *  # noqa: F401,F403,E402  (torch.batch_norm, native_*)
from ._torch_nn_forms import *  # noqa: F401,F403,E402  (torch.kl_div, torch.lstm_cell, ...)
from ._view_copies import *  # noqa: F401,F403,E402  (torch.permute_copy, split_with_sizes)
from ._foreach import *  # noqa: F401,F403,E402  (torch._foreach_add_, _foreach_norm, ...)
from ._tensor_queries import *  # noqa: F401,F403,E402  (torch.detach, torch.typename, ...)
from ._runtime_flags import *  # noqa: F401,F403,E402  (torch.set_warn_always, ...)
from ._dtype_extra import *  # noqa: F401,F403,E402  (complex32, float8_*, uint1..7, ...)
from ._errors_device import OutOfMemoryError, AcceleratorError  # noqa: F401,E402
from .amp import GradScaler  # noqa: F401,E402  (torch.GradScaler is torch.amp.GradScaler)
from ._dlpack import from_dlpack, to_dlpack  # noqa: F401,E402
from ._streams import Event, Stream  # noqa: F401,E402
from ._igamma import igamma, igammac  # noqa: F401,E402
from ._histogramdd import histogramdd  # noqa: F401,E402
from ._lowrank import svd_lowrank, pca_lowrank, lobpcg  # noqa: F401,E402
from ._control_flow import cond, while_loop  # noqa: F401,E402
from .nn.functional import native_channel_shuffle  # noqa: F401,E402
from ._torch_misc_forms import *  # noqa: F401,F403,E402  (sym_int, q_scale, has_lapack, ...)
from ._from_file import from_file  # noqa: F401,E402
from ._fork import fork, wait, Future, SymInt, SymFloat, SymBool  # noqa: F401,E402
from ._torch_rnn_forms import lstm, gru, rnn_tanh, rnn_relu  # noqa: F401,E402
from ._ops_axis_aliases import install as _install_axis_aliases  # noqa: E402

_install_axis_aliases(globals(), Tensor)  # axis=/keepdims= spellings, as torch accepts
from ._vmap_fallback import install as _install_vmap_fallback  # noqa: E402

_install_vmap_fallback(globals(), ops)  # per-sample vmap of host-value functions, as torch

newaxis = None


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on ``tensor1`` and ``tensor2`` would produce."""
    return _result_type(tensor1, tensor2)


def _assert(condition, message):
    """Raise ``AssertionError(message)`` unless ``condition`` holds (``torch._assert``: an
    assert that fx tracing records as a graph node instead of evaluating, also when a library
    imported it before the trace, as timm does)."""
    tracer = getattr(condition, "tracer", None)
    if tracer is not None and type(condition).__name__ == "Proxy" \
            and type(condition).__module__ == "numtorch.fx.proxy":
        return tracer.create_proxy("call_function", _ASSERT, (condition, message), {})
    assert condition, message


_ASSERT = _assert  # the function itself (a trace patches the module attribute)


def _assert_async(input, assert_msg=None):  # noqa: A002 - torch's argument name
    """Raise RuntimeError unless the one-element tensor ``input`` is nonzero
    (``torch._assert_async``: on CPU it checks at once; ``assert_msg`` is the message)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"_assert_async(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    import builtins  # (``bool`` here is the dtype)

    if not builtins.bool(input):  # more or fewer than one value: bool()'s ambiguity error
        raise RuntimeError(assert_msg if assert_msg is not None else
                           "Expected Tensor with single nonzero value, but got zero")


def can_cast(from_, to):
    """True if torch's casting rules allow ``from_`` to be cast to ``to`` in an op."""
    from ._dtype import can_cast as _can_cast

    return _can_cast(from_, to)


_process_settings.freeze_import_objects()  # last: every import-time object exists now


_RANDOM_OPS = {"_standard_gamma": "standard_gamma", "_standard_gamma_grad": "standard_gamma_grad",
               "_sample_dirichlet": "sample_dirichlet", "_dirichlet_grad": "dirichlet_grad"}


def __getattr__(name):
    # torch.distributions is imported on first use: it is large and keeps `import numtorch` fast
    # (as is the 0.x torch.legacy)
    # (as are torch.fft, torch.special, torch.func and torch.signal)
    if name in ("distributions", "legacy", "ao", "quantization", "fft", "special", "func",
                "signal", "random", "_dynamo", "futures", "fx", "compiler", "functional",
                "version", "torch_version", "library", "overrides", "xpu", "mps", "mtia",
                "quasirandom", "_C", "masked", "nested", "export", "__config__", "_utils",
                "_inductor", "__future__"):
        import importlib

        return importlib.import_module("." + name, __package__)  # (__name__ may be "torch")
    if name in _RANDOM_OPS:  # torch's private sampling ops (distributions' building blocks)
        from .distributions import _random_ops

        return getattr(_random_ops, _RANDOM_OPS[name])
    if name in ("PyTorchFileReader", "ScriptModule", "DisableTorchFunction",
                "DisableTorchFunctionSubclass"):  # torch._C names also at the top level
        from . import _C

        return getattr(_C, name)
    if name == "ScriptFunction":  # torch.ScriptFunction is torch.jit.ScriptFunction
        from .jit import ScriptFunction

        return ScriptFunction
    if name == "vmap":  # torch.vmap is torch.func.vmap
        from .func import vmap

        return vmap
    if name == "torch":  # torch.torch is torch itself (kornia writes torch.torch.Tensor)
        import sys as _sys

        return _sys.modules[__package__]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
