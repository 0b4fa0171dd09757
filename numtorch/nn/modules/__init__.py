"""nn modules, one file per family with torch's file names (so deep imports and pickled
models resolve under ``numtorch.nn.modules.<file>``)."""

from .module import Module  # noqa: F401
from .container import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .lazy_norm import *  # noqa: F401,F403
from ._linear_cross_entropy import LinearCrossEntropyLoss  # noqa: F401  (torch lists it here)
from .linear_cross_entropy_options import LinearCrossEntropyOptions  # noqa: F401
from . import utils  # noqa: E402,F401  (torch.nn.modules.utils, reachable as torch's is)
