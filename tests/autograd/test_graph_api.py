"""``torch.autograd.graph``'s public API against torch: saved-tensor hooks (custom ones,
nesting, ``save_on_cpu``, ``disable_saved_tensors_hooks``), gradient edges,
``increment_version``, and the multithreading switch."""

import importlib

import torch

import numtorch


def _script(torch):
    G = importlib.import_module(torch.__name__ + ".autograd.graph")
    out, log = [], []

    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return ("box", t.detach().clone() * 1)

    def unpack(p):
        log.append(("unpack",))
        return p[1]

    def flush(name, *extra):
        out.append((name, list(log), *extra))
        log.clear()

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with G.saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()
    flush("forward")
    y.backward()
    flush("backward", x.grad.tolist())

    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    x.grad = None
    with G.saved_tensors_hooks(pack, unpack):
        z = F.apply(x).sum()
    flush("function forward")
    z.backward()
    flush("function backward", x.grad.tolist())
    with G.disable_saved_tensors_hooks("no hooks here"):
        try:
            with G.saved_tensors_hooks(pack, unpack):
                pass
        except RuntimeError as e:
            out.append(("disabled", str(e)))
    with G.save_on_cpu():
        w = (x * x).sum()
    w.backward()
    out.append(("save_on_cpu", x.grad.tolist()))
    with G.saved_tensors_hooks(pack, unpack):
        with G.saved_tensors_hooks(lambda t: log.append(("inner",)) or t, lambda p: p):
            (x * x).sum()
    flush("nested: the innermost hooks")
    with G.saved_tensors_hooks(pack, unpack):
        with torch.no_grad():
            x * x
    flush("no_grad saves nothing")
    a = torch.ones(2)
    v0 = a._version
    G.increment_version(a)
    out.append(("increment_version", a._version - v0))
    e = G.get_gradient_edge(x * 2)
    out.append(("edge", type(e).__name__, type(e.node).__name__, e.output_nr))
    e = G.get_gradient_edge(x)
    out.append(("leaf edge", type(e.node).__name__, e.output_nr))
    (g,) = torch.autograd.grad((x * 3).sum(), [G.get_gradient_edge(x)])
    out.append(("grad through an edge", g.tolist()))
    out.append(("multithreading", torch.autograd.is_multithreading_enabled()))
    with torch.autograd.set_multithreading_enabled(False):
        out.append(("multithreading off", torch.autograd.is_multithreading_enabled()))
    out.append(("multithreading after", torch.autograd.is_multithreading_enabled()))
    return out


def test_graph_api_matches_torch():
    assert _script(numtorch) == _script(torch)


def _second_order(lib):
    G = importlib.import_module(lib.__name__ + ".autograd.graph")
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with G.saved_tensors_hooks(lambda t: t.detach() * 1, lambda t: t):
        y = (x.sin() * x).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    return g.tolist(), gg.tolist()


def test_second_order_through_packed_tensors_matches_torch():
    got, want = _second_order(numtorch), _second_order(torch)
    for a, b in zip(got, want):
        assert all(abs(u - v) < 1e-6 for u, v in zip(a, b))
