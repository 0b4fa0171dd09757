"""Loads each fuzz case in a forked, resource-limited child and prints one JSON line per case.

Run as ``python -m tests.security._fuzz_runner LIB CASES.json`` with LIB ``numtorch`` or
``torch``. The library is imported once; every case then runs in a fork under an address-space
and CPU-time limit and a wall-clock timeout, so a crash, a hang or a huge allocation is seen
as such (``crash``, ``hang``, ``oom``) instead of taking the runner down.
"""

import hashlib
import json
import os
import sys
import warnings

from tests.security._sandbox import run_limited

_MEM_EXTRA = 1 << 30  # bytes of address space a case may add to the runner's
_CPU_S = 8
_WALL_S = 15.0
_BIG = 1 << 22  # tensors with more elements are described by their geometry alone


def _tensor(lib, x, storages):
    t = x.detach()
    ptr = t.untyped_storage().data_ptr()
    out = {"cls": type(x).__name__, "dtype": str(t.dtype), "shape": list(t.shape),
           "stride": list(t.stride()), "offset": int(t.storage_offset()),
           "grad": bool(x.requires_grad), "nbytes": int(t.untyped_storage().nbytes()),
           "storage": storages.setdefault(ptr, len(storages))}
    if t.numel() <= _BIG:
        flat = t.contiguous().reshape(-1)
        if str(t.dtype) == "torch.bfloat16":
            flat = flat.view(lib.int16)
        elif t.dtype.is_complex:
            flat = lib.view_as_real(flat).reshape(-1)
        out["data"] = hashlib.sha1(flat.numpy().tobytes()).hexdigest()
    return out


def _digest(lib, obj, storages, seen, depth=0):
    """A JSON description of a loaded object that two libraries' results can be compared by."""
    if depth > 100:
        return "<deep>"
    if obj is None or isinstance(obj, (bool, int, str)):
        return [type(obj).__name__, obj if not isinstance(obj, int) or abs(obj) < 2**53
                else str(obj)]
    if isinstance(obj, float):
        return ["float", repr(obj)]
    if isinstance(obj, (bytes, bytearray)):
        return [type(obj).__name__, obj.hex()[:200]]
    if id(obj) in seen:
        return ["<ref>", seen[id(obj)]]
    seen[id(obj)] = len(seen)
    if isinstance(obj, lib.Tensor):
        return ["tensor", _tensor(lib, obj, storages)]
    name = type(obj).__name__
    if isinstance(obj, dict):
        return [name, [[_digest(lib, k, storages, seen, depth + 1),
                        _digest(lib, v, storages, seen, depth + 1)] for k, v in obj.items()]]
    if isinstance(obj, (list, tuple)):
        return [name, [_digest(lib, v, storages, seen, depth + 1) for v in obj]]
    if isinstance(obj, (set, frozenset)):
        return [name, sorted(json.dumps(_digest(lib, v, storages, seen, depth + 1))
                             for v in obj)]
    if isinstance(obj, (lib.dtype, lib.device)):
        return [name, str(obj)]
    if name == "StorageType" or getattr(obj, "__name__", "").endswith("Storage"):
        return ["storage class", None]  # torch's StorageType objects, numtorch's classes
    state = getattr(obj, "__dict__", None)
    return [name, _digest(lib, dict(state), storages, seen, depth + 1) if state else None]


def _load_case(lib, case):
    """Load one case (in the sandbox's fork) and describe the outcome as a JSON-able dict."""
    os.chdir(case["cwd"])
    sys.setrecursionlimit(10000)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kw = {"weights_only": case["weights_only"]}
            if case.get("mmap"):
                kw["mmap"] = True
            obj = lib.load(case["path"], **kw)
            res = {"kind": "ok", "digest": _digest(lib, obj, {}, {})}
    except MemoryError:
        res = {"kind": "oom"}
    except BaseException as e:  # noqa: BLE001 - the class and text are what is compared
        res = {"kind": "error", "cls": type(e).__name__, "mro": [c.__name__ for c in
                                                                  type(e).__mro__],
               "msg": str(e)[:600]}
    try:
        json.dumps(res)
    except (TypeError, ValueError, RecursionError) as e:
        res = {"kind": "error", "cls": "DigestError", "mro": [], "msg": str(e)}
    return res


def run_case(lib, case):
    """The outcome of loading one case, run in a limited fork (tests/security/_sandbox.py)."""
    out = run_limited(_load_case, lib, case, extra_memory=_MEM_EXTRA, cpu_s=_CPU_S,
                      wall_s=_WALL_S)
    if out[0] == "ok":
        return out[1]
    if out[0] == "error":  # (only if describing the outcome itself failed to pickle)
        return {"kind": "error", "cls": out[1], "mro": [], "msg": out[2]}
    return {"kind": out[0], "detail": out[1]}  # crash, hang, oom


def main():
    name, cases_file = sys.argv[1], sys.argv[2]
    if name == "torch":
        import torch as lib
        lib.set_num_threads(1)
    else:
        import numtorch as lib
    with open(cases_file) as f:
        cases = json.load(f)
    for case in cases:
        res = run_case(lib, case)
        res["id"] = case["id"]
        print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
