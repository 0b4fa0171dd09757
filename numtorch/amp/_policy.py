"""Which functions autocast changes and how: torch 2.13's autocast op lists, one table per
device type (CPU, CUDA).

Three policies, checked against torch in the REPL op by op:

* ``lower``: floating inputs are cast to the region's dtype (bfloat16/float16): matrix
  products, convolutions, ``linear``, ``prelu``, attention, and the composites torch builds
  from them (``einsum``, ``tensordot``, ``inner``, ``multi_dot``, ``MultiheadAttention``).
* ``fp32``: floating inputs are cast to float32: the losses, 3-d and fractional pooling,
  ``max_unpool``, replication and 1-d/2-d reflection padding, ``grid_sample``, ``prod``,
  ``cdist``, ``trace``, ``polar``, the FFTs and the factorizations and solvers of ``linalg``.
* ``promote``: floating inputs are cast to the widest of them (``cat``, ``stack``,
  ``index_copy``).

Only float16/bfloat16/float32 tensors on the region's device are cast (float64 and integer
tensors never are); a call with ``dtype=`` or ``out=`` runs unchanged, and the ops a
wrapped function calls internally are not cast again (torch excludes them the same way).

The wrappers are put in place (``setattr`` on the owning module or on ``Tensor``) only while
autocast is enabled in some thread, and the original functions are put back afterwards, so
code that never enters an autocast region runs with no extra call at all. Within a thread that
has autocast off the wrappers pass straight through.
"""

import functools
import importlib
import threading

from .. import _dtype, _layers
from .._tensor import Tensor
from . import _state

LOWER, FP32, PROMOTE = "lower", "fp32", "promote"

_LINALG_FP32 = ("inv inv_ex svd svdvals qr eig eigvals eigh eigvalsh cholesky cholesky_ex "
                "solve lstsq householder_product cond tensorinv tensorsolve")
_FFT = ("fft ifft fft2 ifft2 fftn ifftn rfft irfft rfft2 irfft2 rfftn irfftn hfft ihfft hfft2 "
        "ihfft2 hfftn ihfftn")
_LOSSES = ("mse_loss l1_loss smooth_l1_loss huber_loss cross_entropy nll_loss "
           "binary_cross_entropy binary_cross_entropy_with_logits kl_div margin_ranking_loss "
           "soft_margin_loss hinge_embedding_loss cosine_embedding_loss triplet_margin_loss "
           "multi_margin_loss multilabel_margin_loss poisson_nll_loss ctc_loss")
_CONV = "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d"

# owner (a module path, or "numtorch.Tensor") -> {policy: names}
CPU_TABLE = {
    "numtorch": {
        LOWER: f"mm bmm baddbmm addmm addbmm matmul einsum tensordot inner chain_matmul prelu "
               f"{_CONV}",
        FP32: "prod cdist trace inverse pinverse polar quantile nanquantile stft "
              "view_as_complex cholesky cholesky_solve cholesky_inverse triangular_solve svd qr "
              "geqrf ormqr orgqr lu_solve max_pool3d",
        PROMOTE: "cat concat concatenate stack index_copy",
    },
    "numtorch.Tensor": {
        LOWER: "__matmul__ __rmatmul__ matmul mm bmm baddbmm addmm addbmm inner",
        FP32: "prod trace inverse pinverse cholesky cholesky_solve cholesky_inverse "
              "triangular_solve svd qr geqrf ormqr orgqr lu_solve quantile nanquantile stft",
        PROMOTE: "index_copy",
    },
    "numtorch.nn.functional": {
        LOWER: f"linear prelu scaled_dot_product_attention multi_head_attention_forward {_CONV}",
        FP32: f"{_LOSSES} avg_pool3d max_pool3d adaptive_avg_pool3d adaptive_max_pool3d "
              "max_unpool1d max_unpool2d max_unpool3d fractional_max_pool2d "
              "fractional_max_pool3d grid_sample",
    },
    "numtorch.linalg": {LOWER: "vecdot multi_dot", FP32: _LINALG_FP32},
    "numtorch.fft": {FP32: _FFT},
}

# torch's CUDA lists differ: more of the matrix products run in the low dtype, the pointwise
# functions that lose range or precision in float16 (exp, log, pow, the trigonometric ones...),
# the reductions and normalisations run in float32, and a few binary ops promote.
_CUDA_FP32_MATH = ("acos asin cosh sinh tan exp expm1 log log10 log1p log2 pow reciprocal rsqrt "
                   "erfinv cumprod cumsum prod sum norm dist renorm softmax log_softmax cdist")
CUDA_TABLE = {
    "numtorch": {
        LOWER: f"mm bmm baddbmm addmm addbmm addmv addr mv matmul chain_matmul prelu {_CONV}",
        FP32: f"{_CUDA_FP32_MATH} pdist",
        PROMOTE: "addcdiv addcmul atan2 cross dot index_put scatter_add tensordot",
    },
    "numtorch.Tensor": {
        LOWER: "__matmul__ __rmatmul__ matmul mm bmm baddbmm addmm addbmm addmv addr mv",
        FP32: f"{_CUDA_FP32_MATH} __pow__ __rpow__ __rtruediv__ __rdiv__",
        PROMOTE: "addcdiv addcmul atan2 cross dot index_put scatter_add",
    },
    "numtorch.nn.functional": {
        LOWER: f"linear prelu scaled_dot_product_attention {_CONV}",
        FP32: f"{_LOSSES} softmax log_softmax softmin softplus layer_norm group_norm normalize "
              "cosine_similarity pdist",
        PROMOTE: "bilinear grid_sample",
    },
    "numtorch.linalg": {LOWER: "multi_dot"},
}
TABLES = {"cpu": CPU_TABLE, "cuda": CUDA_TABLE}

