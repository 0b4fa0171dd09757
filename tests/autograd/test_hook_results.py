"""Autograd hooks against torch: what tensor hooks, node pre-hooks, node hooks and
post-accumulate-grad hooks may return (torch's errors otherwise), the order they run in, and
post-accumulate hooks under ``backward(inputs=...)``."""

import torch

import numtorch


def _returns(torch):
    out = []
    rets = {"bigger": lambda g: torch.zeros(3), "int": lambda g: 5,
            "double": lambda g: g.double(), "same": lambda g: g * 2,
            "scalar0d": lambda g: torch.tensor(1.), "int_dtype": lambda g: g.long(),
            "lambda_name": None}
    for name, r in rets.items():
        for where in ["leaf", "nonleaf"]:
            x = torch.tensor([1., 2.], requires_grad=True)
            y = x * 1
            t = x if where == "leaf" else y
            if r is None:
                t.register_hook(lambda g: torch.zeros(3))
            else:
                def hookfn(g, r=r): return r(g)
                t.register_hook(hookfn)
            try:
                (y * 3).sum().backward(); out.append((name, where, "ok", x.grad.tolist()))
            except Exception as e: out.append((name, where, type(e).__name__, str(e)))
    # post-accumulate
    for name, r in [("bigger", lambda t: torch.zeros(3)), ("same size", lambda t: torch.zeros(2)),
                    ("int", lambda t: 5), ("self", lambda t: t),
                    ("double", lambda t: torch.zeros(2, dtype=torch.float64))]:
        z = torch.tensor([1., 2.], requires_grad=True)
        def hookfn(t, r=r): return r(t)
        z.register_post_accumulate_grad_hook(hookfn)
        try: (z * 2).sum().backward(); out.append(("post", name, "ok", z.grad.tolist()))
        except Exception as e: out.append(("post", name, type(e).__name__, str(e)))
    # grad_fn hooks
    x = torch.tensor([1., 2.], requires_grad=True); y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (torch.zeros(3),))
    try: y.sum().backward(); out.append(("fn hook", x.grad.tolist()))
    except Exception as e: out.append(("fn hook", type(e).__name__, str(e)))
    x = torch.tensor([1., 2.], requires_grad=True); y = x * 2
    y.grad_fn.register_prehook(lambda go: (torch.zeros(3),))
    try: y.sum().backward(); out.append(("fn prehook", x.grad.tolist()))
    except Exception as e: out.append(("fn prehook", type(e).__name__, str(e)))
    x = torch.tensor([1., 2.], requires_grad=True); y = x * 2
    h = y.grad_fn.register_hook(lambda gi, go: None); out.append(("fn handle", type(h).__name__))
    h = x.register_hook(lambda g: None); out.append(("tensor handle", type(h).__name__))
    return out


def _post_accumulate(torch):
    out = []
    x = torch.tensor([1., 2.], requires_grad=True)
    h = x.register_post_accumulate_grad_hook(
        lambda t: out.append(("hook", t is x, t.grad.tolist())))
    (x * 3).sum().backward()
    (x * x).sum().backward()
    h.remove()
    (x * 3).sum().backward()
    out.append(("type", type(h).__name__))
    def t(name, f):
        try: f(); out.append((name, "ok"))
        except Exception as e: out.append((name, type(e).__name__, str(e)))
    t("nonleaf", lambda: (x * 2).register_post_accumulate_grad_hook(lambda t: None))
    t("no grad", lambda: torch.ones(2).register_post_accumulate_grad_hook(lambda t: None))
    y = torch.tensor([1., 2.], requires_grad=True)
    y.register_post_accumulate_grad_hook(lambda t: out.append(("y hook", t.grad.tolist())))
    torch.autograd.grad((y * 2).sum(), y)
    out.append(("after grad", y.grad))
    (y * 2).sum().backward(inputs=[y])
    def ret(t): return torch.zeros(2)
    z = torch.tensor([1.], requires_grad=True)
    z.register_post_accumulate_grad_hook(ret)
    t("returns value", lambda: (z * 2).sum().backward())
    order = []
    w = torch.tensor([1.], requires_grad=True)
    w.register_hook(lambda g: order.append("pre"))
    w.register_post_accumulate_grad_hook(lambda t: order.append("post"))
    (w * 2).sum().backward()
    out.append(("order", order))
    p = torch.nn.Parameter(torch.ones(1))
    p.register_post_accumulate_grad_hook(lambda t: (t.grad.mul_(10), None)[1])
    (p * 2).sum().backward(); out.append(("modify grad", p.grad.tolist()))
    return out


def test_hook_return_values_match_torch():
    assert _returns(numtorch) == _returns(torch)


def test_post_accumulate_grad_hooks_match_torch():
    assert _post_accumulate(numtorch) == _post_accumulate(torch)


def _order(lib):
    order = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * 3
    y.grad_fn.register_prehook(lambda go: order.append(("node pre", len(go))))
    y.register_hook(lambda g: order.append("tensor hook"))
    y.retain_grad()
    y.grad_fn.register_hook(lambda gi, go: order.append(("node hook", len(gi), len(go))))
    z.sum().backward()
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0] * 5,))
    y.sum().backward()
    order.append(("prehook replaces", x.grad.tolist()))
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (None, None))
    y.sum().backward()
    order.append(("hook drops", x.grad))
    acc = (x * 2).grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: order.append(("accumulator pre", [g.tolist() for g in go])))
    (x * 2).sum().backward()
    return order


def test_hook_order_and_replacement_match_torch():
    assert _order(numtorch) == _order(torch)
