"""The piece of the ``six`` package that super_resolution imports (``six.moves.urllib``): six
is not installed in the project's environment. Only on the runner's PYTHONPATH."""
from . import moves  # noqa: F401
