"""``repr(tensor)`` in torch's format: ``tensor([[1., 2.]], requires_grad=True)``.

The layout rules follow torch's printer exactly so that printed output (and doctests) match
byte for byte: one element format per tensor (integer-valued floats print as ``1.``, a wide
range of magnitudes switches to scientific notation), rows wrapped at ``linewidth`` columns,
tensors over ``threshold`` elements summarised with ``...`` keeping ``edgeitems`` at each end.
"""

import contextlib
import math

import numpy as np

from . import _dtype

__all__ = ["format_tensor", "set_printoptions", "get_printoptions", "printoptions"]

_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
_PROFILES = {
    "default": _DEFAULTS,
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}
_opts = dict(_DEFAULTS, sci_mode=None)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set how tensors are printed; the settings last until changed again.

    Args:
        precision (int, optional): digits after the decimal point for floats. Default: 4.
        threshold (int, optional): tensors with more elements than this are summarised.
            Default: 1000.
        edgeitems (int, optional): items kept at each end of a summarised dimension.
            Default: 3.
        linewidth (int, optional): characters per line before a row wraps. Default: 80.
        profile (str, optional): ``'default'``, ``'short'`` or ``'full'``; sets the four
            options above first, then any explicit option overrides it.
        sci_mode (bool, optional): force (True) or forbid (False) scientific notation; None
            lets each tensor choose. Unlike the others, this option is reset on every call.

    Example:
        >>> torch.set_printoptions(precision=2)
        >>> torch.tensor([1.23456])
        tensor([1.23])
        >>> torch.set_printoptions(profile="default")
    """
    if profile in _PROFILES:
        _opts.update(_PROFILES[profile])
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _opts[key] = value
    _opts["sci_mode"] = sci_mode


class _PrintOptions:
    """``torch._tensor_str.PRINT_OPTS``: the current print options as attributes (reading
    and assigning go to the same settings ``set_printoptions`` changes)."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return _opts[name]
        except KeyError:
            raise AttributeError(f"'__PrinterOptions' object has no attribute '{name}'") \
                from None

    def __setattr__(self, name, value):
        _opts[name] = value

    def __repr__(self):
        return f"PRINT_OPTS({', '.join(f'{k}={v!r}' for k, v in _opts.items())})"


PRINT_OPTS = _PrintOptions()


def get_printoptions():
    """Return the current print options as a dict accepted by :func:`set_printoptions`."""
    return dict(_opts)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Change the print options inside a ``with`` block and restore them afterwards.

    Example:
        >>> with torch._tensor_str.printoptions(precision=1):
        ...     print(torch.tensor([0.25]))
        tensor([0.2])
    """
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """One element format (width, integer or scientific mode) shared by a whole tensor."""

    def __init__(self, arr):
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        values = arr.reshape(-1)
        if not self.floating:
            # bools print as True/False and ints in full; the widest decides the column width
            self.max_width = max([1] + [len(str(v)) for v in values.tolist()])
            return
        values = values.astype(np.float64)
        # zeros and non-finite values never change the chosen format (as in torch)
        vals = values[np.isfinite(values) & (values != 0)]
        if vals.size == 0:
            return
        absv = np.abs(vals)
        lo, hi = absv.min(), absv.max()
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        sci = _opts["sci_mode"]
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if sci is None \
            else bool(sci)
        prec = _opts["precision"]
        if self.sci_mode:
            spec, extra = f".{prec}e", 0
        elif self.int_mode:
            spec, extra = ".0f", 1  # the trailing "." of "1."
        else:
            spec, extra = f".{prec}f", 0
        self.max_width = max(len(format(v, spec)) for v in vals.tolist()) + extra

    def format(self, value):
        """The string for one Python value, right-aligned to the shared width."""
        if not self.floating:
            s = str(value)
        elif self.sci_mode:
            s = format(value, f"{self.max_width}.{_opts['precision']}e")
        elif self.int_mode:
            s = format(value, ".0f")
            if math.isfinite(value):
                s += "."
        else:
            s = format(value, f".{_opts['precision']}f")
        return " " * (self.max_width - len(s)) + s


def _summarized(arr):
    """Only the elements a summarised print shows (``edgeitems`` at both ends of each dim)."""
    edge = _opts["edgeitems"]
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        if arr.shape[0] > 2 * edge:
            # arr[-0:] is the whole array, which is also what torch keeps for edgeitems=0
            return np.concatenate((arr[:edge], arr[-edge:]))
        return arr
    if not edge:
        return arr[(slice(0, 0),) * arr.ndim]
    n = arr.shape[0]
    rows = list(range(edge)) + list(range(n - edge, n)) if n > 2 * edge else range(n)
    return np.stack([_summarized(arr[i]) for i in rows])


def _join_complex(real, imag):
    imag = (imag + "j").lstrip()
    return real + imag if imag[0] in "+-" else real + "+" + imag


def _vector_str(arr, indent, summarize, fmt, fmt_imag):
    edge = _opts["edgeitems"]
    elem_len = fmt.max_width + 2
    if fmt_imag is not None:
        elem_len += fmt_imag.max_width + 1  # the imaginary part and its "j"
    per_line = max(1, math.floor((_opts["linewidth"] - indent) / elem_len))

    def one(v):
        if fmt_imag is None:
            return fmt.format(v)
        return _join_complex(fmt.format(v.real), fmt_imag.format(v.imag))

    if summarize and not edge:
        items = ["..."]
    elif summarize and arr.shape[0] > 2 * edge:
        items = [one(v) for v in arr[:edge].tolist()] + [" ..."] + \
            [one(v) for v in arr[-edge:].tolist()]
    else:
        items = [one(v) for v in arr.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _body(arr, indent, summarize, fmt, fmt_imag):
    if arr.ndim == 0:
        v = arr.item()
        if fmt_imag is None:
            return fmt.format(v)
        return _join_complex(fmt.format(v.real), fmt_imag.format(v.imag))
    if arr.ndim == 1:
        return _vector_str(arr, indent, summarize, fmt, fmt_imag)
    edge = _opts["edgeitems"]
    n = arr.shape[0]
    if summarize and n > 2 * edge:
        parts = [_body(arr[i], indent + 1, summarize, fmt, fmt_imag) for i in range(edge)] + \
            ["..."] + [_body(arr[i], indent + 1, summarize, fmt, fmt_imag)
                       for i in range(n - edge, n)]
    else:
        parts = [_body(arr[i], indent + 1, summarize, fmt, fmt_imag) for i in range(n)]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _float_like(arr):
    """NumPy floats, and ml_dtypes' bfloat16 and float8 formats (kind "V")."""
    if arr.dtype.kind == "f":
        return True
    d = _dtype._FROM_NP.get(arr.dtype) if arr.dtype.kind == "V" else None
    return d is not None and d._category == _dtype._FLOAT


