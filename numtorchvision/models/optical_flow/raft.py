"""RAFT (Teed and Deng, "RAFT: Recurrent All-Pairs Field Transforms for Optical Flow", 2020):
per-pixel features of both images, a pyramid of all-pairs correlation volumes, and a
convolutional GRU that refines the flow field step by step, each step's flow upsampled to
full resolution and returned."""

from typing import Optional

import numtorch
from numtorch import nn
from numtorch.nn import functional as F
from numtorch.nn.modules.batchnorm import BatchNorm2d
from numtorch.nn.modules.instancenorm import InstanceNorm2d

from ...ops.misc import Conv2dNormActivation
from ...transforms._presets import OpticalFlow
from .._api import Weights, WeightsEnum, register_model
from .._utils import _MODELS_URL, handle_legacy_interface
from ._utils import grid_sample, make_coords_grid, upsample_flow

__all__ = ("RAFT", "raft_large", "raft_small", "Raft_Large_Weights", "Raft_Small_Weights")


def _conv_norm_relu(cin, cout, norm_layer, kernel_size=3, stride=1, relu=True):
    return Conv2dNormActivation(cin, cout, kernel_size=kernel_size, stride=stride,
                                norm_layer=norm_layer, bias=True,
                                activation_layer=nn.ReLU if relu else None)


class ResidualBlock(nn.Module):
    """Two 3x3 conv-norm-ReLU units and a skip (a strided 1x1 projection when ``stride``
    is not 1 or ``always_project``), then ReLU."""

    def __init__(self, in_channels, out_channels, *, norm_layer, stride=1,
                 always_project=False):
        super().__init__()
        self.convnormrelu1 = _conv_norm_relu(in_channels, out_channels, norm_layer,
                                             stride=stride)
        self.convnormrelu2 = _conv_norm_relu(out_channels, out_channels, norm_layer)
        self.downsample = (_conv_norm_relu(in_channels, out_channels, norm_layer, 1, stride,
                                           relu=False)
                           if stride != 1 or always_project else nn.Identity())
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.convnormrelu2(self.convnormrelu1(x))
        return self.relu(self.downsample(x) + y)


class BottleneckBlock(nn.Module):
    """1x1 down to a quarter of the channels, strided 3x3, 1x1 back up; skip as
    :class:`ResidualBlock` (a projection when strided), then ReLU."""

    def __init__(self, in_channels, out_channels, *, norm_layer, stride=1):
        super().__init__()
        mid = out_channels // 4
        self.convnormrelu1 = _conv_norm_relu(in_channels, mid, norm_layer, 1)
        self.convnormrelu2 = _conv_norm_relu(mid, mid, norm_layer, 3, stride)
        self.convnormrelu3 = _conv_norm_relu(mid, out_channels, norm_layer, 1)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = (_conv_norm_relu(in_channels, out_channels, norm_layer, 1, stride,
                                           relu=False) if stride != 1 else nn.Identity())

    def forward(self, x):
        y = self.convnormrelu3(self.convnormrelu2(self.convnormrelu1(x)))
        return self.relu(self.downsample(x) + y)


class FeatureEncoder(nn.Module):
    """Image to 1/8-resolution features: a strided 7x7 stem, three stages of two blocks,
    a final 1x1 convolution.

    Args:
        block: :class:`ResidualBlock` or :class:`BottleneckBlock`.
        layers (5 ints): widths of the stem, the three stages and the output.
        strides (4 ints): strides of the stem and the three stages.
        norm_layer: normalisation after each convolution (None for none).
    """

    def __init__(self, *, block=ResidualBlock, layers=(64, 64, 96, 128, 256),
                 strides=(2, 1, 2, 2), norm_layer=BatchNorm2d):
        super().__init__()
        if len(layers) != 5:
            raise ValueError(f"The expected number of layers is 5, instead got {len(layers)}")
        self.convnormrelu = _conv_norm_relu(3, layers[0], norm_layer, 7, strides[0])
        for i in (1, 2, 3):
            stage = nn.Sequential(
                block(layers[i - 1], layers[i], norm_layer=norm_layer, stride=strides[i]),
                block(layers[i], layers[i], norm_layer=norm_layer, stride=1))
            setattr(self, f"layer{i}", stage)
        self.conv = nn.Conv2d(layers[3], layers[4], kernel_size=1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):  # (biases keep their default draws)
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.InstanceNorm2d, nn.GroupNorm)):
                for param, value in ((m.weight, 1.0), (m.bias, 0.0)):
                    if param is not None:  # (None for affine-free instance norms)
                        nn.init.constant_(param, value)

    def forward(self, x):
        for layer in (self.convnormrelu, self.layer1, self.layer2, self.layer3, self.conv):
            x = layer(x)
        return x


