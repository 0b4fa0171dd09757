"""Tensor's ``is_*`` flags, ``layout`` and memory formats, against torch."""

import pickle

import numpy as np
import pytest
import torch

import numtorch

IS_NAMES = sorted(n for n in dir(torch.Tensor) if n.startswith("is_"))
# methods that need arguments, and what to call them with
ARGS = {"is_same_size": lambda lib: (lib.ones(2, 3),), "is_set_to": lambda lib: (lib.ones(1),)}


def _answer(lib, tensor, name):
    attr = getattr(tensor, name)
    if not callable(attr):
        return "attribute", attr
    try:
        return "method", attr(*ARGS.get(name, lambda lib: ())(lib))
    except Exception as exc:  # noqa: BLE001 - the error is the answer compared
        return "raises", type(exc).__name__, str(exc)


@pytest.mark.parametrize("name", IS_NAMES)
@pytest.mark.parametrize("make", [lambda lib: lib.ones(2, 3), lambda lib: lib.ones(1),
                                  lambda lib: lib.zeros(1, dtype=lib.int64),
                                  lambda lib: lib.ones(2, 3).t()], ids=["2x3", "1", "int", "t"])
def test_is_attributes_match_torch(name, make):
    assert _answer(numtorch, make(numtorch), name) == _answer(torch, make(torch), name)


def test_layout_and_format_values():
    for name in ["strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
                 "jagged", "contiguous_format", "channels_last", "channels_last_3d",
                 "preserve_format", "legacy_contiguous_format"]:
        ours, theirs = getattr(numtorch, name), getattr(torch, name)
        assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))
        assert type(ours).__name__ == type(theirs).__name__
        assert pickle.loads(pickle.dumps(ours)) is ours and ours == ours and hash(ours)
    assert numtorch.ones(2).layout is numtorch.strided
    assert str(numtorch.ones(2).layout) == str(torch.ones(2).layout)
    for lib in (numtorch, torch):
        with pytest.raises(TypeError, match="cannot create 'torch.memory_format' instances"):
            lib.memory_format()


FORMAT_CASES = {
    "contiguous(channels_last)": lambda L, x: x.contiguous(memory_format=L.channels_last),
    "is_contiguous(channels_last)": lambda L, x: (
        x.is_contiguous(memory_format=L.channels_last),
        x.contiguous(memory_format=L.channels_last).is_contiguous(),
        x.contiguous(memory_format=L.channels_last).is_contiguous(
            memory_format=L.channels_last)),
    "to(memory_format)": lambda L, x: x.to(memory_format=L.channels_last),
    "to(dtype) keeps the format": lambda L, x: x.contiguous(
        memory_format=L.channels_last).to(L.float64),
    "back to contiguous": lambda L, x: x.contiguous(
        memory_format=L.channels_last).contiguous(),
    "clone preserves": lambda L, x: x.contiguous(memory_format=L.channels_last).clone(),
    "clone(channels_last)": lambda L, x: x.clone(memory_format=L.channels_last),
    "clone(contiguous_format)": lambda L, x: x.contiguous(
        memory_format=L.channels_last).clone(memory_format=L.contiguous_format),
    "elementwise keeps the format": lambda L, x: x.contiguous(
        memory_format=L.channels_last) * 2,
    "empty_like preserves": lambda L, x: L.zeros_like(x.contiguous(
        memory_format=L.channels_last)),
    "zeros_like(channels_last)": lambda L, x: L.zeros_like(x, memory_format=L.channels_last),
    "ones_like(contiguous_format)": lambda L, x: L.ones_like(x.contiguous(
        memory_format=L.channels_last), memory_format=L.contiguous_format),
    "empty(channels_last)": lambda L, x: L.empty(2, 3, 4, 5, memory_format=L.channels_last
                                                 ).stride(),
    "empty(channels_last) is a leaf": lambda L, x: L.empty(
        2, 3, 4, 5, memory_format=L.channels_last, requires_grad=True).is_leaf,
    "size-1 channels already channels_last": lambda L, x: L.ones(2, 1, 3, 3).contiguous(
        memory_format=L.channels_last),
    "channels_last_3d": lambda L, x: L.arange(120.0).reshape(1, 2, 3, 4, 5).contiguous(
        memory_format=L.channels_last_3d),
    "preserve on a contiguous tensor": lambda L, x: x.contiguous(
        memory_format=L.preserve_format),
    "is_contiguous(preserve_format)": lambda L, x: x.transpose(2, 3).is_contiguous(
        memory_format=L.preserve_format),
    # errors
    "channels_last on 2-d": lambda L, x: L.ones(2, 3).contiguous(memory_format=L.channels_last),
    "to channels_last on 2-d": lambda L, x: L.ones(2, 3).to(memory_format=L.channels_last),
    "preserve on a transposed tensor": lambda L, x: x.transpose(2, 3).contiguous(
        memory_format=L.preserve_format),
    "format of the wrong type": lambda L, x: x.contiguous(memory_format="channels_last"),
}


def _format_result(lib, fn):
    x = lib.arange(24.0).reshape(1, 2, 3, 4)
    try:
        out = fn(lib, x)
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__, str(exc)
    if isinstance(out, (lib.Tensor,)):
        return tuple(out.shape), out.stride(), str(out.dtype), out.detach().double().numpy().tolist()
    return out


@pytest.mark.parametrize("name", list(FORMAT_CASES))
def test_memory_formats_match_torch(name):
    fn = FORMAT_CASES[name]
    assert _format_result(numtorch, fn) == _format_result(torch, fn)


def test_channels_last_gradient_flows_as_torch():
    grads = []
    for lib in (numtorch, torch):
        x = lib.from_numpy(np.arange(24.0, dtype=np.float32).reshape(1, 2, 3, 4)).requires_grad_()
        y = x.contiguous(memory_format=lib.channels_last)
        (y * lib.arange(24.0).reshape(1, 2, 3, 4)).sum().backward()
        grads.append((x.grad.stride(), x.grad.numpy().tolist(), y.requires_grad, y.is_leaf))
    assert grads[0] == grads[1]


def test_module_to_memory_format_reaches_4d_tensors_like_torch():
    # Module.to(memory_format=...) converts only the 4-d/5-d parameters, buffers and grads;
    # channels_last on a 5-d tensor is torch's rank error
    def build(lib):
        lib.manual_seed(0)
        return lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4),
                                 lib.nn.Linear(2, 2))

    for fmt in ("channels_last", "contiguous_format"):
        seen = []
        for lib in (numtorch, torch):
            m = build(lib)
            m[0].weight.grad = lib.ones_like(m[0].weight)
            m.to(lib.float64, memory_format=getattr(lib, "channels_last"))
            m.to(memory_format=getattr(lib, fmt))
            seen.append([(tuple(t.stride()), str(t.dtype)) for t in
                         (m[0].weight, m[0].weight.grad, m[1].running_mean, m[2].weight)])
        assert seen[0] == seen[1]
    for lib in (numtorch, torch):
        with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
            lib.nn.Conv3d(1, 1, 1).to(memory_format=lib.channels_last)
