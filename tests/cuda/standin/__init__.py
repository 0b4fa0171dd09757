"""A strict CPU stand-in for CuPy, used only by tests (never by numtorch itself).

CI has no GPU, so numtorch's CUDA path is exercised here against a module that behaves as CuPy
14 does where numtorch could go wrong: its arrays are opaque to NumPy (``np.asarray`` on them
raises, as on a GPU), they refuse mixing with host arrays, the module has exactly CuPy's names
(from the real package, see ``make_names.py``) and keywords, and what CuPy lacks or refuses on a
GPU raises here too (``maximum.accumulate``, ``reduceat`` other than add, ``flags.writeable``,
``indices(sparse=)``, ``errstate``...). Values are computed by NumPy on the host, so results
can be compared with the CPU path and with torch.

Usage::

    from tests.cuda import standin
    with standin.active():            # numtorch's "cuda" is the stand-in inside the block
        x = numtorch.ones(3, device="cuda")

``STATS`` counts host synchronisations, implicit host-to-device index copies and kernels.
"""

import contextlib

import numtorch.backend as _backend

from ._array import STATS, ndarray
from ._kernels import REDUCTIONS, REFERENCES, reference
from ._module import get

__all__ = ["active", "install", "uninstall", "modules", "STATS", "ndarray", "reference",
           "REFERENCES", "REDUCTIONS", "reset_stats"]


def modules():
    """The stand-in ``(cupy, cupyx)`` modules."""
    from . import _references  # noqa: F401  (registers the fused kernels' references)
    from . import _references_rows  # noqa: F401  (layer norm's whole-row kernels)
    from . import _references_attention  # noqa: F401  (attention's softmax rows)

    return get()


def install():
    """Make the stand-in numtorch's CuPy (until :func:`uninstall`)."""
    cp, cpx = modules()
    _backend._use_cupy_for_tests(cp, cpx)
    return cp


def uninstall():
    """Give numtorch back its own CuPy lookup (a real GPU, or none)."""
    _backend._use_cupy_for_tests(None, None)


@contextlib.contextmanager
def active():
    """A ``with`` block in which numtorch's ``"cuda"`` device is the stand-in."""
    cp = install()
    try:
        yield cp
    finally:
        uninstall()


def reset_stats():
    """Zero the counters of :data:`STATS` (syncs, index copies, kernels, fused kernel names)."""
    STATS.clear()
    STATS.update({"sync": 0, "h2d_index": 0, "kernels": 0, "h2d": 0, "h2d_async": 0})
