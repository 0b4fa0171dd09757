"""The exceptions and the warning the ONNX exporter raises, at torch's names
(``torch.onnx.errors``)."""

__all__ = ["OnnxExporterWarning", "SymbolicValueError", "UnsupportedOperatorError"]


class OnnxExporterError(RuntimeError):
    """Anything that stops an export."""


class OnnxExporterWarning(UserWarning):
    """Something in the model that the exported graph may not reproduce exactly."""


class UnsupportedOperatorError(OnnxExporterError):
    """An operation of the model has no ONNX translation (at the requested opset).

    Args:
        name (str): the operation, spelled as ``"aten::<op>"`` like torch's, or a module or
            op class name.
        version (int): the opset the export asked for.
        supported_version (int or None): the first opset that can express it, if any.
    """

    def __init__(self, name, version, supported_version):
        msg = f"Exporting the operator '{name}' to ONNX opset version {version} is not supported"
        if supported_version is not None:
            msg += (f". Support for this operator was added in version {supported_version}, try "
                    f"exporting with this version")
        super().__init__(msg)


class SymbolicValueError(OnnxExporterError):
    """A value in the traced graph cannot be expressed in ONNX (for example a size that
    depends on a dynamic axis in a way the exporter cannot write down).

    Args:
        msg (str): what went wrong.
        value: the graph value concerned (a name or description); kept as ``.value``.
    """

    def __init__(self, msg, value):
        self.value = value
        super().__init__(f"{msg}  [Caused by the value '{value}']" if value is not None
                         else msg)
