"""A seeded mutation fuzzer for checkpoint loading: base checkpoints and their mutants.

Base checkpoints are saved by torch and by numtorch, in the zip format and in the legacy
stream format. Each mutant alters one base: raw bytes anywhere (zip headers, central
directory, legacy pickles), or the data.pkl pickle opcode by opcode (an integer argument set
to a boundary value, a string argument replaced by a storage, dtype, device, record or module
name, an opcode dropped or repeated) and the archive rebuilt with valid CRCs, or a storage
record resized. ``run_cases`` loads every mutant with both libraries (each case in a forked,
resource-limited child, see ``_fuzz_runner``) and ``compare`` sorts the outcomes.
"""

import collections
import io
import json
import os
import pickle
import pickletools
import random
import struct
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_INTS = [0, 1, -1, 2, 3, 7, 255, 2**31 - 1, 2**31, -2**31, 2**32, 2**40, 2**62, 2**63 - 1,
         -2**63, 2**64, 10**30]
_STRINGS = ["FloatStorage", "DoubleStorage", "HalfStorage", "LongStorage", "ByteStorage",
            "BoolStorage", "BFloat16Storage", "ComplexFloatStorage", "QInt8Storage",
            "UntypedStorage", "NoSuchStorage", "storage", "module", "cpu", "cuda", "cuda:7",
            "meta", "mps", "xla", "", "0", "1", "7", "99", "-1", "../data/0", "data/0",
            "version", "data.pkl", "byteorder", "os", "system", "posix", "builtins", "eval",
            "exec", "getattr", "__import__", "torch", "torch._utils", "_rebuild_tensor_v2",
            "_rebuild_tensor", "_rebuild_parameter", "_rebuild_sparse_tensor",
            "_rebuild_wrapper_subclass", "_rebuild_qtensor", "numtorch", "numtorch._serialization",
            "numtorch._serialization._read", "collections", "OrderedDict", "Tensor",
            "Parameter", "nn.Parameter", "torch.nn.parameter", "float32", "bfloat16", "int64",
            "__class__", "__reduce__", "__setstate__", "__dict__", "x" * 300]
_INT_OPS = {"BININT", "BININT1", "BININT2", "LONG1", "LONG4", "INT", "LONG"}
_STR_OPS = {"BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8", "UNICODE", "GLOBAL",
            "SHORT_BINSTRING", "BINSTRING", "STRING"}
_OPCODES = [op.code.encode("latin-1") for op in pickletools.opcodes]


def _values(lib):
    """The objects every base checkpoint holds: shared views, several dtypes, containers."""
    g = lib.Generator().manual_seed(0)
    w = lib.randn(3, 4, generator=g)
    return {"w": w, "view": w[1:, ::2], "t": w.t(), "b": lib.arange(5),
            "h": lib.linspace(-2, 2, 6).half(), "bf": lib.linspace(-1, 1, 4).to(lib.bfloat16),
            "c": lib.tensor([1 + 2j, -3j]), "flag": lib.tensor([True, False, True]),
            "u8": lib.arange(4, dtype=lib.uint8), "p": lib.nn.Parameter(lib.ones(2)),
            "s": lib.tensor(2.5), "e": lib.zeros(0, 3),
            "od": collections.OrderedDict(a=1, b=[2.5, "s", None, True, (3, 4)]),
            "size": lib.Size([2, 3]), "dt": lib.float16}


def base_checkpoints():
    """``{name: bytes}``: the same values saved by torch and numtorch, zip and legacy."""
    import torch

    import numtorch
    out = {}
    for name, lib in (("torch", torch), ("numtorch", numtorch)):
        for fmt, kw in (("zip", {}), ("legacy", {"_use_new_zipfile_serialization": False})):
            buf = io.BytesIO()
            lib.save(_values(lib), buf, **kw)
            out[f"{name}_{fmt}"] = buf.getvalue()
    return out


# -- pickle mutations ---------------------------------------------------------------------
def _ops(pkl, start=0):
    """``[(opcode name, arg, pos, end)]`` of the pickle starting at ``start``."""
    ops = list(pickletools.genops(io.BytesIO(pkl[start:])))
    res = []
    for i, (op, arg, pos) in enumerate(ops):
        end = ops[i + 1][2] if i + 1 < len(ops) else pos + 1
        res.append((op.name, arg, start + pos, start + end))
    return res


def _enc_int(v):
    return pickle.dumps(v, protocol=2)[2:-1]


