"""Run a program written for PyTorch on numtorch, unchanged.

Usage::

    python -m numtorch.run script.py [args...]
    python -m numtorch.run -m package.module [args...]
    python -m numtorch.run -c "program text" [args...]
    python -m numtorch.run - [args...]          (the program read from standard input)
    numtorch-run script.py [args...]

``import torch``, ``import torchvision`` and every ``torch.*`` submodule resolve to numtorch
and numtorchvision (:mod:`numtorch._import_hook`), also in ``multiprocessing`` children. The
program then runs as the interpreter would run it: it is ``__main__``, ``sys.argv`` is
``[script, *args]``, ``sys.path[0]`` is the script's directory (the current directory with
``-m``), exit codes pass through and an uncaught exception prints its traceback from the
program's first frame and exits with status 1. ``torch.__version__`` reads
``2.13.0+numtorch<release>``.
"""

import builtins
import functools
import importlib.machinery
import importlib.util
import os
import sys
import types

from numtorch import _import_hook

__all__ = ["main", "run_module", "run_path", "run_source"]

_USAGE = """\
usage: python -m numtorch.run [-h] (script.py | -m module | -c command | -) [args ...]

Run a PyTorch program with `torch` and `torchvision` (and their submodules) mapped to
numtorch and numtorchvision.

  script.py     the program file; the arguments after it are its sys.argv[1:]
  -m module     run a module as `python -m module` does
  -c command    run the program text `command`, as `python -c` does
  -             read the program from standard input
  -h, --help    show this message and exit
"""
_PROG = "numtorch.run"


def _new_main(path, loader, spec=None):
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__loader__ = loader
    main.__spec__ = spec
    main.__package__ = spec.parent if spec is not None else None
    main.__cached__ = None
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    return main


def run_path(path, args=()):
    """Execute the script ``path`` as ``__main__`` with ``sys.argv = [path, *args]``."""
    abspath = os.path.abspath(path)
    with open(abspath, "rb") as f:
        source = f.read()  # bytes: compile() honours the file's coding declaration
    code = compile(source, abspath, "exec", dont_inherit=True)
    sys.argv[:] = [path, *args]
    if not sys.flags.safe_path:
        sys.path[0] = os.path.dirname(os.path.realpath(abspath))
    main = _new_main(abspath, importlib.machinery.SourceFileLoader("__main__", abspath))
    exec(code, main.__dict__)


def run_source(source, filename, argv0, args=()):
    """Execute program text as ``python -c`` (``argv0`` ``-c``) or ``python -`` (``-``) does:
    ``__main__`` without a file, ``sys.argv = [argv0, *args]``, the current directory first
    on ``sys.path``."""
    code = compile(source, filename, "exec", dont_inherit=True)
    sys.argv[:] = [argv0, *args]
    if not sys.flags.safe_path:
        sys.path[0] = ""
    main = _new_main(filename, importlib.machinery.BuiltinImporter)
    if argv0 == "-c":  # python -c leaves __main__ without a file; python - names it <stdin>
        del main.__file__, main.__cached__
    exec(code, main.__dict__)


def _module_spec(name):
    spec = importlib.util.find_spec(name)
    if spec is not None and isinstance(spec.loader, _import_hook._AliasLoader):
        # `-m torch.distributed.run` runs numtorch's module: an alias has no code of its own.
        return _module_spec(spec.loader.target)
    if spec is None:
        raise ImportError(f"No module named {name}")
    if spec.submodule_search_locations is not None:  # a package runs its __main__
        if name.endswith(".__main__"):
            raise ImportError(f"Cannot use package as __main__ module: {name}")
        try:
            return _module_spec(name + ".__main__")
        except ImportError as exc:
            raise ImportError(f"{exc}; '{name}' is a package and cannot be directly "
                              "executed") from None
    if spec.loader is None or not hasattr(spec.loader, "get_code"):
        raise ImportError(f"No code object available for {name}")
    return spec


def run_module(name, args=()):
    """Execute module ``name`` as ``__main__``, as ``python -m name args...`` does."""
    if not sys.flags.safe_path:
        sys.path[0] = os.getcwd()
    _exec_spec(_module_spec(name), args)


def _exec_spec(spec, args):
    code = spec.loader.get_code(spec.name)
    sys.argv[:] = [spec.origin, *args]
    main = _new_main(spec.origin, spec.loader, spec)
    exec(code, main.__dict__)


def _report(exc):
    # The program's traceback starts at its own first frame, as under `python script.py`.
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    exc.__traceback__ = tb
    sys.excepthook(type(exc), exc, tb)


def _alias_in_child_pythons():
    """Make Python processes the program starts itself (not through ``multiprocessing``,
    which ``install`` covers) alias torch as well: a ``sitecustomize`` on ``PYTHONPATH``
    installs the hook where ``NUMTORCH_RUN_CHILD=1``."""
    site = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_run_child")
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if site not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([site, *paths])
    os.environ["NUMTORCH_RUN_CHILD"] = "1"


def main(argv=None):
    """Parse ``argv`` (default ``sys.argv[1:]``), install the hook and run the program.

    Returns:
        int: the exit status (a ``SystemExit`` raised by the program propagates as is).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(_USAGE)
        return 0
    if not argv or (argv[0].startswith("-") and argv[0] != "-" and
                    not argv[0].startswith(("-m", "-c"))):
        problem = f"unknown option {argv[0]}" if argv else "a script or -m module is required"
        sys.stderr.write(f"{_PROG}: {problem}\n\n{_USAGE}")
        return 2
    _import_hook.install()
    _alias_in_child_pythons()
    if argv[0].startswith("-m"):
        name = argv[0][2:] or (argv[1] if len(argv) > 1 else "")
        args = argv[1:] if argv[0] != "-m" else argv[2:]
        if not name:
            sys.stderr.write(f"{_PROG}: argument -m expects a module name\n")
            return 2
        if not sys.flags.safe_path:
            sys.path[0] = os.getcwd()
        try:
            spec = _module_spec(name)
        except ImportError as exc:
            sys.stderr.write(f"{_PROG}: {exc}\n")
            return 1
        program = functools.partial(_exec_spec, spec, args)
    elif argv[0].startswith("-c"):
        command = argv[0][2:] or (argv[1] if len(argv) > 1 else None)
        if command is None:
            sys.stderr.write(f"{_PROG}: argument -c expects the program text\n")
            return 2
        args = argv[1:] if argv[0] != "-c" else argv[2:]
        program = functools.partial(run_source, command, "<string>", "-c", args)
    elif argv[0] == "-":
        program = functools.partial(run_source, sys.stdin.read(), "<stdin>", "-", argv[1:])
    else:
        path, args = argv[0], argv[1:]
        if not os.path.isfile(path):
            reason = "Is a directory" if os.path.isdir(path) else "No such file or directory"
            sys.stderr.write(f"{_PROG}: can't open file {os.path.abspath(path)!r}: {reason}\n")
            return 2
        program = functools.partial(run_path, path, args)
    try:
        program()
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:  # noqa: BLE001 - reported as the interpreter would
        _report(exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
