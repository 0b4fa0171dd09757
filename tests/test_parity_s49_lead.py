"""Lead's oracle tests of session 49: each compares numtorch with real torch at test time."""

import pytest
import torch as real

import numtorch as nt


def _outcome(lib, expr):
    x = lib.ones(3, 2)
    try:
        return "ok", eval(expr, {"x": x})
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("expr", [
    "x.size(axis=1)", "x.size(axis=-2)", "x.size(axis=None)", "x.size(0, axis=1)",
    "x.size(axis=1.0)", "x.size(axis=5)", "x.size(1.5)", "x.size(dim=1)",
])
def test_size_takes_numpy_axis_keyword(expr):
    def plain(result):
        kind, value = result
        return kind, tuple(value) if isinstance(value, tuple) else value

    assert plain(_outcome(nt, expr)) == plain(_outcome(real, expr))
