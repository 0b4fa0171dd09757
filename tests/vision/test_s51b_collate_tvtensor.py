"""Session 51b: default_collate of tensor subclasses. torch's collate stacks with torch.stack,
which runs the elements' __torch_function__: under tv_tensors.set_return_type('TVTensor') a
batch of Images is an Image (Masks a Mask, Videos a Video, BoundingBoxes keep format and
canvas size), and a program's own Tensor subclass stays that subclass. numtorch stacked the
raw arrays and returned a plain Tensor. Oracle: torch / torchvision at test time."""

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torch.utils.data import default_collate as tv_collate
from torchvision import tv_tensors as tv_tv

import numtorch
from numtorch.utils.data import DataLoader as NtLoader
from numtorch.utils.data import Dataset as NtDataset
from numtorch.utils.data import default_collate as nt_collate
from numtorchvision import tv_tensors as nt_tv


def _samples(lib, tv, kind):
    out = []
    for i in range(2):
        base = lib.arange(48, dtype=lib.float32).reshape(3, 4, 4) + i
        if kind == "image":
            out.append(tv.Image(base))
        elif kind == "mask":
            out.append(tv.Mask(base[0].to(lib.uint8)))
        elif kind == "video":
            out.append(tv.Video(base[None].expand(2, 3, 4, 4)))
        elif kind == "boxes":
            out.append(tv.BoundingBoxes(base[0, :1], format="XYXY", canvas_size=(4, 4)))
        elif kind == "dict":
            out.append({"img": tv.Image(base), "mask": tv.Mask(base[0]), "label": i})
        else:
            out.append((tv.Image(base), i))
    return out


def _describe(v):
    if isinstance(v, dict):
        return {k: _describe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_describe(x) for x in v]
    fmt = getattr(v, "format", None)
    return (type(v).__name__, tuple(v.shape), str(v.dtype).split(".")[-1],
            None if fmt is None else fmt.name,
            None if getattr(v, "canvas_size", None) is None else tuple(v.canvas_size),
            v.numpy().tolist())


@pytest.mark.parametrize("mode", ["Tensor", "TVTensor"])
@pytest.mark.parametrize("kind", ["image", "mask", "video", "boxes", "dict", "tuple"])
def test_default_collate_under_return_type(kind, mode):
    with tv_tv.set_return_type(mode):
        want = _describe(tv_collate(_samples(torch, tv_tv, kind)))
    with nt_tv.set_return_type(mode):
        got = _describe(nt_collate(_samples(numtorch, nt_tv, kind)))
    assert got == want


def test_default_collate_keeps_program_subclass():
    class TSub(torch.Tensor):
        pass

    class NSub(numtorch.Tensor):
        pass

    want = tv_collate([torch.ones(2).as_subclass(TSub), torch.zeros(2).as_subclass(TSub)])
    got = nt_collate([numtorch.ones(2).as_subclass(NSub), numtorch.zeros(2).as_subclass(NSub)])
    assert type(want) is TSub and type(got) is NSub
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_default_collate_parameters_give_plain_tensor():
    want = tv_collate([torch.nn.Parameter(torch.ones(2))] * 2)
    got = nt_collate([numtorch.nn.Parameter(numtorch.ones(2))] * 2)
    assert type(want) is torch.Tensor and type(got) is numtorch.Tensor
    assert got.requires_grad == want.requires_grad


class _ImgDS(NtDataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return nt_tv.Image(numtorch.full((3, 2, 2), float(i))), nt_tv.Mask(numtorch.zeros(2, 2))


def test_loader_batches_tvtensors_in_main_process():
    with tv_tv.set_return_type("TVTensor"):
        want = [type(v).__name__ for v in tv_collate(
            [(tv_tv.Image(torch.full((3, 2, 2), float(i))), tv_tv.Mask(torch.zeros(2, 2)))
             for i in range(2)])]
    with nt_tv.set_return_type("TVTensor"):
        got = [type(v).__name__ for v in next(iter(NtLoader(_ImgDS(), batch_size=2)))]
    assert got == want == ["Image", "Mask"]
