"""``export.save`` / ``export.load``: an ExportedProgram in one archive.

The archive is a ``numtorch.save`` file holding the state tensors and the program as JSON
text; it loads with ``weights_only=True``, and the functions the graph calls are resolved by
name from numtorch (and ``operator``) only, so loading a file runs no code of the file's.
"""

import importlib
import json

from .. import _device, _dtype
from .._dynamo.exc import UserError
from ._dynamic import Sym
from ._graph import Spec
from ._trace import Call, V

FORMAT = "numtorch.export/1"
_SAFE_MODULES = ("numtorch", "operator", "math")


def _target_name(fn):
    module = getattr(fn, "__module__", None) or ""
    if fn in (getattr,):
        return "builtins:getattr"
    if module.split(".")[0] not in _SAFE_MODULES:
        raise UserError(f"numtorch.export.save: the program calls {fn!r} from {module!r}, "
                        "which a saved program cannot name (only numtorch's functions can)")
    return f"{module}:{fn.__qualname__}"


def _resolve(name):
    module, _, qual = name.partition(":")
    if name == "builtins:getattr":
        return getattr
    if module.split(".")[0] not in _SAFE_MODULES:
        raise RuntimeError(f"numtorch.export.load: the file names {name!r}, which is not a "
                           "numtorch function")
    obj = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


def _enc(obj):
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, V):
        return {"v": obj.k}
    if isinstance(obj, Sym):
        return {"sym": [obj.const, list(obj.coefs.items())]}
    if isinstance(obj, tuple):
        return {"t": [_enc(o) for o in obj]}
    if isinstance(obj, list):
        return [_enc(o) for o in obj]
    if isinstance(obj, dict):
        return {"d": [[_enc(k), _enc(v)] for k, v in obj.items()]}
    if isinstance(obj, slice):
        return {"s": [_enc(obj.start), _enc(obj.stop), _enc(obj.step)]}
    if obj is Ellipsis:
        return {"e": 1}
    if isinstance(obj, _dtype.dtype):
        return {"dtype": str(obj).split(".")[-1]}
    if isinstance(obj, _device.device):
        return {"device": str(obj)}
    import numtorch

    for name in dir(numtorch):
        if not name.startswith("_") and getattr(numtorch, name) is obj:
            return {"attr": name}
    raise UserError(f"numtorch.export.save: cannot store the argument {obj!r}")


def _dec(obj):
    import numtorch

    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        return [_dec(o) for o in obj]
    ((key, val),) = obj.items()
    if key == "v":
        return V(val)
    if key == "sym":
        return Sym(val[0], {g: c for g, c in val[1]})
    if key == "t":
        return tuple(_dec(o) for o in val)
    if key == "d":
        return {_dec(k): _dec(v) for k, v in val}
    if key == "s":
        return slice(*(_dec(o) for o in val))
    if key == "e":
        return Ellipsis
    if key == "dtype":
        return getattr(numtorch, val)
    if key == "device":
        return numtorch.device(val)
    if key == "attr":
        return getattr(numtorch, val)
    raise RuntimeError(f"numtorch.export.load: unknown entry {key!r}")


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    """Write ``ep`` to ``f`` (a path or a binary file object)."""
    from .. import serialization

    p = ep._parts
    program = {
        "format": FORMAT,
        "inputs": [[s.kind, s.name, s.target, s.value, s.persistent]
                   + ([] if s.constant is None else [s.constant[0]]) for s in p.input_specs],
        "calls": [[c.kind, c.name, None if c.target is None else _target_name(c.target),
                   _enc(c.args), _enc(c.kwargs), _enc(c.outputs)] for c in p.calls],
        "output": _enc(p.output),
        "groups": [[g, list(p.group_source[g]), p.group_size[g], list(p.group_range[g])]
                   for g in p.group_source],
        "guards": [[leaf, kind, _enc(payload)] for leaf, kind, payload in p.guards],
        "in_names": p.in_names,
        "extra_files": dict(extra_files or {}),
    }
    tensors = {str(s.value): p.tensor_of(s) for s in p.input_specs if s.kind != "USER_INPUT"}
    serialization.save({"program": json.dumps(program), "tensors": tensors,
                        "modules": dict(p.leaf_modules)}, f)


def load(f, *, extra_files=None, expected_opset_version=None):
    """Read an ExportedProgram written by :func:`save`."""
    from .. import serialization
    from . import ExportedProgram, _Parts

    with serialization.safe_globals(_module_classes()):
        blob = serialization.load(f, weights_only=True)
    if not isinstance(blob, dict) or "program" not in blob:
        raise RuntimeError("numtorch.export.load: not a file written by numtorch.export.save")
    program = json.loads(blob["program"])
    if program.get("format") != FORMAT:
        raise RuntimeError(f"numtorch.export.load: unknown format {program.get('format')!r}")
    tensors = {int(k): v for k, v in blob["tensors"].items()}
    specs = []
    for entry in program["inputs"]:
        specs.append(Spec(*entry[:5]))
        if len(entry) > 5:  # a Python scalar user input
            specs[-1].constant = (entry[5],)
    calls = []
    for kind, name, target, args, kwargs, outputs in program["calls"]:
        fn = None if target is None else _resolve(target)
        calls.append(Call(kind, name, fn, _dec(args), _dec(kwargs), _dec(outputs), None))
    groups = program["groups"]
    parts = _Parts(specs, calls, _dec(program["output"]), tensors,
                   {g: tuple(src) for g, src, _, _ in groups},
                   {g: size for g, _, size, _ in groups},
                   {g: tuple(rng) for g, _, _, rng in groups},
                   [(leaf, kind, _tuple_payload(_dec(payload)))
                    for leaf, kind, payload in program["guards"]],
                   program["in_names"], None, blob.get("modules", {}))
    if extra_files is not None:
        extra_files.update(program.get("extra_files", {}))
    return ExportedProgram(parts)


def _module_classes():
    """The only classes a saved program's submodules may be: the ones export calls whole."""
    from ..nn.modules.activation import MultiheadAttention
    from ..nn.modules.linear import NonDynamicallyQuantizableLinear
    from ..nn.modules.rnn import GRU, LSTM, RNN

    return [LSTM, GRU, RNN, MultiheadAttention, NonDynamicallyQuantizableLinear]


def _tuple_payload(payload):
    return tuple(payload) if isinstance(payload, list) else payload
