"""Views, storage offsets and writes through shared memory on the CuPy stand-in.

The stand-in follows CuPy 14 where numtorch's view code looks: ``data.mem`` is the pool block
(512-byte units) a view lives in, so ``data.ptr - data.mem.ptr`` is the view's byte offset; a
view's ``base`` is the array owning the memory, ``as_strided`` views have none, a reshape that
copies is a new array; stride-trick views can be written (CuPy has no read-only flag) and
``sliding_window_view(writeable=True)`` is refused. numtorch's storage offsets, ``as_strided``
and torch's rules for writes through expanded tensors are then checked against torch.
"""

import warnings

import pytest
import torch

import numtorch
from tests.cuda import standin

cp, _ = standin.modules()


def test_views_know_their_offset_in_the_pool_block():
    x = cp.arange(10.0)
    v = x[3:]
    assert v.base is x and v.data.ptr - v.data.mem.ptr == 3 * 8
    assert x.data.mem.size % 512 == 0 and x.data.mem.size >= x.nbytes


def test_stride_tricks_as_cupy_makes_them():
    x = cp.arange(6.0)
    s = cp.lib.stride_tricks.as_strided(x[1:], (2, 2), (8, 8))
    assert s.base is None and s.data.ptr - s.data.mem.ptr == 8
    w = cp.lib.stride_tricks.sliding_window_view(x, 3)
    w[1, 0] = 50.0  # a GPU writes through windows (no read-only flag)
    assert x[1].item() == 50.0
    with pytest.raises(NotImplementedError):
        cp.lib.stride_tricks.sliding_window_view(x, 3, writeable=True)
    b = cp.broadcast_to(x[:1], (3,))
    b[...] = 7.0
    assert x[0].item() == 7.0 and b.strides == (0,)


def test_a_reshape_that_copies_is_a_new_array():
    x = cp.arange(6.0).reshape(2, 3)
    assert x.reshape(3, 2).base is x.base
    y = x.T.reshape(6)
    assert y.base is None and y.flags.owndata


def _both(fn):
    """``fn(lib)`` for numtorch on the stand-in and for torch: results, or (class, message)."""
    out = []
    for lib in (numtorch, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = fn(lib)
            except Exception as e:  # noqa: BLE001  (the class and text are compared)
                r = (type(e).__name__, str(e))
        out.append((r, sorted({str(x.message)[:40] for x in w})))
    return out


@pytest.fixture
def on_standin():
    with standin.active():
        numtorch.set_default_device("cuda")
        try:
            yield
        finally:
            numtorch.set_default_device(None)


def _expanded(write):
    def fn(lib):
        b = lib.ones(3, 1)
        write(lib, b.expand(3, 4))
        return b.flatten().tolist()
    return fn


@pytest.mark.parametrize("write", [
    lambda t, e: e.add_(1),  # elements sharing memory: refused
    lambda t, e: e.__setitem__(0, 4.0),  # the target row repeats one element: refused
    lambda t, e: e.__setitem__((slice(None), 1), 4.0),  # a column does not: written
    lambda t, e: e.fill_(2.0),
    lambda t, e: e.masked_fill_(t.tensor([[False, True, False, False]] * 3), 4.0),
    lambda t, e: e.index_put_((t.tensor([0]),), t.tensor(4.0), accumulate=True),
    lambda t, e: e.__setitem__((t.tensor([0, 0]), t.tensor([1, 2])), t.tensor([5.0, 6.0])),
], ids=["add", "setitem-row", "setitem-column", "fill", "masked-fill", "index-put-acc",
        "setitem-repeated"])
def test_writes_through_expanded_cuda_tensors_follow_torch(on_standin, write):
    ours, theirs = _both(_expanded(write))
    assert ours == theirs


def test_storage_offsets_and_as_strided_of_views(on_standin):
    def fn(lib):
        x = lib.arange(12.0)
        v = x[2:].as_strided((2, 3), (3, 1))
        w = v.as_strided((2,), (5,), 0)  # counted from the storage, not from v
        v2 = x[1::2]
        return (v.storage_offset(), w.tolist(), v2.storage_offset(),
                v2.as_strided((2,), (2,)).tolist(), x[4:].view(2, 4).storage_offset())
    ours, theirs = _both(fn)
    assert ours == theirs


@pytest.mark.parametrize("fn", [
    lambda t: t.arange(6.0).reshape(2, 3).t().view(6),
    lambda t: t.arange(8.0)[1:7].view(t.complex128),
    lambda t: t.view_as_complex(t.arange(8.0)[1:5].reshape(2, 2)),
    lambda t: t.arange(12.0)[2:].as_strided((4, 4), (4, 1)),
], ids=["view-noncontiguous", "view-dtype-offset", "view-as-complex-offset",
        "as-strided-out-of-storage"])
def test_view_checks_on_cuda_raise_like_torch(on_standin, fn):
    ours, theirs = _both(fn)
    assert ours[0][0] == "RuntimeError" and ours == theirs
