"""Sampling: ``rand``, ``randn``, ``randint``, ``normal``, ``bernoulli``, ``multinomial``...
(the ops they apply: ``_sample_ops.py``; the in-place ``Tensor.uniform_`` family:
``_random_fills.py``).

Samples are drawn with the generator of a :class:`numtorch.Generator` (the default one of the
result's device unless ``generator=`` is given): NumPy's on the CPU, cuRAND's on a GPU, so
samples for a CUDA tensor are drawn on the device (``multinomial`` still draws on the host).
Sampling ops whose parameters are tensors (``normal(mean, std)``, ``bernoulli(p)``, the in-place
``uniform_`` family) are graph nodes with a zero gradient, as in torch: the output depends on
the parameters only through a fresh draw, not differentiably.
"""


import numpy as np

from . import _dtype, backend
from ._alloc_errors import alloc_error, result_alloc_error
from ._creation import _finish, _int_arg, check_pin_memory, dtype_arg, write_out
from ._device import default_device
from ._preserve_layout import empty_preserving
from . import _generator_args
from ._random import Generator, rng_for
from ._sample_ops import (
    Bernoulli,
    Normal,
    Poisson,
    _integers,
    _like_input,
    _standard_normal,
    _uniform01,
    normal_fill,
)
from ._size import parse_size
from ._tensor import Tensor, _make
from ._torch_rng import is_torch_stream as _torch_stream

__all__ = ["rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
           "normal", "bernoulli", "multinomial", "poisson"]




def _target(device, out):
    """The device a sampler's result goes to: ``device``, else ``out``'s, else the default."""
    if device is None and out is not None:
        return out.device
    return default_device(device)


def _host(t):
    """A tensor's values as a NumPy array (copied off the GPU when needed)."""
    return t._array if type(t._array) is np.ndarray else t._array.get()


def _type_display(dt):
    return _dtype._TYPE_DISPLAY[dt.name]


def _float_dtype(dtype, kernel):
    """The sampling dtype (default float unless given); torch's error for non-float ones."""
    if dtype is None:
        return _dtype.get_default_dtype()
    dt = dtype_arg(dtype, kernel)
    if dt._category < _dtype._FLOAT:
        # torch reports a dtype a sampling kernel lacks with NotImplementedError
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_display(dt)}\'')
    return dt


def _num(x, what, fn):
    """A Python number from a number or a one-element tensor."""
    if isinstance(x, Tensor):
        return x.item()
    if isinstance(x, (int, float, np.number)) and not isinstance(x, complex):
        return x.item() if isinstance(x, np.generic) else x
    raise TypeError(f"{fn}(): argument '{what}' must be a number, not {type(x).__name__}")


# C++ names torch uses in its "out of bounds" messages
_C_NAMES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short int",
            "int32": "int", "int64": "long int", "bool": "bool"}


