"""``utils.data._utils``: torch's home of the collate functions (``_utils.collate``), which
user code imports by that path and pickles name."""

from . import collate, pin_memory  # noqa: F401
