"""The values behind ``Tensor.uniform_``, ``normal_``, ``bernoulli_``, ``random_``,
``exponential_``, ``geometric_``, ``log_normal_`` and ``cauchy_``: each returns a new tensor of
``x``'s shape and dtype, which ``autograd.inplace`` writes into ``x``.
"""

import numpy as np

from . import _dtype, _generator_args
from ._creation import _int_arg
from ._random import rng_for
from ._sample_ops import (
    BernoulliFill,
    Cauchy,
    Exponential,
    Geometric,
    LogNormal,
    NormalFill,
    Random,
    Uniform,
)
from ._sampling import (
    _broadcast_check,
    _check_int_range,
    _check_std,
    _fmt_num,
    _host,
    _num,
    _type_display,
)
from ._tensor import Tensor
from .autograd.graph import rename_node


def _check_float_tensor(x, kernel):
    if x.dtype._category < _dtype._FLOAT:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_type_display(x.dtype)}'")


_C_TYPE_NAMES = {"float64": "Double", "float32": "Float", "float16": "Half",
                 "bfloat16": "BFloat16"}


def uniform_values(x, low, high, generator):
    """Samples uniform in ``[low, high)`` shaped like ``x`` (what ``x.uniform_`` writes)."""
    if generator is not None:  # torch checks it before the other arguments
        _generator_args.check(generator, "uniform_")
    _check_float_tensor(x, "check_uniform_bounds")
    low, high = _num(low, "from", "uniform_"), _num(high, "to", "uniform_")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt_num(low)} > to={_fmt_num(high)}")
    real = x.dtype.to_real()
    if high - low > float(_dtype.finfo(real).max):  # the draw is low + (high - low) * u
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<"
                           f"{_C_TYPE_NAMES[real.name]}>::max(), but found to={_fmt_num(high)} "
                           f"and from={_fmt_num(low)} which result in to-from to exceed the "
                           f"limit")
    return Uniform.apply(x, low=low, high=high, rng=rng_for(generator, x.device))


def normal_values(x, mean, std, generator):
    """Samples from N(mean, std**2) shaped like ``x`` (what ``x.normal_`` writes)."""
    if generator is not None:  # torch checks it before the other arguments
        _generator_args.check(generator, "normal_")
    _check_float_tensor(x, "normal_kernel_cpu")
    mean, std = _num(mean, "mean", "normal_"), _num(std, "std", "normal_")
    _check_std(std)
    if x.dtype.is_complex:
        # torch fills the (real, imag) pairs, each part N(mean, std**2 / 2)
        from . import _creation, view_as_complex

        pairs = _creation.empty(tuple(x.shape) + (2,), dtype=x.real.dtype, device=x.device)
        r = NormalFill.apply(pairs, mean=mean, std=std / 2 ** 0.5,
                             rng=rng_for(generator, x.device))
        return view_as_complex(r)
    return NormalFill.apply(x, mean=mean, std=std, rng=rng_for(generator, x.device))


def bernoulli_values(x, p, generator):
    """0/1 draws with probability ``p`` (number or tensor) shaped like ``x``."""
    if isinstance(p, Tensor):
        probs = _host(p)
        if probs.size and not bool(((probs >= 0) & (probs <= 1)).all()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please "
                               "report an enhancement request to PyTorch.)")
        _broadcast_check(x.shape, p.shape)
        if np.broadcast_shapes(x.shape, p.shape) != tuple(x.shape):
            raise RuntimeError(f"bernoulli_: p of shape {list(p.shape)} cannot be broadcast "
                               f"to the tensor's shape {list(x.shape)}")
    else:
        p = float(p)
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt_num(p)}")
    r = BernoulliFill.apply(x, p, rng=rng_for(generator, x.device))
    if r._grad_fn is not None:  # torch's nodes of bernoulli_(Tensor p) / bernoulli_(float p)
        r._grad_fn.node_name = "BernoulliBackward1" if isinstance(p, Tensor) else \
            "BernoulliBackward2"
    return r


def _random_bounds(dt):
    """The inclusive upper bound of ``random_()`` without arguments for dtype ``dt``."""
    if dt is _dtype.bool:
        return 1
    if dt._category == _dtype._INT:
        return int(np.iinfo(dt.np).max)
    # every integer up to here is exact; bfloat16 (ml_dtypes) has 7 mantissa bits
    return 2 ** ((7 if dt is _dtype.bfloat16 else np.finfo(dt.np).nmant) + 1)


def random_values(x, low, high, generator):
    """Integers in ``[low, high)`` shaped like ``x`` (what ``x.random_`` writes)."""
    dt = x.dtype
    overload = 2 if high is None and low is None else 1 if low is None else 0
    if dt._category == _dtype._COMPLEX:
        raise NotImplementedError(f'"random_from_to_range_calc" not implemented for '
                                  f"'{_type_display(dt)}'")
    if high is None and low is None:
        low, high = 0, _random_bounds(dt) + 1
    elif high is None:
        low = _int_arg(low, "from", "random_", 1)
        high = _random_bounds(dt) + 1
    else:
        low = 0 if low is None else _int_arg(low, "from", "random_", 1)
        high = _int_arg(high, "to", "random_", 2)
    _check_int_range(low, high, dt)
    r = Random.apply(x, low=low, high=high, rng=rng_for(generator, x.device))
    # torch's nodes of random_(), random_(to) and random_(from, to)
    return rename_node(r, f"RandomBackward{overload}") if overload else r


def exponential_values(x, lambd, generator):
    """Exponential(lambd) samples shaped like ``x``."""
    if generator is not None:  # torch checks it before the other arguments
        _generator_args.check(generator, "exponential_")
    if x.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{_type_display(x.dtype)}")
    lambd = _num(lambd, "lambd", "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found "
                           f"lambda={_fmt_num(lambd)}")
    return Exponential.apply(x, lambd=lambd, rng=rng_for(generator, x.device))


def geometric_values(x, p, generator):
    """Geometric(p) samples (trials up to the first success) shaped like ``x``."""
    if generator is not None:  # torch checks it before the other arguments
        _generator_args.check(generator, "geometric_")
    p = _num(p, "p", "geometric_")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt_num(p)}")
    return Geometric.apply(x, p=p, rng=rng_for(generator, x.device))


def log_normal_values(x, mean, std, generator):
    """exp(N(mean, std**2)) samples shaped like ``x``."""
    if generator is not None:  # torch checks it before the other arguments
        _generator_args.check(generator, "log_normal_")
    _check_float_tensor(x, "log_normal_cpu")
    mean, std = _num(mean, "mean", "log_normal_"), _num(std, "std", "log_normal_")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt_num(std)}")
    return LogNormal.apply(x, mean=mean, std=std, rng=rng_for(generator, x.device))


def cauchy_values(x, median, sigma, generator):
    """Cauchy(median, sigma) samples shaped like ``x``."""
    if generator is not None:  # torch checks it before the other arguments
        _generator_args.check(generator, "cauchy_")
    _check_float_tensor(x, "cauchy_cpu")
    median, sigma = _num(median, "median", "cauchy_"), _num(sigma, "sigma", "cauchy_")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt_num(sigma)}")
    return Cauchy.apply(x, median=median, sigma=sigma, rng=rng_for(generator, x.device))
