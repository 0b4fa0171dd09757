"""Image classification models with torchvision's module structure, builders and
pretrained-weights enums (``resnet18(weights=ResNet18_Weights.DEFAULT)``).

State dict keys and shapes equal torchvision's, so torchvision checkpoints load strictly and
numtorch checkpoints load into torchvision.
"""

from ._api import (Weights, WeightsEnum, get_model, get_model_builder, get_model_weights,  # noqa: F401
                   get_weight, list_models)
from .alexnet import *  # noqa: F401,F403
from .convnext import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .efficientnet import *  # noqa: F401,F403
from .googlenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .regnet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .shufflenetv2 import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
from .vision_transformer import *  # noqa: F401,F403
