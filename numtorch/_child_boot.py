"""Run by path in a spawned child of ``numtorch.run`` (see ``_import_hook._InstallInChild``).

The child has not yet received its parent's ``sys.path``, so if numtorch does not import from
the default path, the directory holding this package is added first.
"""

import importlib.util
import os
import sys

if importlib.util.find_spec("numtorch") is None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from numtorch import _import_hook  # noqa: E402

_import_hook.install()
