"""Run the user programs under ``programs/`` with real torch or with numtorch; print JSON.

Usage: ``python runner.py torch|numtorch [program ...]``. Each program file is split into cells
at lines starting with ``#%%``; the first cell (imports) runs before every other cell, each
cell in fresh globals, so one failing cell does not hide the rest. A cell's record is what it
printed, then the class and message of the exception that ended it, then the warnings it raised.
With numtorch, ``import torch`` resolves to numtorch through its import hook.
"""

import contextlib
import io
import json
import linecache
import re
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
MARK = "\n=====PARITY-JSON=====\n"


def cells_of(path):
    """The prelude and the list of (label, source) cells of one program file."""
    with open(path) as f:
        text = f.read()
    chunks = text.split("\n#%%")
    prelude, cells = chunks[0], []
    for i, chunk in enumerate(chunks[1:]):
        first, _, body = chunk.partition("\n")
        label = first.strip() or str(i)
        # keep line numbers of the cell so both libraries report the same positions
        cells.append((label, body))
    return prelude, cells


def _source_file(name, text):
    """``name``, with ``text`` registered as its lines so ``inspect.getsource`` (TorchScript,
    torch.fx's error messages) finds the code of the prelude or of the cell running now."""
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    return name


def run_cell(prelude, source, name):
    out = io.StringIO()
    glob = {"__name__": "__main__", "__file__": name}
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        # the import hook's modules keep numtorch's __package__ (reported to its owner)
        warnings.filterwarnings("ignore", category=ImportWarning)
        # NumPy 2 warns about torch's own __array_wrap__ (a torch defect, not behaviour)
        warnings.filterwarnings("ignore", "__array_wrap__", DeprecationWarning)
        # ... and that torch's __array__ takes no ``copy`` keyword (the same kind of defect)
        warnings.filterwarnings("ignore", "__array__ implementation doesn't accept a copy",
                                DeprecationWarning)
        # torch's lazy imports of its own modules warn that torch.jit.script is deprecated
        warnings.filterwarnings("ignore", "`torch.jit.script", DeprecationWarning)
        try:
            exec(compile(prelude, _source_file(name + ".prelude", prelude), "exec"), glob)
            glob["torch"].manual_seed(0)
            exec(compile(source, _source_file(name, source), "exec"), glob)
        except BaseException as exc:  # noqa: BLE001 - a user program may raise anything
            print(f"!! {type(exc).__name__}: {exc}")
    for w in caught:
        # the first line only: torch appends where in its C++ sources a warning came from
        message = str(w.message).split("\n")[0].split(" (Triggered internally at")[0]
        out.write(f"~~ {w.category.__name__}: {message}\n")
    # object addresses differ from run to run
    return re.sub(r" at 0x[0-9a-f]+>", " at 0x?>", out.getvalue())


def _import_torchvision(torch):
    """Import torchvision (the oracle of numtorchvision) if installed: on torch's CPU wheel its
    import registers fake kernels torch refuses, so ``register_fake`` is a no-op meanwhile."""
    original = torch.library.register_fake
    torch.library.register_fake = lambda *a, **k: (lambda f: f)
    try:
        import torchvision  # noqa: F401
    except ImportError:
        pass
    finally:
        torch.library.register_fake = original


def main(argv):
    lib, names = argv[0], argv[1:]
    if lib == "numtorch":
        from numtorch import _import_hook

        _import_hook.install()
    import torch  # noqa: F401 - the library under test, imported before any cell runs

    if lib == "torch":
        _import_torchvision(torch)

    torch.set_printoptions(profile="default")
    names = names or sorted(n[:-3] for n in os.listdir(PROGRAMS) if n.endswith(".py"))
    result = {}
    for name in names:
        prelude, cells = cells_of(os.path.join(PROGRAMS, name + ".py"))
        for label, source in cells:
            result[f"{name}:{label}"] = run_cell(prelude, source, name)
        # running a torch.compile'd function turns distributions' argument validation off for
        # the whole process in torch; later programs expect the default
        torch.distributions.Distribution.set_default_validate_args(True)
        torch.set_default_dtype(torch.float32)  # a program may change it in its prelude
    sys.stdout.write(MARK)
    json.dump(result, sys.stdout, indent=0)


if __name__ == "__main__":
    main(sys.argv[1:])
