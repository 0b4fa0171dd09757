"""``numtorch.utils``: data loading (``utils.data``) and helpers."""

from . import data  # noqa: F401
from . import model_zoo  # noqa: F401
from . import hooks  # noqa: F401,E402
from . import checkpoint  # noqa: F401,E402
from . import deterministic  # noqa: F401,E402
from ._swap import swap_tensors  # noqa: F401


def __getattr__(name):
    # imported on first use: the 0.x systems serialization (load_lua) and ffi (cffi
    # builds), and the rarer helpers
    if name in ("serialization", "ffi", "flop_counter", "weak", "backcompat", "collect_env"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
