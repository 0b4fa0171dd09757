"""Import a module (SciPy's, on first use) without resetting which warnings were shown.

Python shows a ``"default"``-action warning once per place, and forgets those records each time
the warning filters change. SciPy changes them while it is imported (``catch_warnings`` around
some of its imports), so a lazy ``import scipy...`` inside numtorch, typically at the first
optimizer step, made every warning the program had already seen show once more; torch, which
imports no SciPy, shows each once. Here the filter-change notice is held back while such a
module is imported: the filters themselves are still read as they are.
"""

import importlib
import sys
import threading
import warnings

_LOCK = threading.Lock()


def _unchanged():
    """Stands in for ``warnings._filters_mutated`` during an import."""


def import_module(name):
    """``importlib.import_module(name)``, keeping the records of warnings already shown."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    with _LOCK:
        notice = getattr(warnings, "_filters_mutated", None)
        if notice is None:  # pragma: no cover - another Python's warnings module
            return importlib.import_module(name)
        warnings._filters_mutated = _unchanged
        try:
            return importlib.import_module(name)
        finally:
            warnings._filters_mutated = notice
