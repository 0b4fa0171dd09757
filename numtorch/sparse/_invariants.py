"""``torch.sparse.check_sparse_tensor_invariants``: whether sparse constructors validate their
indices, and torch's once-per-process warning when a program never said.

torch leaves the checks off by default and, the first time a sparse tensor is built without a
``check_invariants`` argument while the global setting was never chosen (``enable()``,
``disable()`` or the context manager), warns that they are implicitly disabled.
"""

import functools
import warnings

__all__ = ["check_sparse_tensor_invariants", "implicit_warning", "checks_for"]

_state = {"enabled": False, "chosen": False, "warned": False}

_IMPLICIT = ("Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) "
             "will occur when operating on a sparse tensor which violates the invariants, but "
             "checks incur performance overhead. To silence this warning, explicitly opt in or "
             "out. See `torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance. ")


def _set(value):
    _state["enabled"] = bool(value)
    _state["chosen"] = True


class check_sparse_tensor_invariants:  # noqa: N801 - torch's name
    """Turn the validation of sparse tensors' indices on (or off) for constructors called
    without ``check_invariants``.

    Use the static methods :meth:`enable`/:meth:`disable` to choose for the whole process, or
    an instance as a context manager or function decorator for a region (the previous
    setting comes back on exit). Choosing either way also silences torch's warning that the
    checks are implicitly disabled. A constructor's own ``check_invariants=`` argument wins.

    Args:
        enable (bool): the setting inside the region. Default: True.

    Example:
        >>> with torch.sparse.check_sparse_tensor_invariants():
        ...     torch.sparse_coo_tensor([[0, 1]], [1., 2.], (2,))._nnz()
        2
    """

    @staticmethod
    def is_enabled():
        """Whether constructors without ``check_invariants`` validate their input."""
        return _state["enabled"]

    @staticmethod
    def enable():
        """Validate sparse constructors' input from now on."""
        _set(True)

    @staticmethod
    def disable():
        """Stop validating sparse constructors' input."""
        _set(False)

    def __init__(self, enable=True):
        self.state = enable
        self.saved_state = None

    def __enter__(self):
        self.saved_state = self.is_enabled()
        _set(self.state)

    def __exit__(self, *exc):
        _set(self.saved_state)
        self.saved_state = None

    def __call__(self, mth):
        @functools.wraps(mth)
        def test_mth(*args, **kwargs):
            with type(self)(self.state):
                return mth(*args, **kwargs)

        return test_mth


def checks_for(check_invariants):
    """Whether a constructor given ``check_invariants`` validates (torch's warning, once per
    process, when neither it nor the global setting was chosen)."""
    if check_invariants is not None:
        return bool(check_invariants)
    if not _state["chosen"] and not _state["warned"]:
        _state["warned"] = True
        implicit_warning(stacklevel=4)
    return _state["enabled"]


def implicit_warning(stacklevel):
    warnings.warn(_IMPLICIT, UserWarning, stacklevel=stacklevel)
