"""Top-level in-place functions (``torch.exp_(x)``, ``torch.relu_(x)``, ``torch.dropout_``...).

torch exposes most in-place Tensor methods as functions too. Each one here checks that its
first argument is a Tensor (torch's ``TypeError`` wording) and then calls the Tensor method,
which holds the single definition (math, version counter, autograd).
"""

from ._tensor import Tensor

# in-place Tensor methods that torch also offers as ``torch.<name>``
_METHOD_FORMS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_",
    "clamp_", "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_",
    "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_",
    "floor_", "frac_", "gcd_", "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_",
    "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_",
    "relu_", "resize_as_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_",
    "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
)

__all__ = list(_METHOD_FORMS) + [
    "celu_", "selu_", "rrelu_", "threshold_", "dropout_", "alpha_dropout_",
    "feature_dropout_", "feature_alpha_dropout_", "embedding_renorm_",
]


def _require_tensor(fn, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _method_form(name):
    def fn(input, *args, **kwargs):
        _require_tensor(name, input)
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Apply ``{name[:-1]}`` to ``input`` in place and return ``input``; the "
                  f"same as ``input.{name}(...)`` (see :meth:`numtorch.Tensor.{name}`).")
    return fn


for _name in _METHOD_FORMS:
    globals()[_name] = _method_form(_name)
del _name


def celu_(input, alpha=1.0):
    """In-place :func:`numtorch.nn.functional.celu` of ``input``; returns ``input``."""
    from .nn import functional as F

    _require_tensor("celu_", input)
    return F.celu(input, alpha, inplace=True)


def selu_(input):
    """In-place :func:`numtorch.nn.functional.selu` of ``input``; returns ``input``."""
    from .nn import functional as F

    _require_tensor("selu_", input)
    return F.selu(input, inplace=True)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """In-place :func:`numtorch.nn.functional.rrelu` of ``input``; returns ``input``.

    Note: ``generator`` is accepted for signature compatibility; the slopes come from
    numtorch's default generator.
    """
    from .nn import functional as F

    _require_tensor("rrelu_", input)
    return F.rrelu(input, lower, upper, training, inplace=True)


def threshold_(input, threshold, value):
    """Replace the elements of ``input`` that are ``<= threshold`` by ``value``, in place."""
    from .nn import functional as F

    _require_tensor("threshold_", input)
    return F.threshold_(input, threshold, value)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Rescale, in place, the rows of the matrix ``input`` named in ``indices`` whose
    ``norm_type``-norm exceeds ``max_norm`` so that their norm becomes (just under)
    ``max_norm``. Each row is treated once however often it is named. Returns ``input``.
    """
    from .autograd.grad_mode import no_grad

    _require_tensor("embedding_renorm_", input)
    if input.dim() != 2:
        raise RuntimeError(f"embedding_renorm_(): Expected 2-D tensor for argument #1 'self'"
                           f" (got {input.dim()}-D tensor)")
    with no_grad():
        rows = indices.reshape(-1).unique()
        picked = input[rows]
        norms = picked.norm(p=norm_type, dim=1, keepdim=True)
        # torch's scale leaves a tiny margin below max_norm (1e-7 added to the norm)
        scale = max_norm / (norms + 1e-7)
        input[rows] = picked.where(norms <= max_norm, picked * scale)
    return input


def _dropout_form(name, feature, alpha):
    def fn(input, p, train):
        from .nn.functional.dropout import _dropout

        _require_tensor(name, input)
        if p < 0 or p > 1:
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
        return _dropout(input, p, train, name.endswith("_"), feature, alpha)

    fn.__name__ = fn.__qualname__ = name
    what = ("whole channels (dim 1) of " if feature else "elements of ") + "``input``"
    kind = "alpha dropout (SELU's saturation value for dropped units)" if alpha else "dropout"
    where = "in place, returning ``input``" if name.endswith("_") else "into a new tensor"
    fn.__doc__ = (f"Apply {kind} to {what} with probability ``p`` when ``train`` is true, "
                  f"{where}. ``p`` outside [0, 1] raises RuntimeError.")
    return fn


dropout_ = _dropout_form("dropout_", False, False)
alpha_dropout_ = _dropout_form("alpha_dropout_", False, True)
feature_dropout_ = _dropout_form("feature_dropout_", True, False)
feature_alpha_dropout_ = _dropout_form("feature_alpha_dropout_", True, True)