def _enc_str(opname, s):
    if opname == "GLOBAL":
        parts = s.split(".", 1) if "." in s else ["builtins", s]
        return b"c" + parts[0].encode() + b"\n" + parts[1].encode() + b"\n"
    if opname in ("SHORT_BINSTRING", "BINSTRING", "STRING"):
        return b"U" + bytes([min(len(s), 255)]) + s.encode()[:255]
    return b"X" + struct.pack("<I", len(s.encode())) + s.encode()


def mutate_pickle(pkl, rng, start=0):
    """One opcode-level or byte-level mutation of the pickle at ``pkl[start:]``."""
    try:
        ops = _ops(pkl, start)
    except Exception:  # noqa: BLE001 - already damaged: fall back to byte mutations
        ops = []
    kind = rng.choice(["int", "int", "str", "str", "drop", "dup", "opcode", "bytes"])
    ints = [o for o in ops if o[0] in _INT_OPS]
    strs = [o for o in ops if o[0] in _STR_OPS]
    body = [o for o in ops if o[0] not in ("PROTO", "STOP")]
    if kind == "int" and ints:
        _, _, pos, end = rng.choice(ints)
        return pkl[:pos] + _enc_int(rng.choice(_INTS)) + pkl[end:], "int"
    if kind == "str" and strs:
        op, _, pos, end = rng.choice(strs)
        s = rng.choice(_STRINGS)
        if op == "GLOBAL":
            s = rng.choice(["os.system", "builtins.eval", "builtins.getattr",
                            "torch._utils._rebuild_parameter", "torch.HalfStorage",
                            "torch.FloatStorage", "collections.OrderedDict",
                            "numtorch._serialization._read._load_file", "torch.Tensor",
                            "torch._utils._rebuild_tensor", "torch.serialization.load",
                            "torch.nn.parameter.Parameter", "torch.Size", "torch.device"])
        return pkl[:pos] + _enc_str(op, s) + pkl[end:], "str"
    if kind == "drop" and body:
        _, _, pos, end = rng.choice(body)
        return pkl[:pos] + pkl[end:], "drop"
    if kind == "dup" and body:
        _, _, pos, end = rng.choice(body)
        return pkl[:end] + pkl[pos:end] + pkl[end:], "dup"
    if kind == "opcode" and body:
        _, _, pos, _ = rng.choice(body)
        return pkl[:pos] + rng.choice(_OPCODES) + pkl[pos + 1:], "opcode"
    return mutate_bytes(pkl, rng, lo=start), "bytes"


def mutate_bytes(data, rng, lo=0, hi=None):
    """Flip, set, insert or delete bytes, or truncate, within ``data[lo:hi]``."""
    hi = len(data) if hi is None else hi
    if hi <= lo:
        return data
    pos = rng.randrange(lo, hi)
    kind = rng.choice(["flip", "flip", "set", "insert", "delete", "truncate"])
    if kind == "flip":
        return data[:pos] + bytes([data[pos] ^ (1 << rng.randrange(8))]) + data[pos + 1:]
    if kind == "set":
        return data[:pos] + bytes([rng.choice([0, 1, 0x7F, 0x80, 0xFF])]) + data[pos + 1:]
    if kind == "insert":
        return data[:pos] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))) \
            + data[pos:]
    if kind == "delete":
        return data[:pos] + data[pos + rng.randint(1, 8):]
    return data[:pos]


# -- zip mutations ------------------------------------------------------------------------
def _records(data):
    zf = zipfile.ZipFile(io.BytesIO(data))
    return [(i.filename, zf.read(i)) for i in zf.infolist()]


