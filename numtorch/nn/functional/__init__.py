"""``numtorch.nn.functional`` (``F``): the single place of nn math, composed from ops.

Each family lives in its own file; everything is re-exported here so ``F.conv2d`` etc. work.
"""

from .linear import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .smooth_activation import *  # noqa: F401,F403
from ._softmax import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .adaptive_pooling import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
from .grid_sample import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from ._channel_shuffle import channel_shuffle  # noqa: F401
from ._channel_shuffle import channel_shuffle as native_channel_shuffle  # noqa: F401,E402
from ..._torch_nn_forms import conv_tbc  # noqa: F401,E402  (F.conv_tbc is torch.conv_tbc)
from .. import grad  # noqa: F401,E402  (F.grad is the module torch.nn.grad)
from ._linear_cross_entropy import linear_cross_entropy  # noqa: F401,E402
from ...overrides import (  # noqa: F401,E402  (torch re-exports these in F)
    handle_torch_function, has_torch_function, has_torch_function_unary,
    has_torch_function_variadic,
)

# torch defines every F function in the one module torch.nn.functional; pickles (a Transformer
# layer's activation) and ``__module__`` checks name it, so the family files' functions say so.
for _obj in list(globals().values()):
    if callable(_obj) and (getattr(_obj, "__module__", None) or "").startswith(__name__ + "."):
        _obj.__module__ = __name__
del _obj
