"""``numtorch.utils``: data loading (``utils.data``) and helpers."""

from . import data  # noqa: F401
from . import model_zoo  # noqa: F401
from . import hooks  # noqa: F401,E402
from . import checkpoint  # noqa: F401,E402
from . import deterministic  # noqa: F401,E402


def __getattr__(name):
    # 0.x systems, imported on first use: serialization (load_lua) and ffi (cffi builds)
    if name in ("serialization", "ffi"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
