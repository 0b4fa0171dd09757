"""nn.functional: ``pad`` (constant, reflect, replicate and circular modes).

Constant padding is one primitive (a filled output and one copy); the other modes gather along
each padded dim with an index table (one ``Resample`` primitive per dim), so every mode has
exact gradients of every order. Negative pads crop, as in torch.
"""

from ... import _dtype, backend
from ..._tensor import Tensor
from ...autograd.graph import rename_node
from ...ops import _resample
from . import _memory_format as _mf
from . import _pad_gather

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular")


def _size_list(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _parse_pad(pad):
    if isinstance(pad, Tensor):
        pad = pad.tolist()
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not "
                        f"{type(pad).__name__}")
    out = []
    for i, p in enumerate(pad):
        if isinstance(p, bool) or not hasattr(p, "__index__"):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}")
        out.append(int(p))
    return out


def _unsupported(n_pad, ndim):
    return NotImplementedError(
        f"Padding size {n_pad} is not supported for {ndim}D input tensor.\n"
        f"Supported combinations for non-constant padding:\n"
        f"  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
        f"  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
        f"  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _pairs(pad):
    """(low, high) per padded dim, outermost first (``pad`` lists the last dim first)."""
    k = len(pad) // 2
    return [(pad[2 * i], pad[2 * i + 1]) for i in range(k)][::-1]


def _constant(input, pad, value):
    if len(pad) // 2 > input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.dim()}")
    pairs = _pairs(pad)
    k = len(pairs)
    for s, (lo, hi) in zip(input.shape[input.dim() - k:], pairs):
        if s + lo + hi < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    if value is None:
        value = 0
    elif isinstance(value, Tensor):
        value = value.item()
    if not pairs:
        return input.clone()
    return _resample.constant_pad(input, pairs, value)


def _index_table(xp, mode, n, lo, hi):
    """Source positions of the ``n + lo + hi`` outputs of a 1-D pad (negative pads crop)."""
    j = xp.arange(n + lo + hi) - lo
    if mode == "reflect":
        j = xp.abs(j)
        j = xp.where(j > n - 1, 2 * (n - 1) - j, j)
    elif mode == "replicate":
        j = xp.clip(j, 0, n - 1)
    else:  # circular: torch crops first, then wraps around what is left
        kept = n - max(-lo, 0) - max(-hi, 0)
        j = max(-lo, 0) + (xp.arange(n + lo + hi) - max(lo, 0)) % max(kept, 1)
    return j.reshape(1, -1)


def _check_nonconstant(input, mode, pairs):
    k = len(pairs)
    ndim = input.dim()
    if mode != "circular":
        dt = input.dtype
        if dt is _dtype.bool:
            kind = "reflection" if mode == "reflect" else "replication"
            raise NotImplementedError(f'"{kind}_pad{k}d" not implemented for \'Bool\'')
        # only the batch dim of a batched input may be empty
        first = 1 if ndim == k + 2 else 0
        if any(s == 0 for s in input.shape[first:]):
            raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with "
                               f"possibly 0 batch size and other non-zero dimensions for input, "
                               f"but got: {_size_list(input.shape)}")
    spatial = input.shape[ndim - k:]
    if mode == "reflect":
        for i in reversed(range(k)):  # torch checks the last dim first
            s, (lo, hi) = spatial[i], pairs[i]
            if lo >= s or hi >= s:
                arg = 4 + 2 * (k - 1 - i)
                raise RuntimeError(f"Argument #{arg}: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({lo}, "
                                   f"{hi}) at dimension {ndim - k + i} of input "
                                   f"{_size_list(input.shape)}")
    if mode == "circular":
        for s, (lo, hi) in zip(spatial, pairs):
            kept = s - max(-lo, 0) - max(-hi, 0)
            if lo > s or hi > s or (kept >= 0 and max(lo, hi) > kept):
                raise RuntimeError("Padding value causes wrapping around more than once.")
    names = ("D", "H", "W")[3 - k:]
    outs = [s + lo + hi for s, (lo, hi) in zip(spatial, pairs)]
    if any(o < 1 for o in outs) and mode == "replicate" or any(o < 0 for o in outs):
        ins = ", ".join(f"{n}: {s}" for n, s in zip(names, spatial))
        res = " ".join(f"{n}: {o}" for n, o in zip(names, outs))
        raise RuntimeError(f"input ({ins}) is too small. Calculated output {res}")


