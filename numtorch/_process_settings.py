"""Everything ``import numtorch`` changes outside numtorch itself, in one place.

Importing numtorch has three process-wide effects, all made by :func:`apply` from
``numtorch/__init__.py`` and nowhere else:

1. **glibc's allocator thresholds** (Linux only, :func:`tune_allocator`). NumPy allocates a
   fresh array for every op result; with glibc's defaults each block of 128 KiB or more is
   mmap'd and unmapped again, so every op pays page faults on memory it just freed. Raising the
   mmap and trim thresholds (to 256 MiB and 1 GiB, what ``MALLOC_MMAP_THRESHOLD_`` /
   ``MALLOC_TRIM_THRESHOLD_`` would do) roughly halves the time of elementwise-heavy training
   steps, and freed memory then stays with the process instead of going back to the OS. Opt
   out with ``NUMTORCH_KEEP_MALLOC=1``; setting either glibc variable yourself also leaves the
   allocator alone.
2. **NumPy's floating-point error callback** (``numtorch._fp_errors``): categories NumPy would
   *warn* about become a call to a function that stays silent when the failing NumPy call was
   made by numtorch's code (torch computes ``log(0) = -inf`` without a word) and warns as NumPy
   does otherwise. It is set for the importing thread's context, and for each later thread on
   its first op; a user's own ``np.seterr`` or ``np.errstate`` takes precedence.
3. **A warnings filter** ignoring ``RuntimeWarning`` attributed to ``numtorch.*`` modules, for
   threads where the callback above is not installed (NumPy keeps its error state per context).

``backend/`` knows only NumPy from CuPy; nothing here is about devices.
"""

import os
import sys
import warnings

from . import _fp_errors


def apply():
    """Make the three changes listed in the module docstring (called once, at import)."""
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"numtorch\.")
    _fp_errors.install()
    tune_allocator()


def tune_allocator():
    """Keep large freed blocks in glibc's heap instead of returning them to the OS.

    Returns:
        bool: True when the thresholds were changed; False on other platforms, with
        ``NUMTORCH_KEEP_MALLOC`` set, when the user set glibc's own variables, or when the C
        library is not glibc.
    """
    if not sys.platform.startswith("linux") or os.environ.get("NUMTORCH_KEEP_MALLOC"):
        return False
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "MALLOC_TRIM_THRESHOLD_" in os.environ:
        return False  # the user chose already
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        ok = libc.mallopt(m_mmap_threshold, 256 * 2 ** 20)
        ok = libc.mallopt(m_trim_threshold, 2 ** 30) and ok
        return bool(ok)
    except (OSError, AttributeError):  # not glibc (musl, ...): nothing to tune
        return False
