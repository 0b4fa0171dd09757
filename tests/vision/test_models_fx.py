"""torch.fx on numtorchvision's models: they trace as torchvision's do (the same nodes, the
fx.wrap'ed helpers and torch._assert checks as single call_function nodes), and the traced
module computes what the model computes."""

import numpy as np
import pytest
import torch
import torch.fx as tfx
import torchvision.models as TM
import torchvision.models.convnext as TC
import torchvision.models.efficientnet as TE
import torchvision.models.swin_transformer as TS

import numtorch
import numtorch.fx as nfx
import numtorchvision.models as NM
import numtorchvision.models.convnext as NC
import numtorchvision.models.efficientnet as NE
import numtorchvision.models.swin_transformer as NS

from ._model_helpers import assert_outputs_close, image, randomize_values, \
    skipped_random_init, to_numtorch, torch_init_skipped


def _summary(gm):
    """(op, name, target) of every node; functions by name (they are different objects)."""
    rows = []
    for n in gm.graph.nodes:
        target = n.target if isinstance(n.target, str) else getattr(n.target, "__name__", None)
        rows.append((n.op, n.name, target))
    return rows


@pytest.mark.parametrize("name", ["efficientnet_b0", "convnext_tiny", "vit_b_16", "swin_t",
                                  "maxvit_t"])
def test_graph_matches_torchvision(name):
    # values play no part in tracing: both models are built without initialising them
    with skipped_random_init():
        ours = getattr(NM, name)().eval()
    with torch_init_skipped():
        theirs = getattr(TM, name)().eval()
    rows, expected = _summary(nfx.symbolic_trace(ours)), _summary(tfx.symbolic_trace(theirs))
    assert rows == expected
    leaves = {t for op, _, t in expected if op == "call_function"}
    assert leaves & {"stochastic_depth", "shifted_window_attention", "_assert"}


# the same architectures, small: (builder(module), input side)
_SMALL = {
    "efficientnet": (lambda m: (NE if m == "nt" else TE).EfficientNet(
        [(NE if m == "nt" else TE).MBConvConfig(1, 3, 1, 8, 8, 2),
         (NE if m == "nt" else TE).MBConvConfig(4, 5, 2, 8, 16, 2)], 0.2,
        num_classes=10), 32),
    "convnext": (lambda m: (NC if m == "nt" else TC).ConvNeXt(
        [(NC if m == "nt" else TC).CNBlockConfig(8, 16, 1),
         (NC if m == "nt" else TC).CNBlockConfig(16, None, 2)],
        stochastic_depth_prob=0.2), 32),
    "vit": (lambda m: (NM if m == "nt" else TM).VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=16, mlp_dim=32), 32),
    "maxvit": (lambda m: (NM if m == "nt" else TM).MaxVit(
        input_size=(32, 32), stem_channels=8, partition_size=2, block_channels=[8, 16],
        block_layers=[1, 1], head_dim=4, stochastic_depth_prob=0.2, num_classes=10), 32),
    "swin": (lambda m: (NS if m == "nt" else TS).SwinTransformer(
        patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 2], window_size=[2, 2],
        stochastic_depth_prob=0.2, num_classes=10), 24),
}


@pytest.mark.parametrize("name", sorted(_SMALL))
def test_traced_module_computes_the_model(name):
    build, side = _SMALL[name]
    with torch_init_skipped():
        theirs = randomize_values(build("tv")).eval()
    with skipped_random_init():
        ours = build("nt").eval()
    ours.load_state_dict(to_numtorch(theirs.state_dict()))
    gm, tgm = nfx.symbolic_trace(ours), tfx.symbolic_trace(theirs)
    assert _summary(gm) == _summary(tgm)
    x = image((2, 3, side, side), seed=1)
    with numtorch.no_grad():
        eager, traced = ours(numtorch.from_numpy(x)), gm(numtorch.from_numpy(x))
    with torch.no_grad():
        expected = tgm(torch.from_numpy(x))
    np.testing.assert_array_equal(traced.numpy(), eager.numpy())
    assert_outputs_close(traced, expected, rel=2e-4)
    # the graph computes gradients too
    xs = numtorch.from_numpy(x).requires_grad_()
    gm(xs).sum().backward()
    xt = torch.from_numpy(x).requires_grad_()
    tgm(xt).sum().backward()
    assert_outputs_close(xs.grad, xt.grad, rel=2e-4)