def _rezip(records, compression=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as zf:
        for name, payload in records:
            info = zipfile.ZipInfo(name)
            info.compress_type = compression
            zf.writestr(info, payload)
    return buf.getvalue()


def _header_spans(data):
    """Byte ranges of the zip's local headers, central directory and end records."""
    spans = []
    pos = 0
    while True:
        pos = data.find(b"PK", pos)
        if pos < 0:
            break
        if data[pos:pos + 4] in (b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"PK\x06\x06",
                                 b"PK\x06\x07"):
            spans.append((pos, min(len(data), pos + 46)))
        pos += 2
    return spans or [(0, len(data))]


def mutate_zip(data, rng):
    """A mutant of a zip checkpoint and the name of the mutation."""
    kind = rng.choice(["pickle", "pickle", "pickle", "pickle", "header", "header", "raw",
                       "record", "names", "deflate"])
    if kind == "header":
        lo, hi = rng.choice(_header_spans(data))
        return mutate_bytes(data, rng, lo, hi), "zip-header"
    if kind == "raw":
        return mutate_bytes(data, rng), "zip-raw"
    recs = _records(data)
    if kind == "pickle":
        i = next(i for i, (n, _) in enumerate(recs) if n.endswith("data.pkl"))
        new, how = mutate_pickle(recs[i][1], rng)
        recs[i] = (recs[i][0], new)
        return _rezip(recs), "pickle-" + how
    if kind == "record":
        idx = [i for i, (n, _) in enumerate(recs) if "/data/" in n or n.endswith(
            ("version", "byteorder"))]
        i = rng.choice(idx)
        name, payload = recs[i]
        how = rng.choice(["short", "long", "empty", "bytes"])
        payload = {"short": payload[:-1], "long": payload + b"\0" * rng.randint(1, 9),
                   "empty": b"", "bytes": mutate_bytes(payload, rng) if payload else b"x"}[how]
        recs[i] = (name, payload)
        return _rezip(recs), "record-" + how
    if kind == "names":
        i = rng.randrange(len(recs))
        name, payload = recs[i]
        how = rng.choice(["drop", "dup", "rename", "dotdot", "swap"])
        if how == "drop":
            del recs[i]
        elif how == "dup":
            recs.insert(rng.randrange(len(recs) + 1), (name, payload))
        elif how == "rename":
            recs[i] = (name.rsplit("/", 1)[0] + "/" + rng.choice(["9", "x", "data.pkl"]),
                       payload)
        elif how == "dotdot":
            recs[i] = (name.replace("/", "/../", 1), payload)
        else:
            j = rng.randrange(len(recs))
            recs[i], recs[j] = (recs[i][0], recs[j][1]), (recs[j][0], payload)
        return _rezip(recs), "names-" + how
    return _rezip(recs, zipfile.ZIP_DEFLATED), "deflate"


def _legacy_pickle_starts(data):
    """Offsets of the legacy stream's leading pickles (magic, protocol, sys info, data, keys)."""
    starts, pos = [], 0
    for _ in range(5):
        starts.append(pos)
        pos = _ops(data, pos)[-1][3]
    return starts, pos


def mutate_legacy(data, rng):
    starts, end = _legacy_pickle_starts(data)
    kind = rng.choice(["pickle", "pickle", "pickle", "raw", "storage"])
    if kind == "pickle":
        # the data pickle (index 3) most often: it holds the storages' references
        start = rng.choice(starts[1:] + [starts[3]] * 4)
        new, how = mutate_pickle(data[:_next(starts, end, start)], rng, start)
        return new + data[_next(starts, end, start):], "legacy-pickle-" + how
    if kind == "storage":
        return mutate_bytes(data, rng, end), "legacy-storage"
    return mutate_bytes(data, rng), "legacy-raw"


def _next(starts, end, start):
    later = [s for s in starts if s > start]
    return later[0] if later else end


def make_cases(seed, n, workdir):
    """``n`` seeded mutants written under ``workdir``; a list of case dicts."""
    rng = random.Random(seed)
    bases = base_checkpoints()
    names = sorted(bases)
    cases = []
    for i in range(n):
        base = rng.choice(names)
        if base.endswith("zip"):
            data, how = mutate_zip(bases[base], rng)
        else:
            data, how = mutate_legacy(bases[base], rng)
        if rng.random() < 0.15:  # a second mutation on top
            data = mutate_bytes(data, rng) if not base.endswith("zip") or rng.random() < 0.5 \
                else data
        path = os.path.join(workdir, f"case{i:05d}.pt")
        with open(path, "wb") as f:
            f.write(data)
        weights_only = rng.random() < 0.7
        # torch maps a deflated record's compressed bytes as the storage; numtorch reads it
        mmap = base.endswith("zip") and how != "deflate" and rng.random() < 0.2
        cases.append({"id": i, "base": base, "how": how, "path": path, "cwd": workdir,
                      "weights_only": weights_only, "mmap": mmap})
    for base in names:  # the unmutated files: what a lenient load must still give
        path = os.path.join(workdir, f"{base}.pt")
        with open(path, "wb") as f:
            f.write(bases[base])
        for weights_only in (True, False):
            cases.append({"id": f"{base}-{weights_only}", "base": base, "how": "none",
                          "path": path, "cwd": workdir, "weights_only": weights_only,
                          "mmap": False})
    return cases


def run_cases(lib, cases, workdir, timeout):
    """``{id: outcome}`` of loading every case with ``lib`` ("torch" or "numtorch")."""
    cases_file = os.path.join(workdir, f"cases_{lib}.json")
    with open(cases_file, "w") as f:
        json.dump(cases, f)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=ROOT)
    env.pop("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", None)
    env.pop("TORCH_FORCE_WEIGHTS_ONLY_LOAD", None)
    proc = subprocess.run([sys.executable, "-m", "tests.security._fuzz_runner", lib, cases_file],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)
    if proc.returncode:
        raise RuntimeError(f"the {lib} fuzz runner failed:\n{proc.stderr[-3000:]}")
    out = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            res = json.loads(line)
            out[res["id"]] = res
    return out


