"""hub.load_state_dict_from_url on archives that are not plain checkpoints, against torch.hub.

A zip holding one file is a pre-1.6 published checkpoint: torch extracts it into the model
folder (refusing entry names that would land outside it) and loads what it extracted. A
damaged download is a RuntimeError, as torch.load's.
"""

import io
import warnings
import zipfile

import pytest
import torch

import numtorch


def _one_file_zip(name, payload):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(name, payload)
    return buf.getvalue()


def _checkpoint(legacy=True):
    buf = io.BytesIO()
    torch.save({"w": torch.arange(4.0), "b": torch.tensor([1, 2])}, buf,
               _use_new_zipfile_serialization=not legacy)
    return buf.getvalue()


def _both(tmp_path, archive, **kw):
    src = tmp_path / "files" / "model-0123abcd.pth"
    src.parent.mkdir(exist_ok=True)
    src.write_bytes(archive)
    out = []
    for name, lib in (("torch", torch), ("numtorch", numtorch)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                res = lib.hub.load_state_dict_from_url(
                    src.as_uri(), model_dir=str(tmp_path / name), progress=False, **kw)
                res = {k: v.tolist() for k, v in res.items()}
            except Exception as e:  # noqa: BLE001 - the class and text are compared
                res = (type(e).__name__, str(e))
        out.append((res, sorted({w.category.__name__ for w in caught})))
    return out


@pytest.mark.parametrize("inner", ["legacy", "zip"])
def test_legacy_one_file_zip_loads_as_in_torch(inner, tmp_path):
    want, got = _both(tmp_path, _one_file_zip("model.pth", _checkpoint(inner == "legacy")))
    assert isinstance(want[0], dict)
    assert got == want
    assert (tmp_path / "numtorch" / "model.pth").exists()


@pytest.mark.parametrize("name", ["../escape.pth", "sub/../../escape.pth", "/abs.pth",
                                  "C:/win.pth", "sub/inner.pth"])
def test_legacy_zip_entry_names(name, tmp_path):
    want, got = _both(tmp_path, _one_file_zip(name, _checkpoint()))
    assert got == want
    assert not (tmp_path / "escape.pth").exists()


@pytest.mark.parametrize("damage", ["truncated", "not_a_checkpoint", "empty", "directory_only"])
def test_damaged_downloads(damage, tmp_path):
    data = {"truncated": _checkpoint(legacy=False)[:-40],
            "not_a_checkpoint": b"<html>404</html>",
            "empty": b"",
            "directory_only": _one_file_zip("dir/", b"")}[damage]
    want, got = _both(tmp_path, data, weights_only=True)
    assert got[0][0] == want[0][0], (want, got)
