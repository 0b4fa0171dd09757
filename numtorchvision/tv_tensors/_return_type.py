"""``set_return_type``: whether operations on TVTensors give plain tensors (the default) or
keep the kind."""

_RETURN_SUBCLASS = [False]


class _ReturnTypeCM:
    def __init__(self, to_restore):
        self.to_restore = to_restore

    def __enter__(self):
        return self

    def __exit__(self, *args):
        _RETURN_SUBCLASS[0] = self.to_restore


def set_return_type(return_type):
    """What operations on TVTensors return: ``"Tensor"`` (plain tensors, the default) or
    ``"TVTensor"`` (the kind of their first TVTensor argument, with its metadata). Use it once
    for the whole program or as a context manager (``with set_return_type("TVTensor"):``).
    Transforms and functionals are not affected: they always return their input's kind."""
    to_restore = _RETURN_SUBCLASS[0]
    try:
        value = {"tensor": False, "tvtensor": True}[return_type.lower()]
    except KeyError:
        raise ValueError(f"return_type must be 'TVTensor' or 'Tensor', got {return_type}") \
            from None
    if value:
        # numtorch's public functions dispatch only once some program asks for it
        from numtorch import _torch_function

        _torch_function._install_functions()
    _RETURN_SUBCLASS[0] = value
    return _ReturnTypeCM(to_restore)


def _must_return_subclass():
    return _RETURN_SUBCLASS[0]
