"""Seeded mutants of a .safetensors file: numtorch's reader against the safetensors package.

The header's JSON is altered entry by entry (offsets, shapes and dtypes set to boundary
values, entries dropped or duplicated) and the raw bytes flipped, inserted or cut. Each load
runs in a forked child under memory and CPU limits. numtorch must accept exactly what
safetensors accepts, with the same tensors, and refuse the rest with a RuntimeError naming
load_safetensors; it never crashes, hangs or allocates what a header merely claims.
"""

import json
import random
import struct

import numpy as np
import torch
from safetensors.torch import load_file, save_file

import numtorch
from tests.security._fuzz import mutate_bytes
from tests.security._sandbox import run_limited

_VALUES = [0, 1, -1, 3, 7, 2 ** 31, 2 ** 40, 2 ** 63 - 1, 2 ** 64, "8", 1.5, None]


def _base(path):
    g = torch.Generator().manual_seed(0)
    save_file({"w": torch.randn(3, 4, generator=g), "h": torch.randn(5, generator=g).half(),
               "bf": torch.randn(2, 2, generator=g).bfloat16(), "i": torch.arange(6),
               "flag": torch.tensor([True, False]), "u8": torch.arange(3, dtype=torch.uint8),
               "scalar": torch.tensor(2.5), "empty": torch.zeros(0, 3)}, path,
              metadata={"format": "pt"})
    with open(path, "rb") as f:
        return f.read()


def _mutate_header(data, rng):
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    keys = [k for k in header if k != "__metadata__"]
    key = rng.choice(keys)
    entry = header[key]
    how = rng.choice(["offset", "offset", "shape", "dtype", "drop", "swap", "extra"])
    if how == "offset":
        entry["data_offsets"][rng.randrange(2)] = rng.choice(_VALUES)
    elif how == "shape":
        shape = entry["shape"] or [1]
        shape[rng.randrange(len(shape))] = rng.choice(_VALUES)
        entry["shape"] = shape
    elif how == "dtype":
        entry["dtype"] = rng.choice(["F32", "F16", "BF16", "I64", "BOOL", "U8", "F64", "I8",
                                     "F8_E4M3", "X9", 3])
    elif how == "drop":
        del entry[rng.choice(sorted(entry))]
    elif how == "swap":
        other = header[rng.choice(keys)]
        entry["data_offsets"], other["data_offsets"] = other["data_offsets"], \
            entry["data_offsets"]
    else:
        header["extra"] = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data[8 + n:]


def _load(lib, path):
    out = (load_file if lib == "safetensors" else numtorch.serialization.load_safetensors)(path)
    res = {}
    for k, v in out.items():
        if str(v.dtype).endswith("bfloat16"):
            v = v.view(torch.int16 if lib == "safetensors" else numtorch.int16)
        res[k] = (str(v.dtype).replace("torch.", ""), tuple(v.shape), v.numpy().tobytes())
    return res


def test_seeded_safetensors_mutants(tmp_path):
    base = _base(str(tmp_path / "base.safetensors"))
    rng = random.Random(39)
    tally = {"ok": 0, "error": 0}
    for i in range(80):
        data = _mutate_header(base, rng) if rng.random() < 0.6 else mutate_bytes(base, rng)
        path = str(tmp_path / f"m{i}.safetensors")
        with open(path, "wb") as f:
            f.write(data)
        want = run_limited(_load, "safetensors", path)
        got = run_limited(_load, "numtorch", path)
        assert got[0] in ("ok", "error"), (i, got)
        if want[0] == "ok":
            assert got == want, (i, got[:3], sorted(want[1]))
        else:
            assert got[0] == "error" and got[1] == "RuntimeError" and \
                "load_safetensors" in got[2], (i, want, got)
        tally[got[0]] += 1
    assert tally["ok"] >= 10 and tally["error"] >= 10, tally
    np.testing.assert_array_equal(  # the unmutated file loads as safetensors loads it
        numtorch.serialization.load_safetensors(str(tmp_path / "base.safetensors"))["w"].numpy(),
        load_file(str(tmp_path / "base.safetensors"))["w"].numpy())
