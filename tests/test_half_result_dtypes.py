"""Result dtypes (or torch's refusal) of ~130 functions given float16/bfloat16 tensors, against
torch: a Python float combined with a bfloat16 array widens it in NumPy, so a missed cast
shows up as a float32 result (cross_entropy with label smoothing did)."""

import numpy as np
import pytest
import torch

import numtorch as nt

UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh",
         "deg2rad", "digamma", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "floor", "frac",
         "lgamma", "log", "log10", "log1p", "log2", "logit", "i0", "nan_to_num", "neg",
         "rad2deg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sgn", "sin", "sinc",
         "sinh", "sqrt", "square", "tan", "tanh", "trunc", "relu", "mean", "sum", "prod", "std",
         "var", "norm", "nanmean", "nansum", "count_nonzero", "argmax", "special.entr",
         "special.erfcx", "special.ndtr", "special.ndtri", "special.log_ndtr", "special.i0e",
         "special.i1", "special.i1e", "special.expit", "special.psi", "special.gammaln",
         "special.bessel_j0"]
ALONG = ["logsumexp", "softmax", "log_softmax", "cumsum", "cumprod", "cummax", "amax", "median"]
ACTIVATIONS = ["gelu", "silu", "mish", "elu", "selu", "celu", "softplus", "softsign",
               "hardswish", "hardsigmoid", "hardtanh", "leaky_relu", "relu6", "logsigmoid",
               "tanhshrink", "softshrink", "hardshrink", "normalize", "glu"]
BINARY = [("add", 0.5), ("sub", 0.5), ("mul", 0.5), ("div", 3.0), ("pow", 1.5), ("fmod", 0.3),
          ("remainder", 0.3), ("atan2", None), ("hypot", None), ("maximum", None),
          ("floor_divide", 0.3), ("xlogy", 0.5), ("copysign", -1.0), ("nextafter", None),
          ("logaddexp", None), ("true_divide", 0.7), ("float_power", 2.0), ("rsub", 0.5)]
LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss",
          "binary_cross_entropy", "binary_cross_entropy_with_logits", "soft_margin_loss",
          "multilabel_soft_margin_loss", "hinge_embedding_loss", "gaussian_nll_loss",
          "cosine_embedding_loss", "margin_ranking_loss", "triplet_margin_loss",
          "multi_margin_loss", "nll_loss", "cross_entropy", "cross_entropy_smoothed",
          "multilabel_margin_loss"]


def _x(lib, dtype):
    v = np.random.default_rng(0).random((4, 6)).astype(np.float32) + 0.1
    return lib.tensor(v).to(getattr(lib, dtype))


def _call(lib, kind, name, dtype):
    x = _x(lib, dtype)
    y = x.flip(0)
    f = lib.nn.functional
    if kind == "unary":
        fn = lib
        for part in name.split("."):
            fn = getattr(fn, part)
        return fn(x)
    if kind == "along":
        r = getattr(lib, name)(x, 1)
        return r[0] if isinstance(r, tuple) else r
    if kind == "activation":
        return getattr(f, name)(x)
    if kind == "binary":
        other = dict(BINARY)[name]
        return getattr(lib, name)(x, y if other is None else other)
    ones = lib.ones(4, 6).to(x.dtype)
    idx = lib.tensor([0, 1, 2, 3])
    special = {
        "gaussian_nll_loss": lambda: f.gaussian_nll_loss(x, y, x),
        "cosine_embedding_loss": lambda: f.cosine_embedding_loss(x, y, lib.ones(4)),
        "margin_ranking_loss": lambda: f.margin_ranking_loss(x, y, ones),
        "triplet_margin_loss": lambda: f.triplet_margin_loss(x, y, x * 0.5),
        "multi_margin_loss": lambda: f.multi_margin_loss(x, idx),
        "nll_loss": lambda: f.nll_loss(x, idx),
        "cross_entropy": lambda: f.cross_entropy(x, idx),
        "cross_entropy_smoothed": lambda: f.cross_entropy(x, idx, label_smoothing=0.1,
                                                          reduction="none"),
        "multilabel_margin_loss": lambda: f.multilabel_margin_loss(
            x, lib.tensor([[0, 1, -1, 0, 0, 0]] * 4)),
        "hinge_embedding_loss": lambda: f.hinge_embedding_loss(x, ones),
        "soft_margin_loss": lambda: f.soft_margin_loss(x, ones),
    }
    if name in special:
        return special[name]()
    return getattr(f, name)(x, y, reduction="none")


def _outcome(lib, kind, name, dtype):
    try:
        r = _call(lib, kind, name, dtype)
    except Exception as e:  # noqa: BLE001 - class and text are compared
        return type(e).__name__, str(e)
    return str(r.dtype), tuple(r.shape)


CASES = ([("unary", n) for n in UNARY] + [("along", n) for n in ALONG] +
         [("activation", n) for n in ACTIVATIONS] + [("binary", n) for n, _ in BINARY] +
         [("loss", n) for n in LOSSES])


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("kind,name", CASES)
def test_half_result_dtype(kind, name, dtype):
    assert _outcome(nt, kind, name, dtype) == _outcome(torch, kind, name, dtype)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("weighted", [False, True])
def test_label_smoothing_keeps_half_through_backward(dtype, weighted):
    for lib in (nt, torch):
        x = _x(lib, dtype).requires_grad_()
        w = lib.rand(6).to(x.dtype) if weighted else None
        loss = lib.nn.functional.cross_entropy(x, lib.tensor([0, 1, 2, 3]), weight=w,
                                               label_smoothing=0.2)
        loss.backward()
        assert (str(loss.dtype), str(x.grad.dtype)) == (f"torch.{dtype}",) * 2