def _check_fill(dtype, value):
    """torch reads the fill as a double and refuses one outside an integer dtype's range (or
    not finite) before padding: 'value cannot be converted to type uint8_t without overflow'."""
    if value is None or isinstance(value, complex) or dtype.name not in (
            "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"):
        return
    import math

    import numpy as np

    from ...ops.products import _SCALAR_CTYPE

    v = float(value)
    info = np.iinfo(dtype.name)
    if not math.isfinite(v) or not info.min <= v <= info.max:
        raise RuntimeError(f"value cannot be converted to type "
                           f"{_SCALAR_CTYPE.get(dtype.name, dtype.name)} without overflow")


def pad(input, pad, mode="constant", value=None):
    """Pad the last dims of ``input``.

    ``pad`` lists (left, right) amounts starting from the last dim: ``(1, 2)`` pads the last
    dim, ``(1, 2, 3, 4)`` the last two (the second-to-last by 3 and 4). Negative amounts crop.

    Args:
        input (Tensor): the tensor to pad.
        pad (tuple of ints): the pads, 2 per dim, last dim first.
        mode (str): ``'constant'`` (fill with ``value``), ``'reflect'`` (mirror without the
            edge), ``'replicate'`` (repeat the edge) or ``'circular'`` (wrap around). The
            last three pad 1 to 3 trailing dims of a (batched or unbatched) input.
            Default: ``'constant'``.
        value (float, optional): fill value of constant padding. Default: 0.

    Returns:
        Tensor: the padded tensor.

    Example:
        >>> torch.nn.functional.pad(torch.arange(3.).reshape(1, 3), (2, 1), mode="reflect")
        tensor([[2., 1., 0., 1., 2., 1.]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    pad = _parse_pad(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if mode == "constant":
        _check_fill(input.dtype, value)
        if input.is_quantized:
            from ..._quantized_ops_float import constant_pad  # torch's quantized padding

            return constant_pad(input, pad, value)
        return _mf.output(_constant(input, pad, value), _mf.suggest(input))
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
        raise _unsupported(len(pad), input.dim())
    pairs = _pairs(pad)
    _check_nonconstant(input, mode, pairs)
    xp = backend.xp_of(input._array)
    out = input
    if mode in ("reflect", "replicate") and _pad_gather.applies(input, pairs):
        # one gather, its gradient added in torch's order (see _pad_gather)
        sizes = input.shape[input.dim() - k:]
        tables = [_index_table(xp, mode, n, lo, hi).reshape(-1)
                  for n, (lo, hi) in zip(sizes, pairs)]
        if _pad_gather.few_reads(tables, sizes):
            out = _pad_gather.pad_gather(input, tables, [lo for lo, _ in pairs])
            rename_node(out, f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{k}D"
                             f"Backward0")
            return _mf.output(out, _mf.suggest(input))
    for i, (lo, hi) in enumerate(pairs):
        d = input.dim() - k + i
        n = input.shape[d]
        if lo == 0 and hi == 0:
            continue
        table = _index_table(xp, mode, n, lo, hi)
        out = _resample.resample(out, d, table, None, n)
    if out is input:
        return input.clone()
    if mode in ("reflect", "replicate"):  # torch's node for the whole pad
        rename_node(out, f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{k}DBackward0")
        return _mf.output(out, _mf.suggest(input))  # torch keeps a channels-last layout
    # torch writes the wrapped slices into a new tensor: its node is the copy's
    return rename_node(out, "torch::autograd::CopySlices")
