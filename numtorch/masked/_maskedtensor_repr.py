"""The text of a MaskedTensor, laid out as torch's prototype prints it: one nested bracket per
dim, floats as ``%8.4f``, ``--`` (8 wide) where the mask is False."""


def _cell(v, kept, kind):
    if not kept:
        return "      --"
    if kind == "f":
        return f"{float(v):8.4f}"
    if kind == "b":
        return str(bool(v))
    return str(int(v))


def _nested(data, mask, kind, depth):
    pad = "  " * depth
    if data.ndim == 1:
        return pad + "[" + ", ".join(_cell(v, k, kind) for v, k in zip(data, mask)) + "]"
    inner = ",\n".join(_nested(d, m, kind, depth + 1) for d, m in zip(data, mask))
    return f"{pad}[\n{inner}\n{pad}]"


def masked_repr(data, mask):
    """``data`` and ``mask``: NumPy arrays of one shape."""
    kind = "f" if data.dtype.kind in "fcV" else ("b" if data.dtype.kind == "b" else "i")
    if data.ndim == 0:
        if not bool(mask):
            return "MaskedTensor(--, False)"
        return f"MaskedTensor({_cell(data, True, kind)}, True)"
    return "MaskedTensor(\n" + _nested(data, mask, kind, 1) + "\n)"