_BCE_UNSAFE = ("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to "
               "autocast.\nMany models use a sigmoid layer right before the binary cross "
               "entropy layer.\nIn this case, combine the two layers using "
               "torch.nn.functional.binary_cross_entropy_with_logits\nor "
               "torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits "
               "are\nsafe to autocast.")


def _pad_policy(args, kwargs):
    """F.pad: replication padding and 1-d/2-d reflection padding run in float32."""
    pad = args[1] if len(args) > 1 else kwargs.get("pad", ())
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    if mode == "replicate" or (mode == "reflect" and len(pad) <= 4):
        return FP32
    return None


# policies that depend on the arguments: (owner, name) -> function(args, kwargs) -> policy
CONDITIONAL = {("numtorch.nn.functional", "pad"): _pad_policy}


def _tensors(args, kwargs):
    for value in (*args, *kwargs.values()):
        if isinstance(value, Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, Tensor))


def _eligible(t, device_type):
    return (t.dtype in (_dtype.float32, _dtype.float16, _dtype.bfloat16)
            and t.device.type == device_type)


def _cast_args(args, kwargs, device_type, target):
    def cast(value):
        if isinstance(value, Tensor):
            if not _eligible(value, device_type) or value.dtype == target:
                return value
            return _state.cached_cast(value, target)
        if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
            return type(value)(cast(v) for v in value)
        return value

    return [cast(a) for a in args], {k: cast(v) for k, v in kwargs.items()}


def _target_dtype(policy, tensors, device_type):
    if policy == LOWER:
        return _state.get_dtype(device_type)
    if policy == FP32:
        return _dtype.float32
    widest = None  # PROMOTE
    for t in tensors:
        if _eligible(t, device_type):
            widest = t.dtype if widest is None else _dtype.promote_types(widest, t.dtype)
    return widest


def _wrap(fn, policies, choose=None):
    """``fn`` casting its arguments by ``policies[device type]`` (``choose(args, kwargs)``
    decides instead when given) inside an autocast region of that device type."""
    link = _layers.Link(fn)

    # updated=(): not the wrapped function's attributes (another layer's marks and link)
    @functools.wraps(fn, updated=())
    def autocast_op(*args, **kwargs):
        local = _state.local
        if local.busy or kwargs.get("out") is not None or kwargs.get("dtype") is not None:
            return link.below(*args, **kwargs)
        tensors = list(_tensors(args, kwargs))
        if not tensors or not local.enabled.get(tensors[0].device.type, False):
            return link.below(*args, **kwargs)
        device_type = tensors[0].device.type
        if choose is not None and device_type in choose:
            rule = choose[device_type](args, kwargs)
        else:
            rule = policies.get(device_type)
        target = rule and _target_dtype(rule, tensors, tensors[0].device.type)
        if target is not None:
            args, kwargs = _cast_args(args, kwargs, tensors[0].device.type, target)
        local.busy = True
        try:
            return link.below(*args, **kwargs)
        finally:
            local.busy = False

    return _layers.attach(autocast_op, link)


def _owner(path):
    if path == "numtorch.Tensor":
        return Tensor
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError:
        return None  # a module numtorch does not have (yet)


def _bce_refused(args, kwargs):
    raise RuntimeError(_BCE_UNSAFE)


def _entries():
    """``(owner, name, {device type: policy}, {device type: chooser})`` for every function
    some device's table lists."""
    found = {}
    for device_type, table in TABLES.items():
        for path, policies in table.items():
            for policy, names in policies.items():
                for name in names.split():
                    found.setdefault((path, name), ({}, {}))[0][device_type] = policy
    for (path, name), choose in CONDITIONAL.items():
        found.setdefault((path, name), ({}, {}))[1]["cpu"] = choose
    found.setdefault(("numtorch.nn.functional", "binary_cross_entropy"), ({}, {}))[1]["cuda"] = \
        _bce_refused
    for (path, name), (policies, choose) in found.items():
        owner = _owner(path)
        if owner is not None:
            yield owner, name, policies, choose


_installed = []  # (owner, name, wrapper)
_install_lock = threading.Lock()


def set_installed(on):
    """Put the wrappers in place (``on``) or restore the original functions."""
    with _install_lock:
        if on and not _installed:
            for owner, name, policies, choose in _entries():
                original = getattr(owner, name, None)
                if original is None:
                    continue
                wrapper = _wrap(original, policies, choose)
                _installed.append((owner, name, wrapper))
                setattr(owner, name, wrapper)
            from . import _rnn_cells  # the recurrent cells: whole-step rules of their own

            for owner, name, wrapper in _rnn_cells.entries():
                _installed.append((owner, name, wrapper))
                setattr(owner, name, wrapper)
        elif not on and _installed:
            # another layer (the __torch_function__ wrappers, see _layers.py) may have come
            # on top since, or left from under ours: take ours out wherever it is
            for owner, name, wrapper in reversed(_installed):
                _layers.take_out(owner, name, wrapper,
                                 functools.partial(_layers.put_back, owner, name))
            _installed.clear()


def is_installed():
    return bool(_installed)
