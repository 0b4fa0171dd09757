"""Session 47 (data & serialization), each compared with real torch at test time:
truncated text opcodes in a checkpoint's pickle (Python's "pickle data was truncated"),
a GLOBAL cut short under weights_only (torch names the shortened global), and
``torch.serialization.register_package`` / ``default_restore_location`` / ``location_tag`` /
``SourceChangeWarning``."""

import io
import warnings

import pytest
import torch

import numtorch

TRUNCATED = [b"garbage", b"I12", b"S", b"g", b"Vab", b"\x80\x02I12", b"\x80\x02g",
             b"\x80\x02F1.5", b"\x80\x02L12", b"\x80\x02c", b"\x80\x02cfoo",
             b"\x80\x02cfoo\nbar", b"cfoo\n", b"\x80\x02cos\nsystem", b"\x80\x02\x8c\x03ab"]


def _outcome(lib, data, weights_only):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            lib.load(io.BytesIO(data), weights_only=weights_only)
        except Exception as e:  # noqa: BLE001  (compared with torch's)
            return type(e).__name__, str(e)
    return "no error", ""


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("data", TRUNCATED, ids=[repr(d) for d in TRUNCATED])
def test_truncated_pickle_errors_match_torch(data, weights_only):
    assert _outcome(numtorch, data, weights_only) == _outcome(torch, data, weights_only)


@pytest.fixture
def registries():
    """Both libraries' package registries, restored after the test."""
    theirs = list(torch.serialization._package_registry)
    from numtorch._serialization import _packages

    ours = list(_packages._package_registry)
    yield
    torch.serialization._package_registry[:] = theirs
    _packages._package_registry[:] = ours


def _loaded(lib, **kw):
    buf = io.BytesIO()
    lib.save({"a": lib.arange(3.0), "b": lib.arange(2)}, buf)
    buf.seek(0)
    try:
        got = lib.load(buf, **kw)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return {k: (v.device.type, None if v.device.type == "meta" else v.tolist())
            for k, v in got.items()}


def _restore(lib, where):
    return lambda s, loc: lib.serialization.default_restore_location(s, where)


@pytest.mark.parametrize("where", ["cpu", "meta", "cuda", "cuda:1", "foo"])
def test_default_restore_location_as_map_location(where):
    assert _loaded(numtorch, map_location=_restore(numtorch, where)) == \
        _loaded(torch, map_location=_restore(torch, where))


def test_location_tag_and_direct_restore():
    for lib in (numtorch, torch):
        s = lib.ones(2).untyped_storage()
        assert lib.serialization.location_tag(s) == "cpu"
        assert lib.serialization.default_restore_location(s, "cpu") is s
        with pytest.raises(RuntimeError) as info:
            lib.serialization.default_restore_location(s, "foo")
        assert str(info.value) == ("don't know how to restore data location of "
                                   "torch.storage.UntypedStorage (tagged with foo)")
    assert issubclass(numtorch.serialization.SourceChangeWarning, Warning)


def _register_all(lib, log):
    def deser(obj, location):
        log.append(location)
        if location.startswith("foo"):
            return obj.cpu()
        return None

    lib.serialization.register_package(5, lambda obj: None, deser)


@pytest.mark.parametrize("kw", [{}, {"map_location": "foo"}, {"map_location": {"cpu": "foo:3"}},
                                {"map_location": "bar"}],
                         ids=["none", "foo", "dict", "unclaimed"])
def test_registered_deserializer_is_consulted_like_torch(registries, kw):
    ours, theirs = [], []
    _register_all(numtorch, ours)
    _register_all(torch, theirs)
    assert _loaded(numtorch, **kw) == _loaded(torch, **kw)
    assert ours == theirs


