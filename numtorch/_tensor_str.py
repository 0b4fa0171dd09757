"""``repr(tensor)`` in torch's format: ``tensor([[1., 2.]], requires_grad=True)``."""

import numpy as np

from . import _dtype

__all__ = ["format_tensor", "set_printoptions"]

_opts = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set how tensors print (same keywords as torch.set_printoptions)."""
    if profile == "default":
        _opts.update(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    elif profile == "short":
        _opts.update(precision=2, threshold=1000, edgeitems=2, linewidth=80)
    elif profile == "full":
        _opts.update(precision=4, threshold=float("inf"), edgeitems=3, linewidth=80)
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("linewidth", linewidth)):
        if v is not None:
            _opts[k] = v
    _opts["sci_mode"] = sci_mode


class _Formatter:
    """Chooses one element format for a whole tensor, as torch does."""

    def __init__(self, arr):
        self.kind = arr.dtype.kind
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        prec = _opts["precision"]
        values = arr.reshape(-1)
        if self.kind == "b":
            self.max_width = max((len(str(bool(v))) for v in values), default=1)
            return
        if self.kind in "iu":
            self.max_width = max((len(str(int(v))) for v in values), default=1)
            return
        finite = values[np.isfinite(values)] if values.size else values
        if finite.size == 0:
            self.max_width = max((len(_special(v)) for v in values), default=1)
            return
        absf = np.abs(finite.astype(np.float64))
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            if absf.max() > 1e8:
                self.sci_mode = True
                self.int_mode = False
            else:
                self.max_width = max(len(f"{v:.0f}") + 1 for v in finite)
        else:
            nz = absf[absf != 0]
            lo = nz.min() if nz.size else 0.0
            hi = absf.max()
            if nz.size and (hi / lo > 1000.0 or hi > 1e8 or lo < 1e-4):
                self.sci_mode = True
            else:
                self.max_width = max(len(f"{v:.{prec}f}") for v in finite)
        if _opts["sci_mode"] is not None:
            self.sci_mode = _opts["sci_mode"]
        if self.sci_mode:
            self.max_width = max(len(f"{v:.{prec}e}") for v in finite)
        for v in values:
            if not np.isfinite(v):
                self.max_width = max(self.max_width, len(_special(v)))

    def format(self, v):
        prec = _opts["precision"]
        if self.kind == "b":
            s = str(bool(v))
        elif self.kind in "iu":
            s = str(int(v))
        elif not np.isfinite(v):
            s = _special(v)
        elif self.sci_mode:
            s = f"{v:.{prec}e}"
        elif self.int_mode:
            s = f"{v:.0f}."
        else:
            s = f"{v:.{prec}f}"
        return " " * (self.max_width - len(s)) + s


def _special(v):
    if np.isnan(v):
        return "nan"
    return "inf" if v > 0 else "-inf"


def _summarize(arr, edge):
    """Keep ``edge`` items at both ends of every dim (for formatting width only)."""
    if arr.ndim == 0:
        return arr
    idx = []
    for s in arr.shape:
        idx.append(np.r_[0:min(edge, s), max(s - edge, edge):s] if s > 2 * edge else slice(None))
    out = arr
    for d, i in enumerate(idx):
        if not isinstance(i, slice):
            out = np.take(out, i, axis=d)
    return out


def _fmt_array(arr, fmt, indent, summarize):
    edge = _opts["edgeitems"]
    if arr.ndim == 0:
        return fmt.format(arr.item() if arr.dtype.kind != "f" else arr)
    if arr.ndim == 1:
        n = arr.shape[0]
        if summarize and n > 2 * edge:
            items = [fmt.format(v) for v in arr[:edge]] + ["..."] + \
                [fmt.format(v) for v in arr[-edge:]]
        else:
            items = [fmt.format(v) for v in arr]
        width = fmt.max_width + 2
        per_line = max(1, (_opts["linewidth"] - indent) // width)
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = arr.shape[0]
    if summarize and n > 2 * edge:
        parts = [_fmt_array(arr[i], fmt, indent + 1, summarize) for i in range(edge)] + \
            ["..."] + [_fmt_array(arr[i], fmt, indent + 1, summarize) for i in range(n - edge, n)]
    else:
        parts = [_fmt_array(arr[i], fmt, indent + 1, summarize) for i in range(n)]
    sep = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def format_tensor(t):
    arr = t._array if type(t._array) is np.ndarray else t._array.get()
    dt = _dtype._FROM_NP[arr.dtype]
    prefix = "tensor("
    suffixes = []
    summarize = arr.size > _opts["threshold"]
    if arr.size == 0:
        body = "[]"
        if arr.ndim != 1:
            suffixes.append(f"size=({', '.join(map(str, arr.shape))}{',' if arr.ndim == 1 else ''})")
    else:
        if arr.dtype.kind == "c":
            body = np.array2string(arr, separator=", ", precision=_opts["precision"],
                                   prefix=prefix)
        else:
            shown = _summarize(arr, _opts["edgeitems"]) if summarize else arr
            fmt = _Formatter(shown.astype(np.float64) if arr.dtype == np.float16 else shown)
            body = _fmt_array(arr, fmt, len(prefix), summarize)
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    default_dtypes = (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool,
                      _dtype.default_complex())
    if dt not in default_dtypes or (arr.size == 0 and dt is not _dtype.get_default_dtype()
                                    and dt is not _dtype.int64 and dt is not _dtype.bool):
        suffixes.append(f"dtype={dt!r}")
    elif arr.size == 0 and dt in (_dtype.int64, _dtype.bool):
        suffixes.append(f"dtype={dt!r}")
    fn = t._grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"
