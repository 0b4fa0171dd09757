"""``Function.apply`` with a ctx-less ``forward`` and ``setup_context``: how the call's
arguments reach ``forward`` and ``setup_context``'s ``inputs`` (defaults filled in, keywords
given by position) and torch's errors for a call that does not fit the signature."""

import pytest
import torch

import numtorch

SIGNATURES = {
    "x,y=1": lambda x, y=1: x * y,
    "x,y": lambda x, y: x * y,
    "x,y=1,*rest": lambda x, y=1, *rest: x * y,
    "x,y=1,*,k=2": lambda x, y=1, *, k=2: x * y * k,
    "x,y=1,**kw": lambda x, y=1, **kw: x * y,
}
CALLS = {
    "x": lambda t: ((t,), {}),
    "x,y=3": lambda t: ((t,), {"y": 3}),
    "x,3": lambda t: ((t, 3), {}),
    "x=t,y=3": lambda t: ((), {"x": t, "y": 3}),
    "x,3,4,5": lambda t: ((t, 3, 4, 5), {}),
    "x,z=3": lambda t: ((t,), {"z": 3}),
    "(none)": lambda t: ((), {}),
}


def _run(L, sig, call):
    seen = []

    class F(L.autograd.Function):
        forward = staticmethod(SIGNATURES[sig])

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen.append([("T", i.tolist()) if L.is_tensor(i) else i for i in inputs])

        @staticmethod
        def backward(ctx, *g):
            return (g[0] * 5,) + (None,) * 8

    t = L.tensor([1.0, 2.0], requires_grad=True)
    args, kwargs = CALLS[call](t)
    try:
        out = F.apply(*args, **kwargs)
    except TypeError as e:
        return ("TypeError", str(e).split("forward()")[-1])
    out.sum().backward()
    return seen, out.tolist(), t.grad.tolist()


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("sig", list(SIGNATURES))
def test_arguments_and_errors_match_torch(sig, call):
    assert _run(numtorch, sig, call) == _run(torch, sig, call)