def test_registered_deserializer_replacing_and_bad_result(registries):
    for lib in (numtorch, torch):
        lib.serialization.register_package(
            1, lambda obj: None,
            lambda obj, loc, lib=lib: (lib.UntypedStorage(obj.nbytes()).fill_(0)
                                       if loc == "cpu" else None))
    assert _loaded(numtorch) == _loaded(torch) == {"a": ("cpu", [0.0] * 3), "b": ("cpu", [0, 0])}
    for lib in (numtorch, torch):
        lib.serialization.register_package(0, lambda obj: None, lambda obj, loc: 5)
    assert _loaded(numtorch) == _loaded(torch)


def test_registered_tagger_order(registries):
    for lib in (numtorch, torch):
        lib.serialization.register_package(30, lambda obj: "late", lambda o, loc: None)
    assert numtorch.serialization.location_tag(numtorch.ones(1).untyped_storage()) == \
        torch.serialization.location_tag(torch.ones(1).untyped_storage()) == "cpu"
    for lib in (numtorch, torch):
        lib.serialization.register_package(2, lambda obj: "bar", lambda o, loc: None)
    assert numtorch.serialization.location_tag(numtorch.ones(1).untyped_storage()) == \
        torch.serialization.location_tag(torch.ones(1).untyped_storage()) == "bar"


def test_legacy_format_constants():
    assert numtorch.serialization.MAGIC_NUMBER == torch.serialization.MAGIC_NUMBER
    assert numtorch.serialization.PROTOCOL_VERSION == torch.serialization.PROTOCOL_VERSION


class _Mod:
    __name__ = "fake"

    def __init__(self, version):
        self.__version__ = version


@pytest.mark.parametrize("version,req", [("1.2.3", (1, 2)), ("1.2.3", (1, 3)), ("2.0", (1, 9, 9)),
                                         ("1.x", (1, 2)), ("1", (1, 2)), ("1.2.3", ("1", "2"))])
@pytest.mark.parametrize("strict", [True, False])
def test_check_module_version_greater_or_equal(version, req, strict):
    def outcome(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                got = lib.serialization.check_module_version_greater_or_equal(
                    _Mod(version), req, error_if_malformed=strict)
            except Exception as e:  # noqa: BLE001
                got = (type(e).__name__, str(e))
        return got, [str(w.message) for w in caught]

    assert outcome(numtorch) == outcome(torch)


def _conj_cases(lib):
    a = lib.tensor([[1 + 2j, 3 - 1j], [0.5j, 2]], dtype=lib.complex64)
    c = a.conj()
    return {"c": c, "ct": c.t(), "row": c[1], "z": lib.tensor(1 + 1j).conj(),
            "c128": lib.tensor([1j], dtype=lib.complex128).conj(), "plain": a,
            "neg_imag": lib.tensor(1 + 2j).conj().imag}


def _described(got):
    return {k: (v.tolist(), v.is_conj(), v.is_neg(), str(v.dtype), v.stride())
            for k, v in got.items()}


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("writer", ["numtorch", "torch"])
def test_conj_views_round_trip_like_torch(writer, weights_only, legacy):
    """conj() results keep is_conj through a checkpoint (numtorch wrote resolved values
    without torch's flag), and a 0-d conj/neg view read from torch's file crashed numtorch
    (NumPy turned it into a scalar)."""
    lib = numtorch if writer == "numtorch" else torch
    buf = io.BytesIO()
    lib.save(_conj_cases(lib), buf, _use_new_zipfile_serialization=not legacy)
    data = buf.getvalue()
    theirs = torch.load(io.BytesIO(data), weights_only=weights_only)
    ours = numtorch.load(io.BytesIO(data), weights_only=weights_only)
    expected = _described(_conj_cases(torch))
    expected["neg_imag"] = expected["neg_imag"][:2] + (False,) + expected["neg_imag"][3:]
    got_t = _described(theirs)
    got_t["neg_imag"] = got_t["neg_imag"][:2] + (False,) + got_t["neg_imag"][3:]
    assert got_t == expected
    assert _described(ours) == expected
