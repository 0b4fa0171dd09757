"""``set_return_type``: whether operations on TVTensors give plain tensors (the default) or
keep the kind."""

_STATE = {"keep_kind": False}
_CHOICES = {"tensor": False, "tvtensor": True}


class _Restore:
    """Returned by ``set_return_type``: leaving its ``with`` block puts the previous setting
    back (without a ``with`` the new setting simply stays)."""

    def __init__(self, previous):
        self._previous = previous

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        _STATE["keep_kind"] = self._previous


def set_return_type(return_type):
    """What operations on TVTensors return: ``"Tensor"`` (plain tensors, the default) or
    ``"TVTensor"`` (the kind of their first TVTensor argument, with its metadata). Use it once
    for the whole program or as a context manager (``with set_return_type("TVTensor"):``).
    Transforms and functionals are not affected: they always return their input's kind."""
    previous = _STATE["keep_kind"]
    value = _CHOICES.get(return_type.lower())
    if value is None:
        raise ValueError(f"return_type must be 'TVTensor' or 'Tensor', got {return_type}")
    if value:
        # numtorch's public functions dispatch only once some program asks for it
        from numtorch import _torch_function

        _torch_function._install_functions()
    _STATE["keep_kind"] = value
    return _Restore(previous)


def _keeps_kind():
    return _STATE["keep_kind"]
