"""Case builders shared by the convolution path tests: ``conv(nd, **kw)`` and
``conv_t(nd, **kw)`` give ``fn(t, x, w, *b)`` for ``tests.oracle.check_op``, calling the
library's ``conv{nd}d`` / ``conv_transpose{nd}d`` (warnings both libraries give, such as
'same' padding with an even kernel, are silenced)."""

import warnings


def conv(nd, **kw):
    def fn(t, x, w, *b):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(t.nn.functional, f"conv{nd}d")(x, w, *b, **kw)
    return fn


def conv_t(nd, **kw):
    return lambda t, x, w, *b: getattr(t.nn.functional, f"conv_transpose{nd}d")(x, w, *b, **kw)
