"""Empty views keep torch's storage offset and strides, in memory and through torch.save /
torch.load in both directions (NumPy leaves an empty slice's pointer where it was and gives
fresh empty arrays all-zero strides)."""

import io

import numpy as np
import pytest
import torch

import numtorch

CASES = {
    "slice_at_end": lambda L, x: x[6:],
    "slice_empty_mid": lambda L, x: x[2:2],
    "slice_past_end_of_view": lambda L, x: x[4:][5:],
    "slice_negative_start": lambda L, x: x[-2:-2],
    "2d_empty_cols": lambda L, x: x.view(2, 3)[1:, 3:],
    "2d_int_then_empty": lambda L, x: x.view(2, 3)[1, 2:2],
    "2d_ellipsis": lambda L, x: x.view(2, 3)[..., 2:2],
    "t_empty_cols": lambda L, x: x.view(2, 3).t()[:, 0:0],
    "t_empty_rows": lambda L, x: x.view(2, 3).t()[1:1],
    "as_strided_empty": lambda L, x: x[6:].as_strided((0, 2), (1, 2), 3),
    "as_strided_at_end": lambda L, x: x.as_strided((2, 0), (1, 1), 6),
    "view_of_empty": lambda L, x: x[3:3].view(0, 1),
    "new_empty_t": lambda L, x: x.new_empty((0, 3)).t(),
    "new_empty_permute": lambda L, x: x.new_empty((2, 0, 3)).permute(2, 0, 1),
    "narrow_empty": lambda L, x: x.narrow(0, 4, 0),
    "int64": lambda L, x: L.arange(6)[5:5],
}


def _make(lib, name):
    x = lib.arange(6.)
    return x, CASES[name](lib, x)


def _geometry(t):
    return tuple(t.shape), t.storage_offset(), t.stride()


@pytest.mark.parametrize("name", sorted(CASES))
def test_geometry_matches_torch(name):
    _, want = _make(torch, name)
    _, got = _make(numtorch, name)
    assert _geometry(got) == _geometry(want)
    assert str(got.dtype) == str(want.dtype)


@pytest.mark.parametrize("name", sorted(CASES))
def test_view_shares_base_storage(name):
    for lib in (torch, numtorch):
        x, v = _make(lib, name)
        if name.startswith(("new_empty", "int64")):
            continue  # not views of x
        assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), lib.__name__


DIRECTIONS = [(numtorch, torch), (torch, numtorch), (numtorch, numtorch)]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("src,dst", DIRECTIONS, ids=["nt2torch", "torch2nt", "nt2nt"])
def test_save_load_keeps_geometry(name, src, dst):
    _, want = _make(torch, name)
    x, v = _make(src, name)
    buf = io.BytesIO()
    src.save({"v": v, "x": x}, buf)
    buf.seek(0)
    out = dst.load(buf)
    assert _geometry(out["v"]) == _geometry(want)
    assert out["v"].untyped_storage().nbytes() == want.untyped_storage().nbytes()
    np.testing.assert_array_equal(np.asarray(out["x"].tolist()), np.arange(6.))


@pytest.mark.parametrize("name", ["slice_at_end", "2d_empty_cols", "as_strided_empty",
                                  "new_empty_t"])
@pytest.mark.parametrize("src,dst", DIRECTIONS, ids=["nt2torch", "torch2nt", "nt2nt"])
def test_save_lone_empty_view(name, src, dst):
    _, want = _make(torch, name)
    _, v = _make(src, name)
    buf = io.BytesIO()
    src.save(v, buf)
    buf.seek(0)
    got = dst.load(buf)
    assert _geometry(got) == _geometry(want)
    assert got.untyped_storage().nbytes() == want.untyped_storage().nbytes()


def test_grad_through_empty_views():
    grads = []
    for lib in (torch, numtorch):
        x = lib.arange(6., requires_grad=True)
        y = (x[6:].sum() + x.view(2, 3)[1:, 3:].sum() + x.as_strided((0, 2), (1, 2), 3).sum()
             + (x[2:2] * 2).sum() + x[1:].sum())
        y.backward()
        grads.append(x.grad.tolist())
    assert grads[1] == grads[0]
