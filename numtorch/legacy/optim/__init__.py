"""``numtorch.legacy.optim``: Lua-torch's ``optim`` package.

Every optimizer is a function ``x, fs = optim.<name>(opfunc, x, config, state)``: ``opfunc``
maps the flat parameter tensor ``x`` to ``(f(x), df/dx)``, ``x`` is updated in place,
``config`` holds the hyper-parameters under Lua's names and ``state`` (``config`` when
omitted) keeps the optimizer's buffers between calls.
"""

from .first_order import sgd, nag, asgd, adagrad, adadelta, rmsprop, adam, adamax, rprop
from .cg import cg
from .lbfgs import lbfgs, lswolfe

__all__ = ["sgd", "nag", "asgd", "adagrad", "adadelta", "rmsprop", "adam", "adamax", "rprop",
           "cg", "lbfgs", "lswolfe"]
