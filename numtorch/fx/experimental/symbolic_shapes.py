"""``torch.fx.experimental.symbolic_shapes``: the size-guard helpers library code calls so
that it also works while torch traces with symbolic sizes.

numtorch never makes symbolic sizes: every size, shape comparison and condition is a plain
Python int or bool, so each guard is the value itself and nothing has free symbols. The
argument checks are torch's (a guard takes a bool, ``is_concrete_int`` an int).
"""

from ...export._errors import GuardOnDataDependentSymNode

__all__ = ["GuardOnDataDependentSymNode", "free_symbols", "free_unbacked_symbols",
           "guard_or_false", "guard_or_true", "guard_size_oblivious", "has_free_symbols",
           "has_free_unbacked_symbols", "is_concrete_bool", "is_concrete_int", "is_nested_int",
           "statically_known_false", "statically_known_true", "sym_eq"]


def _bool(a):
    if not isinstance(a, bool):
        raise AssertionError(f"expected a bool condition, got {type(a).__name__}")  # noqa: TRY004
    return a


def guard_or_false(a):
    """``a`` (a bool); False where torch could not decide a symbolic condition."""
    return _bool(a)


def guard_or_true(a):
    """``a`` (a bool); True where torch could not decide a symbolic condition."""
    return _bool(a)


def statically_known_true(x):
    return _bool(x)


def statically_known_false(x):
    return not _bool(x)


def guard_size_oblivious(expr):
    return _bool(expr)


def is_concrete_int(a):
    """Whether ``a`` is a known int: always, for an int (numtorch sizes are never symbolic)."""
    if not isinstance(a, int):
        raise AssertionError(f"expected an int, got {type(a).__name__}")  # noqa: TRY004
    return True


def is_concrete_bool(a):
    _bool(a)
    return True


def free_symbols(val):
    """The size symbols in ``val``: none."""
    return set()


def free_unbacked_symbols(x):
    return set()


def has_free_symbols(val):
    return False


def has_free_unbacked_symbols(x):
    return False


def is_nested_int(s):
    return False


def sym_eq(x, y):
    """``x == y`` for ints, or element by element for equal-length tuples/lists of them."""
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        return len(x) == len(y) and all(sym_eq(a, b) for a, b in zip(x, y))
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return x == y
    raise AssertionError(f"sym_eq: unsupported operands {type(x).__name__} and "
                         f"{type(y).__name__}")
