"""The quantizable MobileNets (V2 and V3-Large) under one module name, as torchvision's
``models.quantization.mobilenet``."""

from .mobilenetv2 import *
from .mobilenetv2 import __all__ as mv2_all
from .mobilenetv3 import *
from .mobilenetv3 import __all__ as mv3_all

__all__ = mv2_all + mv3_all  # noqa: PLE0605