class MotionEncoder(nn.Module):
    """Correlation features and the current flow, each through its own convolutions, then
    joined by a 3x3 convolution; the flow is appended to the result."""

    def __init__(self, *, in_channels_corr, corr_layers=(256, 192), flow_layers=(128, 64),
                 out_channels=128):
        super().__init__()
        if len(flow_layers) != 2:
            raise ValueError(f"The expected number of flow_layers is 2, instead got "
                             f"{len(flow_layers)}")
        if len(corr_layers) not in (1, 2):
            raise ValueError(f"The number of corr_layers should be 1 or 2, instead got "
                             f"{len(corr_layers)}")
        self.convcorr1 = _conv_norm_relu(in_channels_corr, corr_layers[0], None, 1)
        self.convcorr2 = (_conv_norm_relu(corr_layers[0], corr_layers[1], None, 3)
                          if len(corr_layers) == 2 else nn.Identity())
        self.convflow1 = _conv_norm_relu(2, flow_layers[0], None, 7)
        self.convflow2 = _conv_norm_relu(flow_layers[0], flow_layers[1], None, 3)
        # the flow itself is concatenated after this convolution: 2 channels fewer
        self.conv = _conv_norm_relu(corr_layers[-1] + flow_layers[-1], out_channels - 2, None,
                                    3)
        self.out_channels = out_channels

    def forward(self, flow, corr_features):
        corr = self.convcorr2(self.convcorr1(corr_features))
        flow_features = self.convflow2(self.convflow1(flow))
        joined = self.conv(numtorch.cat([corr, flow_features], dim=1))
        return numtorch.cat([joined, flow], dim=1)


class ConvGRU(nn.Module):
    """A GRU cell whose gates are convolutions over the hidden state and the input."""

    def __init__(self, *, input_size, hidden_size, kernel_size, padding):
        super().__init__()
        for gate in ("convz", "convr", "convq"):
            setattr(self, gate, nn.Conv2d(hidden_size + input_size, hidden_size,
                                          kernel_size=kernel_size, padding=padding))

    def forward(self, h, x):
        hx = numtorch.cat([h, x], dim=1)
        z = numtorch.sigmoid(self.convz(hx))
        r = numtorch.sigmoid(self.convr(hx))
        q = numtorch.tanh(self.convq(numtorch.cat([r * h, x], dim=1)))
        return (1 - z) * h + z * q


def _pass_through_h(h, _):
    # stands in for the second GRU of the small model
    return h


class RecurrentBlock(nn.Module):
    """One or two :class:`ConvGRU` cells applied in turn (two: a 1x5 then a 5x1 one)."""

    def __init__(self, *, input_size, hidden_size, kernel_size=((1, 5), (5, 1)),
                 padding=((0, 2), (2, 0))):
        super().__init__()
        if len(kernel_size) != len(padding):
            raise ValueError(f"kernel_size should have the same length as padding, instead "
                             f"got len(kernel_size) = {len(kernel_size)} and len(padding) = "
                             f"{len(padding)}")
        if len(kernel_size) not in (1, 2):
            raise ValueError(f"kernel_size should either 1 or 2, instead got "
                             f"{len(kernel_size)}")
        self.convgru1 = ConvGRU(input_size=input_size, hidden_size=hidden_size,
                                kernel_size=kernel_size[0], padding=padding[0])
        if len(kernel_size) == 2:
            self.convgru2 = ConvGRU(input_size=input_size, hidden_size=hidden_size,
                                    kernel_size=kernel_size[1], padding=padding[1])
        else:
            self.convgru2 = _pass_through_h
        self.hidden_size = hidden_size

    def forward(self, h, x):
        return self.convgru2(self.convgru1(h, x), x)


