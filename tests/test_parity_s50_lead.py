"""Lead's oracle tests of session 50: each compares numtorch with real torch at test time."""

import numpy as np
import pytest
import torch as real

import numtorch as nt


def _outcome(lib, expr):
    x = lib.ones(3)
    try:
        r = eval(expr, {"x": x, "t": lib, "np": np})
        return "ok", r.tolist()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("expr", [
    # a tensor method's argument errors count positions after self, as torch's parser does
    "x.add('a')", "x.mul(None)", "x.sub([1])", "x.div('a')",
    "t.add(x, 'a')", "t.mul(x, None)", "x.index_select(0, [0])",
    # alpha must be a Number (the in-place fast path took a list as a repeat count)
    "x.add(1, alpha='a')", "x.sub(1, alpha=None)", "x.add_(1, alpha=[1])",
    "x.sub_(x, alpha='a')", "x.add_(x, alpha=[2])", "t.add(x, x, alpha=[1])",
    "x.add_(1, alpha=np.float32(2))", "x.add_(x, alpha=np.int64(3))", "x.sub_(1, alpha=0.5)",
    "x.add_(1, alpha=True)", "x.add_(1, alpha=1j)",
])
def test_argument_errors_match_torch(expr):
    assert _outcome(nt, expr) == _outcome(real, expr)