def _check_int_range(low, high, dt):
    """torch's checks that ``[low, high)`` fits the integer (or bool) dtype ``dt``."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    if dt._category > _dtype._INT:
        return
    if dt is _dtype.bool:
        lo, hi = 0, 1
    else:
        info = np.iinfo(dt.np)
        lo, hi = int(info.min), int(info.max)
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {_C_NAMES[dt.name]}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {_C_NAMES[dt.name]}")


# -- public samplers ---------------------------------------------------------------------------
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False, **kwargs):
    """Return a tensor of samples uniform on ``[0, 1)``.

    Args:
        *size (int...): the shape, as ints or one sequence (``size=`` also works).
        generator (Generator, optional): draw from this generator instead of the default.
        dtype (dtype, optional): a float or complex dtype. Default: the default float dtype.
        device (device, optional): where to put the result.
        requires_grad (bool): whether autograd records operations on the result.

    Example:
        >>> x = torch.rand(2, 3)
        >>> tuple(x.shape), bool(((x >= 0) & (x < 1)).all())
        ((2, 3), True)
    """
    if generator is not None and not isinstance(generator, Generator):
        kw = _factory_keywords(out, dtype, layout, device, requires_grad, pin_memory)
        if "size" in kwargs:
            kw["size"] = (kwargs["size"], None)
        raise _generator_args.error("rand", generator, size,
                                    _generator_args.keywords(generator, **kw), True)
    shape = parse_size("rand", size, kwargs.pop("size", None))
    _no_extra("rand", kwargs)
    check_pin_memory(pin_memory, out)
    if dtype is None and out is not None:
        dtype = out.dtype
    dt = _float_dtype(dtype, "check_uniform_bounds")
    try:
        arr = _uniform01(rng_for(generator, _target(device, out)), shape, dt.np)
    except (MemoryError, ValueError) as e:
        raise alloc_error(e, shape) from None
    return _finish(arr, device, requires_grad, out)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, **kwargs):
    """Return a tensor of standard normal samples (complex ones have variance 1 in total).

    Args:
        *size (int...): the shape, as ints or one sequence (``size=`` also works).
        generator (Generator, optional): draw from this generator instead of the default.
        dtype (dtype, optional): a float or complex dtype. Default: the default float dtype.
        device (device, optional): where to put the result.
        requires_grad (bool): whether autograd records operations on the result.

    Example:
        >>> torch.randn(4, 5).shape
        torch.Size([4, 5])
    """
    if generator is not None and not isinstance(generator, Generator):
        kw = _factory_keywords(out, dtype, layout, device, requires_grad, pin_memory)
        if "size" in kwargs:
            kw["size"] = (kwargs["size"], None)
        raise _generator_args.error("randn", generator, size,
                                    _generator_args.keywords(generator, **kw), True)
    shape = parse_size("randn", size, kwargs.pop("size", None))
    _no_extra("randn", kwargs)
    check_pin_memory(pin_memory, out)
    if dtype is None and out is not None:
        dtype = out.dtype
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    try:
        arr = _standard_normal(rng_for(generator, _target(device, out)), shape, dt.np)
    except (MemoryError, ValueError) as e:
        raise alloc_error(e, shape) from None
    return _finish(arr, device, requires_grad, out)


def _factory_keywords(out, dtype, layout, device, requires_grad, pin_memory):
    """A factory's keyword arguments with their defaults, for ``_generator_args.keywords``."""
    return {"out": (out, None), "dtype": (dtype, None), "layout": (layout, None),
            "device": (device, None), "requires_grad": (requires_grad, False),
            "pin_memory": (pin_memory, False)}


def _no_extra(fn, kwargs):
    if kwargs:
        raise TypeError(f"{fn}() got an unexpected keyword argument '{next(iter(kwargs))}'")


_RANDINT_KW = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
               "torch.device device = None, bool pin_memory = False, bool requires_grad = False")
_RANDINT_FORMS = tuple(f"({args}, *, {gen}{_RANDINT_KW})"
                       for args in ("int high, tuple of ints size",
                                    "int low, int high, tuple of ints size")
                       for gen in ("torch.Generator generator, ", ""))


def _randint_size_error(size):
    """torch's parser error for a ``randint`` call without a tuple size, read from the call
    as written: ``randint(a, b)`` reads ``b`` as the size ("argument 'size' (position 2) must
    be tuple of ints"), a call with no size or three numbers matches none of its forms.
    Returns for the other calls (the caller raises its own error). Error path only."""
    from .ops._util import _entry_call, _written, invalid_combination

    written = _written(*_entry_call())
    npos = len(written[0]) if written is not None else None
    if size is None and npos == 2:
        raise TypeError(f"randint(): argument 'size' (position 2) must be tuple of ints, not "
                        f"{type(written[0][1]).__name__}")
    if size is None or npos == 3:
        raise invalid_combination(_RANDINT_FORMS, ())


