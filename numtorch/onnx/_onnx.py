"""The optional ``onnx`` package, imported on first use."""

_CACHE = []


def onnx_modules():
    """``(onnx,)``, or an ImportError that names numtorch's ``onnx`` extra."""
    if not _CACHE:
        try:
            import onnx
        except ImportError as e:
            raise ImportError("numtorch.onnx.export needs the 'onnx' package: install it with "
                              "`pip install numtorch[onnx]` (or `pip install onnx`)") from e
        _CACHE.append(onnx)
    return tuple(_CACHE)
