"""``backends.opt_einsum``: whether ``einsum`` may plan its contraction order with the
``opt_einsum`` package. numtorch's einsum contracts two operands at a time in NumPy's own
order, so the settings are stored for programs that read or set them and change nothing;
``enabled`` and ``strategy`` default as torch's do (on and "auto" when the package is
installed, off and None otherwise)."""

import importlib.util

_STRATEGIES = ("auto", "greedy", "optimal")


def is_available():
    """Whether the ``opt_einsum`` package can be imported."""
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    """The ``opt_einsum`` module when it is installed, else None."""
    if not is_available():
        return None
    import opt_einsum

    return opt_einsum


enabled = is_available()
strategy = "auto" if enabled else None