def _adopt(module, parts):
    """Register ``parts`` (name -> module or value) on ``module`` in the given order."""
    for name, part in parts.items():
        setattr(module, name, part)


class FlowHead(nn.Module):
    """Hidden state to a 2-channel flow update: 3x3 conv, ReLU, 3x3 conv."""

    def __init__(self, *, in_channels, hidden_size):
        super().__init__()
        _adopt(self, {"conv1": nn.Conv2d(in_channels, hidden_size, kernel_size=3, padding=1),
                      "conv2": nn.Conv2d(hidden_size, 2, kernel_size=3, padding=1),
                      "relu": nn.ReLU(inplace=True)})

    def forward(self, x):
        hidden = self.relu(self.conv1(x))
        return self.conv2(hidden)


class UpdateBlock(nn.Module):
    """One refinement step: encode motion, update the GRU's hidden state from the context
    and the motion features, predict a flow update."""

    def __init__(self, *, motion_encoder, recurrent_block, flow_head):
        super().__init__()
        _adopt(self, {"motion_encoder": motion_encoder, "recurrent_block": recurrent_block,
                      "flow_head": flow_head})
        # what RAFT reads to split the context encoder's output
        self.hidden_state_size = recurrent_block.hidden_size

    def forward(self, hidden_state, context, corr_features, flow):
        motion = self.motion_encoder(flow, corr_features)
        hidden_state = self.recurrent_block(hidden_state, numtorch.cat([context, motion], dim=1))
        return hidden_state, self.flow_head(hidden_state)


class MaskPredictor(nn.Module):
    """The convex-upsampling weights (9 per output pixel of each 8x8 cell) from the hidden
    state, scaled by ``multiplier``."""

    def __init__(self, *, in_channels, hidden_size, multiplier=0.25):
        super().__init__()
        self.convrelu = _conv_norm_relu(in_channels, hidden_size, None, 3)
        self.conv = nn.Conv2d(hidden_size, 8 * 8 * 9, 1, padding=0)
        self.multiplier = multiplier

    def forward(self, x):
        return self.multiplier * self.conv(self.convrelu(x))


class CorrBlock(nn.Module):
    """All-pairs correlation of two feature maps, average-pooled into ``num_levels`` levels,
    and looked up in a ``(2*radius+1)^2`` window around each pixel's current match."""

    def __init__(self, *, num_levels=4, radius=4):
        super().__init__()
        self.num_levels = num_levels
        self.radius = radius
        self.corr_pyramid = [numtorch.tensor(0)]  # filled by build_pyramid
        self.out_channels = num_levels * (2 * radius + 1) ** 2

    def build_pyramid(self, fmap1, fmap2):
        if fmap1.shape != fmap2.shape:
            raise ValueError(f"Input feature maps should have the same shape, instead got "
                             f"{fmap1.shape} (fmap1.shape) != {fmap2.shape} (fmap2.shape)")
        min_size = 2 ** self.num_levels
        if any(s < min_size for s in fmap1.shape[-2:]):
            raise ValueError("Feature maps are too small to be down-sampled by the "
                             f"correlation pyramid. H and W of feature maps should be at "
                             f"least {min_size}; got: {fmap1.shape[-2:]}. Remember that "
                             "input images to the model are downsampled by 8, so that "
                             "means their dimensions should be at least 8 * "
                             f"{min_size} = {8 * min_size}.")
        b, c, h, w = fmap1.shape
        corr = fmap1.view(b, c, h * w).transpose(1, 2).matmul(fmap2.view(b, c, h * w))
        # the scale is a float32 scalar whatever the features' dtype, as in torchvision
        corr = (corr / numtorch.sqrt(numtorch.tensor(float(c)))).reshape(b * h * w, 1, h, w)
        self.corr_pyramid = [corr]
        for _ in range(self.num_levels - 1):
            corr = F.avg_pool2d(corr, kernel_size=2, stride=2)
            self.corr_pyramid.append(corr)

    def index_pyramid(self, centroids_coords):
        b, _, h, w = centroids_coords.shape
        side = 2 * self.radius + 1
        steps = numtorch.linspace(-self.radius, self.radius, side,
                                  device=centroids_coords.device)
        # the window's first axis offsets x and its second y (the layout the checkpoints
        # were trained with)
        delta = numtorch.stack(numtorch.meshgrid(steps, steps, indexing="ij"), dim=-1)
        delta = delta.to(centroids_coords.dtype).view(1, side, side, 2)
        centres = centroids_coords.permute(0, 2, 3, 1).reshape(b * h * w, 1, 1, 2)
        looked_up = [grid_sample(volume, centres / 2 ** level + delta, align_corners=True,
                                 mode="bilinear").view(b, h, w, -1)
                     for level, volume in enumerate(self.corr_pyramid)]
        out = numtorch.cat(looked_up, dim=-1).permute(0, 3, 1, 2).contiguous()
        expected = (b, self.out_channels, h, w)
        if tuple(out.shape) != expected:
            raise ValueError(f"Output shape of index pyramid is incorrect. Should be "
                             f"{expected}, got {tuple(out.shape)}")
        return out


