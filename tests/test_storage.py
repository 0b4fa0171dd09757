"""Storages and the memory methods of Tensor, against torch where torch still has them."""

import multiprocessing as mp

import numpy as np
import pytest
import torch

import numtorch


def test_storage_shares_memory_with_tensor():
    x = numtorch.arange(6.0).reshape(2, 3)
    s = x.storage()
    assert isinstance(s, numtorch.FloatStorage) and s.size() == 6
    s[0] = 100.0
    assert x[0, 0].item() == 100.0
    x[1, 2] = -1.0
    assert s[5] == -1.0
    view = x[1]
    assert view.storage().size() == 6 and view.storage_offset() == 3
    ts = torch.arange(6.0).reshape(2, 3).untyped_storage()
    assert x.untyped_storage().nbytes() == ts.nbytes()


def test_typed_storage_api():
    s = numtorch.FloatStorage([1, 2, 3])
    assert s.tolist() == [1.0, 2.0, 3.0] and len(s) == 3 and s.element_size() == 4
    assert s.double().tolist() == [1.0, 2.0, 3.0] and isinstance(s.long(), numtorch.LongStorage)
    assert s.clone().fill_(7).tolist() == [7.0, 7.0, 7.0] and s.tolist() == [1.0, 2.0, 3.0]
    s.copy_(numtorch.FloatStorage([4, 5, 6]))
    assert s.tolist() == [4.0, 5.0, 6.0]
    s.resize_(5)
    assert s.size() == 5 and s.tolist()[:3] == [4.0, 5.0, 6.0]
    assert numtorch.Storage is numtorch.FloatStorage
    assert numtorch.ByteStorage.from_buffer(b"abc").tolist() == [97, 98, 99]
    le = np.array([1, 2], dtype="<i4").tobytes()
    assert numtorch.IntStorage.from_buffer(le, "little").tolist() == [1, 2]
    assert s.type() == "torch.FloatStorage" and s.type("torch.DoubleStorage").dtype is \
        numtorch.float64
    assert not s.is_cuda and not s.is_pinned() and s.pin_memory() is s
    with pytest.raises(RuntimeError):
        s.cuda()
    assert numtorch.FloatStorage(4).size() == 4


def test_storage_from_file(tmp_path):
    path = str(tmp_path / "s.bin")
    np.arange(4, dtype=np.float32).tofile(path)
    s = numtorch.FloatStorage.from_file(path, shared=True, size=4)
    assert s.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_set_and_resize_match_torch():
    for lib in (numtorch, torch):
        base = lib.arange(6.0)
        t = lib.tensor([], dtype=lib.float32).set_(base.storage() if lib is numtorch else
                                                   base.untyped_storage(), 1, (2, 2), (2, 1))
        assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
        z = lib.arange(4.0)
        z.resize_(2, 2)
        assert z.tolist() == [[0.0, 1.0], [2.0, 3.0]]
        z.resize_(3)
        assert z.tolist() == [0.0, 1.0, 2.0]
        a = lib.ones(2)
        assert a.set_(z).is_set_to(z)


def _add_one(t):
    t.add_(1)


def test_share_memory_across_processes():
    x = numtorch.zeros(3)
    assert not x.is_shared()
    x.share_memory_()
    assert x.is_shared() and x.storage().is_shared()
    p = mp.get_context("fork").Process(target=_add_one, args=(x,))
    p.start()
    p.join()
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_apply_map_new_index_and_flags():
    x = numtorch.tensor([1.0, 2.0, 3.0])
    x.apply_(lambda v: v * 10)
    assert x.tolist() == [10.0, 20.0, 30.0]
    x.map_(numtorch.tensor([1.0, 1.0, 2.0]), lambda a, b: a - b)
    assert x.tolist() == [9.0, 19.0, 28.0]
    assert x.new(2, 3).shape == (2, 3) and x.new([1, 2]).dtype is numtorch.float32
    assert x.index(numtorch.tensor([True, False, True])).tolist() == [9.0, 28.0]
    assert x.is_signed() and not numtorch.tensor([1], dtype=numtorch.uint8).is_signed()
    assert not x.is_pinned()
    if not numtorch.cuda.is_available():  # torch without an accelerator refuses to pin
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            x.pin_memory()
    assert x.storage_type() is numtorch.FloatStorage
    with pytest.raises(RuntimeError):
        numtorch.ones(2, requires_grad=True).apply_(lambda v: v)
