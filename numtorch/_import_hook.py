"""Make ``import torch`` (and every ``torch.*``, ``torchvision.*``) load numtorch's modules.

``install()`` puts a finder at the front of ``sys.meta_path``. For a name under an aliased
package it imports the numtorch module of the same path and hands that very object to the
import system, so ``sys.modules["torch.nn"] is numtorch.nn``: ``isinstance`` checks, module
state (flags, registries) and pickled names (``torch._utils``, ``torch.nn.modules.linear``)
all meet one module. Nothing is imported up front; a name numtorch lacks raises
``ModuleNotFoundError`` for the torch name, and real torch is never picked up instead.

Child processes: a forked child inherits the finder. A ``spawn`` (or ``forkserver``) child is
a new interpreter that unpickles its preparation data before it re-imports the parent's main
module (which says ``import torch``); ``install()`` adds an entry to that data whose unpickling
installs the finder first, so DataLoader workers, ``torch.multiprocessing.spawn`` and
``multiprocessing`` with ``set_start_method("spawn")`` need nothing from the program.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

__all__ = ["ALIASES", "install", "is_installed", "uninstall"]

# functorch: the deprecated API torch still ships, which programs written for torch 1.x import
ALIASES = {"torch": "numtorch", "torchvision": "numtorchvision",
           "functorch": "numtorch._functorch_api"}
_PREPARATION_KEY = "numtorch_import_hook"


def real_name(fullname):
    """The numtorch module name behind ``fullname``, or None if it is not aliased."""
    top, dot, rest = fullname.partition(".")
    target = ALIASES.get(top)
    return None if target is None else target + dot + rest


class _AliasLoader(importlib.abc.Loader):
    """Loads an aliased name by importing the real module and returning it unchanged."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.real_spec = module.__spec__
        return module

    def exec_module(self, module):
        # The real module ran when it was imported. The import system keeps its __name__,
        # __package__ and __file__ but overwrites __spec__ with the alias's: give it back, or
        # the module's later relative imports warn that __package__ != __spec__.parent
        module.__spec__ = self.real_spec


class AliasFinder(importlib.abc.MetaPathFinder):
    """Finds ``torch.X.Y`` as ``numtorch.X.Y`` (see the module docstring)."""

    def find_spec(self, fullname, path=None, target=None):
        real = real_name(fullname)
        if real is None:
            return None
        module = sys.modules.get(real)
        if module is None:
            real_spec = importlib.util.find_spec(real)
            if real_spec is None:
                # Stop here: the next finders could find real torch's files instead.
                raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
            is_package = real_spec.submodule_search_locations is not None
        else:
            is_package = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(real), is_package=is_package)


_finder = AliasFinder()


def is_installed():
    return _finder in sys.meta_path


def install():
    """Alias torch names to numtorch in this process and in its spawned children.

    Idempotent. Also makes ``numtorch.__version__`` report the torch-compatible version
    (:func:`numtorch.version.torch_compatible_version`), since under the alias it is read as
    ``torch.__version__``, and ``numtorch.__name__`` read ``"torch"``.
    """
    if not is_installed():
        sys.meta_path.insert(0, _finder)
    import numtorch
    from numtorch import version

    numtorch.__version__ = version.__version__ = version.torch_compatible_version()
    # The root package answers to torch's name, as the program imported it: libraries test
    # ``torch.__name__`` (pyro's patch_dependency asserts that "torch.x.y" starts with it).
    # Submodules keep their numtorch names; numtorch's own imports go through __package__.
    numtorch.__name__ = "torch"
    _patch_multiprocessing()


def uninstall():
    """Remove the finder (modules already imported under torch names stay in sys.modules)."""
    while _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    numtorch = sys.modules.get("numtorch")
    if numtorch is not None:
        numtorch.__name__ = "numtorch"


class _InstallInChild:
    """Preparation-data entry that installs the hook in a spawned child as it is unpickled.

    It unpickles as ``runpy.run_path(<this file's _child_boot.py>)``: a stdlib call with an
    absolute path, so it works before the child has the parent's ``sys.path`` (which
    ``multiprocessing`` applies only after unpickling the whole preparation data).
    """

    def __reduce__(self):
        import runpy

        boot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_child_boot.py")
        return runpy.run_path, (boot,)


def _patch_multiprocessing():
    from multiprocessing import spawn

    if getattr(spawn.get_preparation_data, "_numtorch_hook", False):
        return
    original = spawn.get_preparation_data

    def get_preparation_data(name):
        data = original(name)
        # A dict keeps insertion order and pickle rebuilds values in that order; the first
        # entry runs before 'init_main_from_path' is even read. multiprocessing's prepare()
        # ignores keys it does not know.
        return {_PREPARATION_KEY: _InstallInChild(), **data}

    get_preparation_data._numtorch_hook = True
    get_preparation_data.__wrapped__ = original
    spawn.get_preparation_data = get_preparation_data
