"""torch.linalg, torch.fft and torch.special hold C builtins whose ``__name__`` carries the
namespace (``torch.linalg.det.__name__ == 'linalg_det'``); programs print it when they loop
over functions, so numtorch's functions take the same names."""

import types


def name_as_builtins(glb, prefix):
    """Rename the public functions of the module whose globals are ``glb`` to ``prefix + name``.
    A function that is also exported elsewhere under its own name (torch.special.erf is
    torch.erf's function) is copied first, so the other name keeps its ``__name__``."""
    for name in glb["__all__"]:
        f = glb.get(name)
        if not isinstance(f, types.FunctionType) or f.__name__ != name:
            continue
        if f.__module__ != glb["__name__"]:
            g = types.FunctionType(f.__code__, f.__globals__, name, f.__defaults__, f.__closure__)
            g.__kwdefaults__, g.__doc__, g.__module__ = f.__kwdefaults__, f.__doc__, f.__module__
            g.__dict__.update(f.__dict__)
            glb[name] = f = g
        f.__name__ = f.__qualname__ = prefix + name
