"""Session 46 (robust): checkpoint loading, saving and data loading against real torch 2.13.

Each test runs the same user program with torch and with numtorch and compares what comes
out: values, exception class and message.
"""

import io
import warnings

import pytest
import torch

import numtorch


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn()
        except Exception as e:  # noqa: BLE001 - the class and text are what is compared
            return type(e), str(e)


# -- map_location callables that return something other than an untyped storage ---------
_RETURNS = {
    "float_of_bytes": lambda lib: lambda s, loc: s.float(),
    "byte_storage": lambda lib: lambda s, loc: s.byte(),
    "typed_storage": lambda lib: lambda s, loc: lib.arange(6.0).storage(),
    "string": lambda lib: lambda s, loc: "cpu",
    "device": lambda lib: lambda s, loc: lib.device("cpu"),
    "tensor": lambda lib: lambda s, loc: lib.zeros(6),
    "number": lambda lib: lambda s, loc: 3,
    "none": lambda lib: lambda s, loc: None,
    "same": lambda lib: lambda s, loc: s,
    "untyped_of_other_values": lambda lib: lambda s, loc: lib.arange(6.0).untyped_storage(),
}


def _map_load(lib, kind):
    buf = io.BytesIO()
    lib.save({"a": lib.arange(6.0).view(2, 3)[:, 1:] + 1}, buf)
    buf.seek(0)
    return lib.load(buf, map_location=_RETURNS[kind](lib))["a"].tolist()


@pytest.mark.parametrize("kind", sorted(_RETURNS))
def test_map_location_callable_results_as_torch_takes_them(kind):
    """``s.float()`` converts each byte to a float: torch refuses the typed storage it gets
    back (numtorch put the converted values' bytes under the tensors, silently wrong)."""
    want = _outcome(lambda: _map_load(torch, kind))
    assert _outcome(lambda: _map_load(numtorch, kind)) == want


# -- legacy checkpoints saved one after another into one stream ---------------------------
def _sequential_legacy(lib, path=None):
    kw = {"_use_new_zipfile_serialization": False}
    buf = io.BytesIO()
    lib.save(lib.arange(2), buf, **kw)
    lib.save({"x": lib.arange(3.0)}, buf, **kw)
    lib.save([5, lib.ones(1)], buf, **kw)
    buf.write(b"tail")
    buf.seek(0)
    out = [repr(lib.load(buf)) for _ in range(3)]
    return out, buf.read()


def test_legacy_checkpoints_load_one_after_another():
    """torch leaves the stream after a legacy checkpoint's storages, so the next checkpoint
    saved to the same file loads next (numtorch stopped after the pickle: the next load
    raised 'Invalid magic number')."""
    assert _outcome(lambda: _sequential_legacy(numtorch)) == \
        _outcome(lambda: _sequential_legacy(torch))
