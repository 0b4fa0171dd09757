"""Session 45: models built under ``manual_seed`` draw their initial weights in torchvision's
order (the auxiliary segmentation head before the main one), compared with torchvision 0.28
at test time."""

import numpy as np
import pytest
import torch
import torchvision  # conftest imported it with register_fake patched

import numtorch
import numtorchvision


def _built(lib, torch_mod, name, **kw):
    torch_mod.manual_seed(0)
    model = getattr(lib.models.segmentation, name)(weights=None, weights_backbone=None, **kw)
    return model.state_dict(), torch_mod.rand(3)


@pytest.mark.parametrize("name", ["fcn_resnet50", "deeplabv3_resnet50",
                                  "deeplabv3_mobilenet_v3_large"])
def test_segmentation_heads_initialised_in_torchvisions_order(name):
    got, got_next = _built(numtorchvision, numtorch, name, num_classes=3, aux_loss=True)
    want, want_next = _built(torchvision, torch, name, num_classes=3, aux_loss=True)
    assert list(got) == list(want)
    for key in want:
        if key.startswith(("classifier", "aux_classifier")) and want[key].is_floating_point():
            np.testing.assert_array_equal(got[key].numpy(), want[key].numpy(), err_msg=key)
    np.testing.assert_array_equal(got_next.numpy(), want_next.numpy())  # the RNG afterwards