def _tensor_body(arr, indent):
    """The bracketed element text of a non-empty array."""
    summarize = arr.size > _opts["threshold"]
    # a summarised print converts only the elements it shows: a whole-array cast of a large
    # (or broadcast, stride-0) tensor would allocate all of its elements (tolist() yields the
    # exact Python float or complex of every float dtype's element anyway)
    if arr.dtype.kind == "c":
        # float64 parts so that tolist() yields Python complex values of the exact elements
        if not summarize:
            arr = arr.astype(np.complex128)
        shown = _summarized(arr).astype(np.complex128) if summarize else arr
        fmt, fmt_imag = _Formatter(shown.real), _Formatter(shown.imag)
    else:
        if not summarize and _float_like(arr):
            arr = arr.astype(np.float64)
        shown = _summarized(arr) if summarize else arr
        if _float_like(shown):
            shown = shown.astype(np.float64)
        fmt, fmt_imag = _Formatter(shown), None
    return _body(arr, indent, summarize, fmt, fmt_imag)


def _tensor_str(self, indent):
    """The element text of tensor ``self`` as its repr shows it (without ``tensor(`` and the
    suffixes), rows after the first indented by ``indent`` spaces."""
    arr = self.detach().cpu().numpy() if not self.is_conj() else \
        self.resolve_conj().detach().cpu().numpy()
    if arr.size == 0:
        return "[]"
    return _tensor_body(arr, indent)


def _add_suffixes(text, suffixes, indent):
    """Append ``, key=value`` suffixes, moving one to a new line when it would pass 80 cols."""
    out = [text]
    last_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_len + len(suffix) + 2 > _opts["linewidth"]:
            out.append(",\n" + " " * indent + suffix)
            last_len = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last_len += len(suffix) + 2
    out.append(")")
    return "".join(out)


def _is_parameter(cls):
    return any(c.__name__ == "Parameter" and c.__module__.startswith("numtorch.nn")
               for c in cls.__mro__)


def format_tensor(t, tensor_contents=None):
    """The text ``repr(t)`` shows, laid out as torch lays it out.

    Args:
        t (Tensor): the tensor to print.
        tensor_contents (str, optional): text to show in place of the elements.
    """
    from ._tensor import Tensor

    if t.is_quantized:
        from ._quantized_str import format_quantized

        return format_quantized(t, tensor_contents)
    cls = type(t)
    plain = cls is Tensor or (cls.__name__ == "Parameter" and _is_parameter(cls))
    prefix = "tensor(" if plain else f"{cls.__name__}("
    indent = len(prefix)
    meta = t.is_meta
    arr = t._array if type(t._array) is np.ndarray or meta else t._array.get()
    dt = _dtype._FROM_NP[arr.dtype]
    default = _dtype.get_default_dtype()
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    if meta:  # no values: '...', the size always, and any dtype but the default float one
        suffixes.append(f"size={tuple(arr.shape)}")
        if dt is not default:
            suffixes.append(f"dtype={dt!r}")
        body = "..."
    elif arr.size == 0:
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
        # with no elements to look at, only the default float dtype goes without saying
        if dt is not default:
            suffixes.append(f"dtype={dt!r}")
        body = "[]"
    else:
        if not _opts["edgeitems"]:
            suffixes.append(f"size={tuple(arr.shape)}")
        if dt not in (default, _dtype.default_complex(), _dtype.int64, _dtype.bool):
            suffixes.append(f"dtype={dt!r}")
        body = _tensor_body(arr, indent) if tensor_contents is None else None
    if tensor_contents is not None:
        body = tensor_contents
    try:
        fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    except RuntimeError:  # a split piece whose memory changed: torch prints, naming no node
        fn = "Invalid"
    if fn is not None:
        suffixes.append(f"grad_fn=<{fn}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    text = _add_suffixes(prefix + body, suffixes, indent)
    if not plain and _is_parameter(cls):
        text = f"Parameter({text})"
    return text
