"""Installed on ``PYTHONPATH`` by ``numtorch.run`` for the Python processes a program starts
itself (``subprocess.Popen([sys.executable, script])``, as Lightning's DDP launcher does):
``import torch`` in them resolves to numtorch too. Any other ``sitecustomize`` later on the
path still runs.
"""

import importlib
import os
import sys


def _boot():
    here = os.path.dirname(os.path.abspath(__file__))
    if os.environ.get("NUMTORCH_RUN_CHILD") == "1":
        root = os.path.dirname(os.path.dirname(here))
        if root not in sys.path:
            sys.path.append(root)
        try:
            from numtorch import _import_hook

            _import_hook.install()
        except Exception as exc:  # noqa: BLE001 - never stop the child's own start-up
            sys.stderr.write(f"numtorch.run: could not alias torch in this process: {exc}\n")
    # hand over to the sitecustomize this one shadows, if there is one
    saved = sys.modules.pop("sitecustomize", None)
    path = sys.path[:]
    try:
        sys.path[:] = [p for p in path if os.path.abspath(p or ".") != here]
        importlib.import_module("sitecustomize")
    except ImportError:
        if saved is not None:
            sys.modules["sitecustomize"] = saved
    finally:
        sys.path[:] = path


_boot()
