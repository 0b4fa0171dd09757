"""CuPy calls whose result dtype CuPy resolves differently from NumPy, done so they keep it.

A CuPy ufunc runs the first of its type loops that every input casts to safely and returns
that loop's type (``cupy/_core/_kernel.pyx``, ``_Ops._guess_routine_from_in_types``). ``where``
(``?ee->e``, ``?ff->f``...), ``clip`` and ``round`` have no bfloat16 loop, so on a GPU they
compute bfloat16 in float32 and return float32, where NumPy (the CPU path) keeps bfloat16. The
ops call these helpers on device arrays; the CPU path keeps calling NumPy.
"""

import numpy as np

from .._dtype import _BF16_NP

_I16 = np.dtype(np.int16)


def _bits(v, dtype):
    """``v`` (a device array, a NumPy scalar or a number) as the int16 bit pattern of
    ``dtype``."""
    if hasattr(v, "dtype"):
        return (v if v.dtype == dtype else v.astype(dtype)).view(_I16)
    return int(np.array(v, dtype=dtype).view(_I16))  # a weak int: CuPy keeps the int16 loop


def where(xp, cond, a, b):
    """``xp.where(cond, a, b)`` in NumPy's result dtype. A bfloat16 result selects the 16-bit
    patterns through CuPy's int16 loop: one kernel, exact (values are only moved)."""
    ta, tb = getattr(a, "dtype", None), getattr(b, "dtype", None)
    if ta is not _BF16_NP and tb is not _BF16_NP:
        return xp.where(cond, a, b)
    target = np.result_type(a if ta is None else ta, b if tb is None else tb)
    if target != _BF16_NP:  # bfloat16 met a wider type: CuPy's loop is NumPy's type
        return xp.where(cond, a, b).astype(target, copy=False)
    return xp.where(cond, _bits(a, target), _bits(b, target)).view(target)

