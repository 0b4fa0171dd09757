"""nn.functional: loss.

The losses are split by family into private files (regression, classification, embedding,
CTC) and re-exported here, so ``numtorch.nn.functional.<loss>`` resolves as in torch.
"""

from ._loss_classification import *  # noqa: F401,F403
from ._loss_classification import __all__ as _classification
from ._loss_ctc import *  # noqa: F401,F403
from ._loss_ctc import __all__ as _ctc
from ._loss_embedding import *  # noqa: F401,F403
from ._loss_embedding import __all__ as _embedding
from ._loss_regression import *  # noqa: F401,F403
from ._loss_regression import __all__ as _regression

__all__ = _regression + _classification + _embedding + _ctc
