"""Image classification models with torchvision's module structure, builders and
pretrained-weights enums (``resnet18(weights=ResNet18_Weights.DEFAULT)``).

State dict keys and shapes equal torchvision's, so torchvision checkpoints load strictly and
numtorch checkpoints load into torchvision. Families provided: AlexNet, ConvNeXt, DenseNet,
EfficientNet (V1, V2), GoogLeNet, Inception v3, MaxViT, MNASNet, MobileNet (V2, V3), RegNet
(X, Y), ResNet, ResNeXt, Wide ResNet, ShuffleNet V2, SqueezeNet, Swin Transformer (V1, V2), VGG
and ViT: every classification model of torchvision 0.28; ``models.segmentation``: FCN,
DeepLabV3 and LR-ASPP; ``models.video``: the video ResNets and S3D; ``models.quantization``:
the quantizable families; ``models.optical_flow``: RAFT; ``models.detection``: Faster,
Mask and Keypoint R-CNN, RetinaNet, FCOS, SSD and SSDlite.
"""

from . import detection, optical_flow, quantization, segmentation, video  # noqa: F401
from ._api import (Weights, WeightsEnum, get_model, get_model_builder,  # noqa: F401
                   get_model_weights, get_weight, list_models)
from .alexnet import *  # noqa: F403
from .convnext import *  # noqa: F403
from .densenet import *  # noqa: F403
from .efficientnet import *  # noqa: F403
from .googlenet import *  # noqa: F403
from .inception import *  # noqa: F403
from .maxvit import *  # noqa: F403
from .mnasnet import *  # noqa: F403
from .mobilenet import *  # noqa: F403
from .regnet import *  # noqa: F403
from .resnet import *  # noqa: F403
from .shufflenetv2 import *  # noqa: F403
from .squeezenet import *  # noqa: F403
from .swin_transformer import *  # noqa: F403
from .vgg import *  # noqa: F403
from .vision_transformer import *  # noqa: F403