def _randint_bad_size(e):
    """torch's words for a ``randint`` size tuple holding a non-int, by the call as written:
    the size is argument 2 of ``randint(high, size)``, three numbers-and-size match no form,
    a ``size=`` keyword is named without a position. Error path only."""
    from .ops._util import _entry_call, _written, invalid_combination

    written = _written(*_entry_call())
    if written is None or "(position 1)" not in str(e):
        return
    keyword = any(k == "size" for k, _ in written[1])
    if len(written[0]) + keyword == 3:  # (low, high and size: torch's parser lists its forms)
        raise invalid_combination(_RANDINT_FORMS, ()) from None
    if keyword:
        raise TypeError("randint(): argument 'size' must be tuple of ints, not tuple") from None
    if len(written[0]) == 2:
        raise TypeError(str(e).replace("(position 1)", "(position 2)")) from None


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False, pin_memory=False):
    """Return integers drawn uniformly from ``[low, high)``.

    Call it as ``randint(high, size)`` or ``randint(low, high, size)``.

    Args:
        low (int): the smallest value. Default: 0.
        high (int): one above the largest value.
        size (tuple of ints): the shape.
        generator (Generator, optional): draw from this generator instead of the default.
        dtype (dtype, optional): the result dtype. Default: int64.
        device (device, optional): where to put the result.

    Example:
        >>> x = torch.randint(3, 10, (4,))
        >>> x.dtype, bool(((x >= 3) & (x < 10)).all())
        (torch.int64, True)
    """
    if generator is not None and not isinstance(generator, Generator):
        given = [low] if high is None else [low, high] if size is None else [low, high, size]
        kw = _factory_keywords(out, dtype, layout, device, requires_grad, pin_memory)
        raise _generator_args.error("randint", generator, given, _generator_args.keywords(
            generator, size=(size if high is None else None, None), **kw), True)
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if size is None or not isinstance(size, (tuple, list)):
        _randint_size_error(size)
        raise TypeError(f"randint(): argument 'size' (position 2) must be tuple of ints, not "
                        f"{type(size).__name__}")
    try:
        shape = parse_size("randint", (size,))
    except TypeError as e:
        _randint_bad_size(e)
        raise
    check_pin_memory(pin_memory, out)
    low = _int_arg(low, "low", "randint", 1)
    high = _int_arg(high, "high", "randint", 2)
    dt = dtype_arg(dtype, "randint") if dtype is not None else (
        out.dtype if out is not None else _dtype.int64)
    _check_int_range(low, high, dt)
    try:
        arr = _integers(rng_for(generator, _target(device, out)), low, high, shape, dt.np)
    except (MemoryError, ValueError) as e:
        raise result_alloc_error(e, shape, dt.itemsize) from None
    return _finish(arr, device, requires_grad, out)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """Return a random permutation of ``0, 1, ..., n - 1``.

    Args:
        n (int): the number of elements.
        generator (Generator, optional): draw from this generator instead of the default.
        dtype (dtype, optional): the result dtype. Default: int64.
        device (device, optional): where to put the result.

    Example:
        >>> sorted(torch.randperm(4).tolist())
        [0, 1, 2, 3]
    """
    if generator is not None and not isinstance(generator, Generator):
        kw = _factory_keywords(out, dtype, layout, device, requires_grad, pin_memory)
        raise _generator_args.error("randperm", generator, (n,),
                                    _generator_args.keywords(generator, **kw), True)
    n = _int_arg(n, "n", "randperm", 1)
    check_pin_memory(pin_memory, out)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = dtype_arg(dtype, "randperm") if dtype is not None else (
        out.dtype if out is not None else _dtype.int64)
    if dt is _dtype.bool or dt._category == _dtype._COMPLEX:
        raise NotImplementedError(f'"randperm" not implemented for \'{_type_display(dt)}\'')
    if dt is _dtype.float16 and n > 2049:
        raise RuntimeError("n cannot be greater than 2049 for Half type.")
    if dt._category == _dtype._INT and n > 0 and n - 1 > np.iinfo(dt.np).max:
        raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
    try:
        arr = rng_for(generator, _target(device, out)).permutation(n).astype(dt.np)
    except (MemoryError, ValueError) as e:
        raise result_alloc_error(e, (n,), dt.itemsize) from None
    return _finish(arr, device, requires_grad, out)