class RAFT(nn.Module):
    """RAFT around its parts (see :func:`raft_large` for a ready model).

    ``forward(image1, image2, num_flow_updates=12)`` takes two ``(N, 3, H, W)`` batches (H
    and W multiples of 8) and returns the list of the ``num_flow_updates`` flow estimates
    ``(N, 2, H, W)``, the last one the most refined.

    Args:
        feature_encoder (FeatureEncoder): per-pixel features of both images (1/8 size).
        context_encoder (FeatureEncoder): features of the first image, split into the GRU's
            initial hidden state (tanh) and a context input (ReLU).
        corr_block (CorrBlock): the correlation pyramid and its lookup.
        update_block (UpdateBlock): one refinement step.
        mask_predictor (MaskPredictor, optional): convex upsampling weights; bilinear
            upsampling without it.
    """

    def __init__(self, *, feature_encoder, context_encoder, corr_block, update_block,
                 mask_predictor=None):
        super().__init__()
        _adopt(self, {"feature_encoder": feature_encoder, "context_encoder": context_encoder,
                      "corr_block": corr_block, "update_block": update_block,
                      "mask_predictor": mask_predictor})
        if not hasattr(update_block, "hidden_state_size"):
            raise ValueError("The update_block parameter should expose a 'hidden_state_size' "
                             "attribute.")

    def forward(self, image1, image2, num_flow_updates: int = 12):
        batch_size, _, h, w = image1.shape
        if (h, w) != image2.shape[-2:]:
            raise ValueError(f"input images should have the same shape, instead got ({h}, "
                             f"{w}) != {image2.shape[-2:]}")
        if not (h % 8 == 0 and w % 8 == 0):
            raise ValueError(f"input image H and W should be divisible by 8, instead got {h} "
                             f"(h) and {w} (w)")
        fmaps = self.feature_encoder(numtorch.cat([image1, image2], dim=0))
        fmap1, fmap2 = numtorch.chunk(fmaps, chunks=2, dim=0)
        self.corr_block.build_pyramid(fmap1, fmap2)
        context_out = self.context_encoder(image1)
        hidden_size = self.update_block.hidden_state_size
        out_channels_context = context_out.shape[1] - hidden_size
        if out_channels_context <= 0:
            raise ValueError(f"The context encoder outputs {context_out.shape[1]} channels, "
                             f"but it should have at strictly more than hidden_state={hidden_size}"
                             " channels")
        hidden_state, context = numtorch.split(context_out, [hidden_size, out_channels_context],
                                               dim=1)
        hidden_state, context = numtorch.tanh(hidden_state), F.relu(context)
        coords0 = make_coords_grid(batch_size, h // 8, w // 8).to(fmap1.device)
        coords1 = make_coords_grid(batch_size, h // 8, w // 8).to(fmap1.device)
        predictions = []
        for _ in range(num_flow_updates):
            # each step refines the previous estimate without back-propagating through it
            coords1 = coords1.detach()
            corr_features = self.corr_block.index_pyramid(centroids_coords=coords1)
            hidden_state, delta_flow = self.update_block(hidden_state, context, corr_features,
                                                         coords1 - coords0)
            coords1 = coords1 + delta_flow
            up_mask = None if self.mask_predictor is None else self.mask_predictor(hidden_state)
            predictions.append(upsample_flow(flow=coords1 - coords0, up_mask=up_mask))
        return predictions


def _flow_meta(num_params, ops, file_size):
    return {"min_size": (128, 128), "num_params": num_params, "_ops": ops,
            "_file_size": file_size}


_ORIGINAL = "https://github.com/princeton-vl/RAFT"
_PORTED = "https://github.com/pytorch/vision/tree/main/references/optical_flow"


def _flow_weights(file, recipe, metrics, num_params, ops, file_size):
    meta = _flow_meta(num_params, ops, file_size)
    meta.update(recipe=recipe, _metrics=metrics)
    return Weights(url=_MODELS_URL + file, transforms=OpticalFlow, meta=meta)


def _sintel_kitti_train(clean, final, per_image_epe, fl_all):
    return {"Sintel-Train-Cleanpass": {"epe": clean}, "Sintel-Train-Finalpass": {"epe": final},
            "Kitti-Train": {"per_image_epe": per_image_epe, "fl_all": fl_all}}


def _sintel_test(clean, final):
    return {"Sintel-Test-Cleanpass": {"epe": clean}, "Sintel-Test-Finalpass": {"epe": final}}


_large = (5257536, 211.007, 20.129)
_small = (990162, 47.655, 3.821)


class Raft_Large_Weights(WeightsEnum):
    C_T_V1 = _flow_weights("raft_large_C_T_V1-22a6c225.pth", _ORIGINAL,
                           _sintel_kitti_train(1.4411, 2.7894, 5.0172, 17.4506), *_large)
    C_T_V2 = _flow_weights("raft_large_C_T_V2-1bb1363a.pth", _PORTED,
                           _sintel_kitti_train(1.3822, 2.7161, 4.5118, 16.0679), *_large)
    C_T_SKHT_V1 = _flow_weights("raft_large_C_T_SKHT_V1-0b8c9e55.pth", _ORIGINAL,
                                _sintel_test(1.94, 3.18), *_large)
    C_T_SKHT_V2 = _flow_weights("raft_large_C_T_SKHT_V2-ff5fadd5.pth", _PORTED,
                                _sintel_test(1.819, 3.067), *_large)
    C_T_SKHT_K_V1 = _flow_weights("raft_large_C_T_SKHT_K_V1-4a6a5039.pth", _ORIGINAL,
                                  {"Kitti-Test": {"fl_all": 5.10}}, *_large)
    C_T_SKHT_K_V2 = _flow_weights("raft_large_C_T_SKHT_K_V2-b5c70766.pth", _PORTED,
                                  {"Kitti-Test": {"fl_all": 5.19}}, *_large)
    DEFAULT = C_T_SKHT_V2


class Raft_Small_Weights(WeightsEnum):
    C_T_V1 = _flow_weights("raft_small_C_T_V1-ad48884c.pth", _ORIGINAL,
                           _sintel_kitti_train(2.1231, 3.279, 7.6557, 25.2801), *_small)
    C_T_V2 = _flow_weights("raft_small_C_T_V2-01064c6d.pth", _PORTED,
                           _sintel_kitti_train(1.9901, 3.2831, 7.5978, 25.2369), *_small)
    DEFAULT = C_T_V2


# the two published configurations: (encoder block, feature widths, context widths, feature
# norm, context norm), lookup radius, motion encoder widths, GRU kernels, heads, masks
_CONFIGS = {
    "large": dict(
        feature_encoder_layers=(64, 64, 96, 128, 256), feature_encoder_block=ResidualBlock,
        feature_encoder_norm_layer=InstanceNorm2d,
        context_encoder_layers=(64, 64, 96, 128, 256), context_encoder_block=ResidualBlock,
        context_encoder_norm_layer=BatchNorm2d, corr_block_num_levels=4, corr_block_radius=4,
        motion_encoder_corr_layers=(256, 192), motion_encoder_flow_layers=(128, 64),
        motion_encoder_out_channels=128, recurrent_block_hidden_state_size=128,
        recurrent_block_kernel_size=((1, 5), (5, 1)), recurrent_block_padding=((0, 2), (2, 0)),
        flow_head_hidden_size=256, use_mask_predictor=True),
    "small": dict(
        feature_encoder_layers=(32, 32, 64, 96, 128), feature_encoder_block=BottleneckBlock,
        feature_encoder_norm_layer=InstanceNorm2d,
        context_encoder_layers=(32, 32, 64, 96, 160), context_encoder_block=BottleneckBlock,
        context_encoder_norm_layer=None, corr_block_num_levels=4, corr_block_radius=3,
        motion_encoder_corr_layers=(96,), motion_encoder_flow_layers=(64, 32),
        motion_encoder_out_channels=82, recurrent_block_hidden_state_size=96,
        recurrent_block_kernel_size=(3,), recurrent_block_padding=(1,),
        flow_head_hidden_size=128, use_mask_predictor=False),
}


def _raft(*, weights=None, progress=False, feature_encoder_layers, feature_encoder_block,
          feature_encoder_norm_layer, context_encoder_layers, context_encoder_block,
          context_encoder_norm_layer, corr_block_num_levels, corr_block_radius,
          motion_encoder_corr_layers, motion_encoder_flow_layers, motion_encoder_out_channels,
          recurrent_block_hidden_state_size, recurrent_block_kernel_size,
          recurrent_block_padding, flow_head_hidden_size, use_mask_predictor, **kwargs):
    feature_encoder = kwargs.pop("feature_encoder", None) or FeatureEncoder(
        block=feature_encoder_block, layers=feature_encoder_layers,
        norm_layer=feature_encoder_norm_layer)
    context_encoder = kwargs.pop("context_encoder", None) or FeatureEncoder(
        block=context_encoder_block, layers=context_encoder_layers,
        norm_layer=context_encoder_norm_layer)
    corr_block = kwargs.pop("corr_block", None) or CorrBlock(num_levels=corr_block_num_levels,
                                                             radius=corr_block_radius)
    update_block = kwargs.pop("update_block", None)
    if update_block is None:
        motion_encoder = MotionEncoder(
            in_channels_corr=corr_block.out_channels, corr_layers=motion_encoder_corr_layers,
            flow_layers=motion_encoder_flow_layers, out_channels=motion_encoder_out_channels)
        # the GRU's input: the motion features and the context part of the context encoder
        context_channels = context_encoder_layers[-1] - recurrent_block_hidden_state_size
        recurrent_block = RecurrentBlock(
            input_size=motion_encoder.out_channels + context_channels,
            hidden_size=recurrent_block_hidden_state_size,
            kernel_size=recurrent_block_kernel_size, padding=recurrent_block_padding)
        flow_head = FlowHead(in_channels=recurrent_block_hidden_state_size,
                             hidden_size=flow_head_hidden_size)
        update_block = UpdateBlock(motion_encoder=motion_encoder,
                                   recurrent_block=recurrent_block, flow_head=flow_head)
    mask_predictor = kwargs.pop("mask_predictor", None)
    if mask_predictor is None and use_mask_predictor:
        mask_predictor = MaskPredictor(in_channels=recurrent_block_hidden_state_size,
                                       hidden_size=256, multiplier=0.25)
    model = RAFT(feature_encoder=feature_encoder, context_encoder=context_encoder,
                 corr_block=corr_block, update_block=update_block,
                 mask_predictor=mask_predictor, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


@register_model()
@handle_legacy_interface(weights=("pretrained", Raft_Large_Weights.C_T_SKHT_V2))
def raft_large(*, weights: Optional[Raft_Large_Weights] = None, progress=True, **kwargs):
    """RAFT with the paper's full-size configuration (5.3M parameters, convex upsampling).

    Args:
        weights (Raft_Large_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: ready parts (``feature_encoder=...``, ``corr_block=...``,
            ``update_block=...``, ``mask_predictor=...``) to use instead of the built ones.
    """
    weights = Raft_Large_Weights.verify(weights)
    return _raft(weights=weights, progress=progress, **_CONFIGS["large"], **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Raft_Small_Weights.C_T_V2))
def raft_small(*, weights: Optional[Raft_Small_Weights] = None, progress=True, **kwargs):
    """RAFT's small configuration (1M parameters, bilinear upsampling); arguments as
    :func:`raft_large`."""
    weights = Raft_Small_Weights.verify(weights)
    return _raft(weights=weights, progress=progress, **_CONFIGS["small"], **kwargs)