_LOAD_ERRORS = {"RuntimeError", "UnpicklingError"}
_TRUNCATED = {"EOFError", "IndexError", "KeyError"}  # torch's weights-only unpickler's


def compare(case, want, got, unmutated):
    """``None`` when numtorch's outcome is acceptable next to torch's, else a verdict.

    ``unmutated`` is torch's outcome for the case's base file before mutation.
    """
    kind = got["kind"]
    if kind in ("crash", "hang", "oom"):
        return kind
    if kind == "ok":
        if want["kind"] == "ok" and want["digest"] == got["digest"]:
            return None
        refused = want["kind"] == "error" and "Weights only" in want["msg"]
        if not refused and unmutated["kind"] == "ok" and unmutated["digest"] == got["digest"]:
            return None  # damage numtorch's reader does not need (an unread record's header)
        return "different result" if want["kind"] == "ok" else "loaded what torch refuses"
    if "Bad CRC-32" in got["msg"]:
        return None  # torch never checks CRCs and reads the damaged bytes
    if case["base"].endswith("legacy") and got["msg"].endswith("missing from the checkpoint"):
        return None  # torch hands out the storage uninitialised
    if got["cls"] == "DigestError":
        return "undescribable result"
    if "two members named" in got["msg"] or "absolute or '..' path" in got["msg"]:
        return None  # a duplicate record: torch picks one, numtorch refuses on purpose
    if want["kind"] == "ok":
        if got["msg"].startswith("storage has wrong byte size"):
            return None  # a legacy storage that torch grows to fit its tensors: refused
        if "which is not a count" in got["msg"] or "multiplication overflow" in got["msg"]:
            return None  # torch's C++ arithmetic wraps around (or it builds a negative size)
        if "' and header b'" in got["msg"]:
            return None  # a record's local header names another file: refused as corrupt
        if case["mmap"] and got["msg"].startswith(("record size (", "load: bad local header")):
            return None  # torch checks record sizes only without mmap; numtorch always
        if got["msg"].startswith("PytorchStreamReader failed reading zip archive") or \
                "codec can't decode" in got["msg"]:
            return None  # a damaged directory or local header that torch reads past
        return "refused what torch loads"
    if want["kind"] != "error":  # torch crashed, hung or ran out of memory: any clean error
        return None
    if case["base"].endswith("legacy") and (got["cls"] in _TRUNCATED or got["msg"].startswith(
            "storage has wrong byte size")):
        # numtorch reads a legacy file's storages before building its objects, torch after:
        # of two faults in one file, each meets a different one first
        return None
    if case["weights_only"] and want["cls"] == "UnpicklingError":
        ok = (got["cls"] == "UnpicklingError" and "Weights only load failed" in got["msg"]
              or got["cls"] in _TRUNCATED)  # found truncated before the refused opcode
        return None if ok else "not torch's weights-only error"
    if got["cls"] == want["cls"] or got["cls"] in _LOAD_ERRORS:
        # torch's class, or numtorch's clear load error where torch fails inside its own
        # code on garbage (AssertionError, UnicodeDecodeError, IndexError, TypeError...)
        return None
    if got["msg"].startswith("Unknown endianness type"):
        return None  # torch's ValueError for a byteorder record it can decode
    if want["cls"] not in _LOAD_ERRORS and got["cls"] in _TRUNCATED:
        return None  # a pickle that ends early, in the class torch's unpickler gives it
    return f"class {got['cls']} where torch raises {want['cls']}"