def _like(input, dtype, device, fn, pin_memory=False):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    check_pin_memory(pin_memory)
    dt = input.dtype if dtype is None else dtype_arg(dtype, fn)
    return dt, (input.device if device is None else device)


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, pin_memory=False, memory_format=None):
    """Return uniform ``[0, 1)`` samples with the shape (and dtype, device) of ``input``.

    Example:
        >>> torch.rand_like(torch.zeros(2, dtype=torch.float64)).dtype
        torch.float64
    """
    if generator is not None and not isinstance(generator, Generator):
        kw = _factory_keywords(None, dtype, layout, device, requires_grad, pin_memory)
        raise _generator_args.error("rand_like", generator, (input,), _generator_args.keywords(
            generator, memory_format=(memory_format, None), **kw), True)
    dt, dev = _like(input, dtype, device, "rand_like", pin_memory)
    return _in_layout_of(input, rand(input.shape, generator=generator, dtype=dt, device=dev,
                                     requires_grad=requires_grad))


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, pin_memory=False, memory_format=None):
    """Return standard normal samples with the shape (and dtype, device) of ``input``.

    Example:
        >>> torch.randn_like(torch.zeros(2, 3)).shape
        torch.Size([2, 3])
    """
    if generator is not None and not isinstance(generator, Generator):
        kw = _factory_keywords(None, dtype, layout, device, requires_grad, pin_memory)
        raise _generator_args.error("randn_like", generator, (input,), _generator_args.keywords(
            generator, memory_format=(memory_format, None), **kw), True)
    dt, dev = _like(input, dtype, device, "randn_like", pin_memory)
    if not input.is_contiguous() and input.numel() > 1:
        # torch fills a non-contiguous empty_like (e.g. channels-last) through normal_'s
        # element-by-element path, a different stream from randn's vectorised one
        from ._creation import empty_like

        out = empty_like(input, dtype=dt, device=dev)
        if out.is_contiguous():  # overlapping or broadcast strides are not kept
            return randn(input.shape, generator=generator, dtype=dt, device=dev,
                         requires_grad=requires_grad)
        return out.normal_(generator=generator)._set_requires_grad(requires_grad)
    return _in_layout_of(input, randn(input.shape, generator=generator, dtype=dt, device=dev,
                                      requires_grad=requires_grad))


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, pin_memory=False, memory_format=None):
    """Return integers uniform in ``[low, high)`` with the shape (and dtype) of ``input``.

    Call it as ``randint_like(input, high)`` or ``randint_like(input, low, high)``.

    Example:
        >>> torch.randint_like(torch.zeros(3), 5).dtype
        torch.float32
    """
    if generator is not None and not isinstance(generator, Generator):
        given = (input, low) if high is None else (input, low, high)
        kw = _factory_keywords(None, dtype, layout, device, requires_grad, pin_memory)
        raise _generator_args.error("randint_like", generator, given, _generator_args.keywords(
            generator, memory_format=(memory_format, None), **kw), True)
    if high is None:
        low, high = 0, low
    dt, dev = _like(input, dtype, device, "randint_like", pin_memory)
    return _in_layout_of(input, randint(low, high, input.shape, generator=generator, dtype=dt,
                                        device=dev, requires_grad=requires_grad))


def _in_layout_of(input, t):
    """``t`` re-laid out with ``input``'s memory order, as torch's ``*_like`` keep strides."""
    a = t._array
    if input._array.flags.c_contiguous and 1 not in a.shape or type(a) is not type(input._array):
        return t
    arr = empty_preserving(backend.xp_of(a), input._array, a.dtype)
    # the draws fill the new tensor in its memory order, as torch's fill of empty_like does
    strides = arr.strides
    order = sorted(range(arr.ndim), key=lambda d: -strides[d])
    arr.transpose(order)[...] = a.reshape([arr.shape[d] for d in order])
    t._array = arr
    return t


def _fmt_num(x):
    """A number as torch's C++ code prints it (``-1`` for -1.0, ``0.5``, ``1e-05``)."""
    return f"{x:g}" if isinstance(x, float) else str(x)


def _check_std(std):
    if isinstance(std, Tensor):
        if bool((_host(std) < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt_num(std)}")


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False):
    """Return samples from normal distributions with the given means and standard deviations.

    ``mean`` and ``std`` may each be a tensor or a number; tensors broadcast together and
    give the result its shape and dtype (``mean``'s when both are tensors). With two numbers,
    ``size`` gives the shape. The result is a graph node with zero gradient, as in torch.

    Args:
        mean (Tensor or float): the means. Default: 0.
        std (Tensor or float): the standard deviations (non-negative). Default: 1.
        size (tuple of ints, optional): the shape when ``mean`` and ``std`` are numbers.
        generator (Generator, optional): draw from this generator instead of the default.
        dtype (dtype, optional): the float dtype when ``mean`` and ``std`` are numbers.

    Example:
        >>> torch.normal(torch.zeros(3), 2.0).shape
        torch.Size([3])
        >>> torch.normal(0.0, 1.0, size=(2, 2)).shape
        torch.Size([2, 2])
    """
    if generator is not None and not isinstance(generator, Generator):
        # std's default is taken as not written (normal(mean) is the usual call)
        given = [mean] if type(std) is float and std == 1.0 and size is None else \
            [mean, std] if size is None else [mean, std, size]
        kw = _factory_keywords(out, dtype, layout, device, requires_grad, pin_memory)
        raise _generator_args.error("normal", generator, given,
                                    _generator_args.keywords(generator, **kw), True)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    rng = rng_for(generator, mean.device if mt else std.device if st else _target(device, out))
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            f"({type(mean).__name__}, {type(std).__name__}), but expected a "
                            "Tensor mean or std, or a size when both are numbers")
        mean, std = _num(mean, "mean", "normal"), _num(std, "std", "normal")
        _check_std(std)
        check_pin_memory(pin_memory, out)
        dt = _float_dtype(dtype, "normal_kernel_cpu")
        shape = parse_size("normal", (size,))
        try:
            arr = normal_fill(rng, shape, dt.np, mean, std).astype(dt.np, copy=False)
        except (MemoryError, ValueError) as e:
            raise result_alloc_error(e, shape, dt.itemsize) from None
        return _finish(arr, device, requires_grad, out)
    if size is not None:
        raise TypeError("normal(): a size cannot be given when mean or std is a Tensor")
    dt = mean.dtype if mt else std.dtype
    if dt._category < _dtype._FLOAT:
        raise NotImplementedError(f'"normal_kernel_cpu" not implemented for '
                                  f"'{_type_display(dt)}'")
    if not st:
        std = _num(std, "std", "normal")
    if not mt:
        mean = _num(mean, "mean", "normal")
    _check_std(std)
    if mt and st:
        _broadcast_check(mean.shape, std.shape)
    # torch names the node after which parameters are tensors: 1 mean, 2 std, 3 both
    y = Normal.apply(mean, std, rng=rng, dtype=dt.np,
                     node_name=f"NormalBackward{1 * mt + 2 * st}")
    if out is not None:
        return write_out(out, y._array)
    return y


