"""``numtorch.legacy``: the Lua-torch ``nn`` and ``optim`` packages of the 0.x docs.

``legacy.nn`` holds modules with Lua-torch's explicit ``forward``/``backward`` protocol
(``output`` and ``gradInput`` fields, ``accGradParameters``, ``updateParameters``) and
``legacy.optim`` the functional optimizers ``x, fs = optim.sgd(opfunc, x, config, state)``.
Both are written on numtorch's ops, so the math is the same code that ``numtorch.nn`` runs.
Lua's numbering is kept: dimensions, offsets, table positions and class/row indices count
from 1.
"""

from . import nn, optim  # noqa: F401

__all__ = ["nn", "optim"]
