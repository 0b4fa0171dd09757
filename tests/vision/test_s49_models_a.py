"""Session 49 (vision2): numtorchvision models against torchvision 0.28 at test time."""

import numpy as np
import pytest
import torch
import torchvision  # conftest imported it with register_fake patched

import numtorch
import numtorchvision

from ._model_helpers import skipped_random_init, to_numtorch, tv_build


def _pair(name, **kw):
    tm = tv_build(torchvision.models.get_model_builder(name), **kw)
    with skipped_random_init():
        nm = numtorchvision.models.get_model_builder(name)(weights=None, **kw)
    nm.load_state_dict(to_numtorch(tm.state_dict()), strict=True)
    return tm, nm


@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("name", ["mobilenet_v3_small", "squeezenet1_1"])
def test_empty_batch_forward_backward(name, train):
    """An empty batch runs through a model (1x1 convolutions on small maps included) and
    backward gives zero parameter gradients, as in torchvision."""
    tm, nm = _pair(name)
    tm.train(train)
    nm.train(train)
    tx = torch.zeros(0, 3, 32, 32, requires_grad=True)
    nx = numtorch.zeros(0, 3, 32, 32, requires_grad=True)
    ty, ny = tm(tx), nm(nx)
    assert tuple(ny.shape) == tuple(ty.shape)
    ty.sum().backward()
    ny.sum().backward()
    assert tuple(nx.grad.shape) == tuple(tx.grad.shape)
    tgrads = dict(tm.named_parameters())
    for key, p in nm.named_parameters():
        want = tgrads[key].grad
        assert (p.grad is None) == (want is None), key
        if want is not None:
            assert p.grad.dtype == numtorch.float32
            np.testing.assert_array_equal(p.grad.numpy(), want.numpy(), err_msg=key)


@pytest.mark.parametrize("kw", [{"kernel_size": 1}, {"kernel_size": 1, "stride": 2},
                                {"kernel_size": 1, "groups": 2}, {"kernel_size": 3}])
def test_empty_batch_conv_on_small_maps(kw):
    torch.manual_seed(0)
    tconv = torch.nn.Conv2d(4, 6, **kw)
    nconv = numtorch.nn.Conv2d(4, 6, **kw)
    nconv.load_state_dict(to_numtorch(tconv.state_dict()))
    tx = torch.zeros(0, 4, 5, 5, requires_grad=True)
    nx = numtorch.zeros(0, 4, 5, 5, requires_grad=True)
    ty, ny = tconv(tx), nconv(nx)
    assert tuple(ny.shape) == tuple(ty.shape)
    ty.sum().backward()
    ny.sum().backward()
    np.testing.assert_array_equal(nconv.weight.grad.numpy(), tconv.weight.grad.numpy())
    np.testing.assert_array_equal(nconv.bias.grad.numpy(), tconv.bias.grad.numpy())


@pytest.mark.parametrize("name", ["deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"])
def test_empty_batch_segmentation(name):
    """Segmentation heads (ASPP image pooling, LR-ASPP's scale branch, the final upsampling)
    on an empty batch give torchvision's empty outputs."""
    tm, nm = _pair(name, weights_backbone=None)
    tm.eval()
    nm.eval()
    with torch.no_grad():
        want = tm(torch.zeros(0, 3, 32, 32))
    with numtorch.no_grad():
        got = nm(numtorch.zeros(0, 3, 32, 32))
    assert sorted(got) == sorted(want)
    for key in want:
        assert tuple(got[key].shape) == tuple(want[key].shape)
        assert got[key].dtype == numtorch.float32
