"""Regenerate ``cupy_names.json`` from a real CuPy (run once per CuPy release; no GPU needed).

    pip install --target /tmp/cupy_site cupy-cuda12x
    PYTHONPATH=/tmp/cupy_site python -P tests/cuda/standin/make_names.py

(``-P``: this folder's ``_random.py`` would otherwise shadow CPython's ``_random`` module.)

``import cupy`` works on a machine without a GPU (only allocating fails), so the set of names CuPy
offers, the keywords its functions take and the methods of ``cupy.ndarray`` are read from the
module itself. The stand-in (``tests/cuda/standin``) offers exactly these.
"""

import inspect
import json
import os
import re

import cupy
import cupyx
import cupyx.scipy.special

# ufunc methods CuPy implements (``cupy/_core/_kernel.pyx``: reduce/accumulate only for add and
# multiply, reduceat only for add, ``at`` where the ufunc has a scatter op); every other
# combination exists as an attribute but raises NotImplementedError on the GPU
_UFUNC_METHODS = {"reduce": ("add", "multiply"), "accumulate": ("add", "multiply"),
                  "reduceat": ("add",),
                  "at": ("add", "subtract", "maximum", "minimum", "bitwise_and", "bitwise_or",
                         "bitwise_xor")}
_DOC_SIG = re.compile(r"^[\w.]+\((.*?)\)")


def _params_from_doc(doc):
    """Parameter names from a Cython docstring's first line, e.g. ``f(self, a, int axis=-1)``."""
    m = _DOC_SIG.match((doc or "").strip())
    if not m:
        return None
    names, star = [], False
    for part in m.group(1).split(","):
        part = part.strip()
        if not part:
            continue
        if part == "*":
            star = True
            continue
        name = part.split("=")[0].strip().split()[-1].lstrip("*")
        if part.startswith("**"):
            names.append("**")
        elif part.startswith("*"):
            names.append("*")
        elif name != "self":
            names.append(name)
    return {"params": names, "kwonly_after_star": star}


def _describe(obj):
    if isinstance(obj, cupy.ufunc):
        return {"kind": "ufunc", "nin": obj.nin, "nout": obj.nout}
    if inspect.ismodule(obj):
        return {"kind": "module"}
    if isinstance(obj, type):
        return {"kind": "type"}
    if callable(obj):
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError):
            d = _params_from_doc(getattr(obj, "__doc__", ""))
            return {"kind": "function", "params": None if d is None else d["params"]}
        params = []
        for p in sig.parameters.values():
            params.append("*" if p.kind is p.VAR_POSITIONAL else
                          "**" if p.kind is p.VAR_KEYWORD else p.name)
        return {"kind": "function", "params": params}
    if isinstance(obj, (int, float, bool, str)) or obj is None:
        return {"kind": "constant"}
    return {"kind": "other", "type": type(obj).__name__}


def _namespace(mod):
    return {n: _describe(getattr(mod, n)) for n in sorted(dir(mod))
            if not n.startswith("_") and n != "annotations"}


def _class_methods(cls):
    out = {}
    for n in sorted(dir(cls)):
        if n.startswith("_") and n not in ("__cuda_array_interface__", "__dlpack__"):
            continue
        obj = getattr(cls, n)
        d = _params_from_doc(getattr(obj, "__doc__", "")) if callable(obj) else None
        out[n] = {"kind": "method" if callable(obj) else "attribute",
                  "params": None if d is None else d["params"]}
    return out


# ufuncs CuPy's public functions call without exporting them (``cupy.where`` calls
# ``_where_ufunc``, ``clip``/``ndarray.clip`` ``_clip``, ``around`` ``_round_ufunc``...)
_PRIVATE_UFUNCS = {"where": "cupy._sorting.search._where_ufunc",
                   "clip": "cupy._core._routines_math._clip",
                   "around": "cupy._core.core._round_ufunc",
                   "nan_to_num": "cupy._math.misc._nan_to_num",
                   "isclose": "cupy._logic.comparison._is_close"}


def _loop(op):
    """One type loop as ``"ff->f"`` (``dtype.char``; bfloat16's is ``E``), ``!`` in front when
    CuPy refuses that combination, with the message it raises."""
    sig = "".join(t.char for t in op.in_types) + "->" + "".join(t.char for t in op.out_types)
    if op.error_func is None:
        return sig
    try:
        op.error_func()
    except TypeError as e:
        return f"!{sig}!{e}"
    return sig


def _ufunc_types():
    """Every ufunc's type loops in CuPy's order (it takes the first the inputs cast to), as
    indexes into a table of distinct loop lists (most ufuncs share a few), the ufuncs that
    first drop a Python int's weakness against integer arrays (``promote_types``), and the
    ufuncs whose ``dtype=`` search runs over other loops (``out_ops``)."""
    import importlib

    found = {}
    for mod, prefix in ((cupy, ""), (cupyx, "cupyx."),
                        (cupyx.scipy.special, "cupyx.scipy.special.")):
        for n in dir(mod):
            u = getattr(mod, n)
            if isinstance(u, cupy.ufunc):
                found[prefix + n] = u
    for key, path in _PRIVATE_UFUNCS.items():
        mod, _, attr = path.rpartition(".")
        found[key] = getattr(importlib.import_module(mod), attr)
    tables, index, ufuncs, weak_int, out_ops = [], {}, {}, [], {}
    for key in sorted(found):
        u = found[key]
        loops = tuple(_loop(op) for op in u._ops.ops)
        if loops not in index:
            index[loops] = len(tables)
            tables.append(list(loops))
        ufuncs[key] = index[loops]
        if u._ops.promote_types is not None:
            weak_int.append(key)
        if u._out_ops is not None:
            out_ops[key] = [_loop(op) for op in u._out_ops.ops]
    return {"tables": tables, "ufuncs": ufuncs, "promote_weak_int": weak_int,
            "out_ops": out_ops}


def main():
    data = {
        "ufunc_types": _ufunc_types(),
        "cupy_version": cupy.__version__,
        "cupy": _namespace(cupy),
        "ufunc_methods": _UFUNC_METHODS,
        "ndarray": _class_methods(cupy.ndarray),
        "ndarray_dunders": sorted(n for n in dir(cupy.ndarray) if n.startswith("__")),
        "random": _namespace(cupy.random),
        "random.Generator": _class_methods(cupy.random.Generator),
        "linalg": _namespace(cupy.linalg),
        "fft": _namespace(cupy.fft),
        "lib.stride_tricks": _namespace(cupy.lib.stride_tricks),
        "cuda": sorted(n for n in dir(cupy.cuda) if not n.startswith("_")),
        "cupyx": _namespace(cupyx),
        "cupyx.scipy.special": _namespace(cupyx.scipy.special),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cupy_names.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
        f.write("\n")
    print(f"wrote {path}: {len(data['cupy'])} cupy names, {len(data['ndarray'])} ndarray members")


if __name__ == "__main__":
    main()
