"""``numtorch.utils``: data loading (``utils.data``) and helpers."""

from . import data  # noqa: F401
from . import model_zoo  # noqa: F401
from . import hooks  # noqa: F401,E402
from . import checkpoint  # noqa: F401,E402