def _broadcast_check(a, b):
    """torch's error for shapes that do not broadcast."""
    for i in range(1, min(len(a), len(b)) + 1):
        x, y = a[-i], b[-i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {max(len(a), len(b)) - i}")


def bernoulli(input, p=None, *, generator=None, out=None):
    """Return 0/1 samples, one per element: 1 with probability ``input`` (or ``p``).

    Args:
        input (Tensor): the probabilities, in ``[0, 1]``; also fixes the result's shape and
            dtype.
        p (float, optional): one probability for every element instead of ``input``'s values.
        generator (Generator, optional): draw from this generator instead of the default.

    Example:
        >>> torch.bernoulli(torch.tensor([0.0, 1.0]))
        tensor([0., 1.])
    """
    if generator is not None and not isinstance(generator, Generator):
        given = (input,) if p is None else (input, p)
        raise _generator_args.error("bernoulli", generator, given,
                                    _generator_args.keywords(generator, out=(out, None)), True)
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    try:
        y = _bernoulli(input, p, rng_for(generator, input.device))
    except (MemoryError, ValueError) as e:
        raise result_alloc_error(e, input.shape, input.dtype.itemsize) from None
    if out is not None:
        return write_out(out, y._array)
    return y


def _bernoulli(input, p, rng):
    if p is None:
        if input.dtype._category < _dtype._FLOAT:
            raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for '
                                      f"'{_type_display(input.dtype)}'")
        # checked on the CPU only: torch's CUDA kernel asserts on the device instead of
        # synchronising with the host
        probs = input._array
        if type(probs) is np.ndarray and probs.size and \
                not bool(((probs >= 0) & (probs <= 1)).all()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please "
                               "report an enhancement request to PyTorch.)")
        y = Bernoulli.apply(input, p=None, rng=rng)
    else:
        if isinstance(p, Tensor):
            raise TypeError("bernoulli() received an invalid combination of arguments - got "
                            "(Tensor, p=Tensor): p must be a float")
        p = float(p)
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt_num(p)}")
        y = Bernoulli.apply(input, p=p, rng=rng)
    return y


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Return indices drawn from the categorical distribution(s) in the rows of ``input``.

    Args:
        input (Tensor): 1-D or 2-D non-negative weights (need not sum to one).
        num_samples (int): samples per row.
        replacement (bool): draw with replacement. Default: False.
        generator (Generator, optional): draw from this generator instead of the default.

    Returns:
        Tensor: int64 indices of shape ``(num_samples,)`` or ``(rows, num_samples)``.

    Example:
        >>> torch.multinomial(torch.tensor([0.0, 1.0, 0.0]), 2, replacement=True)
        tensor([1, 1])
    """
    if generator is not None and not isinstance(generator, Generator):
        raise _generator_args.error("multinomial", generator)
    if generator is None and getattr(rng_for(None), "is_vmap_rng", False):  # inside vmap
        from .func._randomness import multinomial_in_vmap

        return multinomial_in_vmap(multinomial, input, num_samples, replacement, out)
    arr = input._array
    if num_samples == 1 and type(num_samples) is int and out is None and \
            type(arr) is np.ndarray and 0 < arr.ndim < 3 and arr.dtype.kind == "f" and arr.size:
        idx = _single_draws(arr, rng_for(generator))
        if idx is not None:
            return _make(idx)
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input.dtype._category != _dtype._FLOAT:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_type_display(input.dtype)}")
    num_samples = _int_arg(num_samples, "num_samples", "multinomial", 2)
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = input.shape[-1]
    probs = _host(input).astype(np.float64).reshape(input.numel() // n_cat if n_cat else
                                                    (input.shape[0] if input.dim() == 2 else 1),
                                                    n_cat)
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if n_cat == 0 and probs.shape[0] and num_samples == 1:
        # torch's single-sample path checks the weights' range, and meets an empty row
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if not bool(np.isfinite(probs).all()) or bool((probs < 0).any()):
        if replacement and num_samples > 1:
            # torch's with-replacement kernel checks entry by entry: the first bad one names
            # the message (NaN fails its '>= 0' test first)
            flat = probs.reshape(-1)
            first = flat[int(np.argmax(~(flat >= 0) | ~np.isfinite(flat)))]
            what = "< 0" if not first >= 0 else "= infinity or NaN"
            raise RuntimeError(f"invalid multinomial distribution (encountering probability "
                               f"entry {what})")
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = probs.sum(axis=1)
    if bool((totals <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rows = probs.shape[0]
    try:
        idx = _multinomial_draw(probs, rows, n_cat, num_samples, replacement,
                                rng_for(generator))
    except (MemoryError, ValueError) as e:
        raise result_alloc_error(e, input.shape[:-1] + (num_samples,), 8) from None
    idx = idx.astype(np.int64).reshape(input.shape[:-1] + (num_samples,))
    res = _like_input(idx, input._array)
    if out is not None:
        return write_out(out, res)
    return _make(res)


def _single_draws(arr, rng):
    """One draw per row of the weights ``arr`` (1-d or 2-d, float, non-empty) by inverse CDF,
    the draws the general path makes with replacement; None when a row is not a valid
    distribution (the general path then raises torch's error for it).

    Why apart: a policy samples one action from one small row per environment step, where
    the general path's checks and index bookkeeping cost several times the draw.
    """
    probs = arr.reshape(-1, arr.shape[-1])
    cdf = np.cumsum(probs, axis=1, dtype=np.float64)
    tot = cdf[:, -1:]
    # weights >= 0 (NaN fails) and every total positive and finite: then all are finite
    if not (probs.min() >= 0 and tot.min() > 0 and tot.max() < np.inf):
        return None
    if _torch_stream(rng):
        # torch draws a single sample by an exponential race in the weights' dtype
        q = rng.standard_exponential(probs.shape).astype(probs.dtype, copy=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.argmax(probs / q, axis=1).reshape(arr.shape[:-1] + (1,))
    cdf /= tot  # each row now ends at exactly 1.0, above every draw
    u = rng.random((probs.shape[0], 1))
    return (cdf <= u).sum(axis=1).reshape(arr.shape[:-1] + (1,))


def _multinomial_draw(probs, rows, n_cat, num_samples, replacement, rng):
    if replacement and num_samples > 1:  # torch races a single draw either way
        # inverse CDF: one searchsorted over all rows, each shifted into its own unit interval
        cdf = np.cumsum(probs, axis=1)
        cdf /= cdf[:, -1:]  # each row now ends at exactly 1.0
        offsets = np.arange(rows)[:, None]
        u = rng.random((rows, num_samples)) + offsets
        idx = np.searchsorted((cdf + offsets).ravel(), u.ravel(), side="right")
        idx = idx.reshape(rows, num_samples) - offsets * n_cat
        # a draw rounded up onto its row's end falls back to the last category with weight
        last = n_cat - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)
        idx = np.minimum(idx, last[:, None])
    else:
        # exponential races: the k smallest E_i / p_i are a draw without replacement
        with np.errstate(divide="ignore"):
            keys = rng.standard_exponential((rows, n_cat)) / probs
        idx = np.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    return idx


def poisson(input, generator=None):
    """Return one Poisson sample per element, with the rate given by ``input``.

    Example:
        >>> torch.poisson(torch.zeros(3))
        tensor([0., 0., 0.])
    """
    if generator is not None and not isinstance(generator, Generator):
        raise _generator_args.error("poisson", generator)
    if input.dtype._category != _dtype._FLOAT:
        raise NotImplementedError(f'"poisson_cpu" not implemented for '
                                  f"'{_type_display(input.dtype)}'")
    if type(input._array) is np.ndarray and bool((input._array < 0).any()):  # no GPU sync
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return Poisson.apply(input, rng=rng_for(generator, input.device))
