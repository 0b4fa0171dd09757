"""``numtorch.optim``: optimizers (one file per algorithm) and learning-rate schedulers."""

from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
