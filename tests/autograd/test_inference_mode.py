"""inference_mode against torch: grad-mode interplay, inference tensors and their errors."""

import copy

import pytest
import torch

import numtorch


def _script(torch):
    """Every step"s result, or its exception class and message (run with either library)."""
    out = []

    def t(name, f):
        try:
            r = f()
            out.append((name, "OK", (r.is_inference(), r.requires_grad)
                        if isinstance(r, torch.Tensor) else r))
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            out.append((name, type(e).__name__, str(e)))

    t("outer", lambda: torch.is_grad_enabled())
    with torch.inference_mode():
        t("in", lambda: (torch.is_grad_enabled(), torch.is_inference_mode_enabled()))
        a = torch.ones(2)
        p = torch.nn.Parameter(torch.ones(2))
        t("param", lambda: p)
        t("a", lambda: a)
        with torch.inference_mode(False):
            t("in-false", lambda: (torch.is_grad_enabled(), torch.is_inference_mode_enabled()))
            b = torch.ones(2)
            t("b", lambda: b)
            w = torch.ones(2, requires_grad=True)
            t("y", lambda: w * 2)
            with torch.no_grad():
                with torch.inference_mode(False):
                    t("nested", lambda: torch.is_grad_enabled())
        with torch.enable_grad():
            t("inf->enable", lambda: (torch.is_grad_enabled(), torch.is_inference_mode_enabled()))
            w = torch.ones(2, requires_grad=True)
            t("inf->enable y", lambda: w * 2)
            t("inf->enable c", lambda: torch.ones(2))
        with torch.set_grad_enabled(True):
            t("set_grad", lambda: torch.is_grad_enabled())
    with torch.no_grad():
        with torch.inference_mode(False):
            t("nograd->inffalse",
              lambda: (torch.is_grad_enabled(), torch.is_inference_mode_enabled()))
        t("nograd after", lambda: torch.is_grad_enabled())
    t("after", lambda: (torch.is_grad_enabled(), torch.is_inference_mode_enabled()))
    w = torch.ones(2, requires_grad=True)
    normal = torch.ones(2)
    t("mul_save", lambda: w * a)
    t("add", lambda: w + a)
    t("a*2", lambda: a * 2)
    t("view", lambda: a.view(2))
    t("detach", lambda: a.detach())
    t("select", lambda: a[0])
    t("inplace", lambda: a.add_(1))
    t("a unchanged", lambda: a.tolist())
    t("mul_", lambda: a.mul_(2))
    t("zero_", lambda: a.zero_())
    t("fill_", lambda: a.fill_(3))
    t("copy_", lambda: a.copy_(normal))
    t("setitem", lambda: a.__setitem__(0, 1.0))
    t("view inplace", lambda: a.view(2).add_(1))
    t("inplace normal by inf", lambda: normal.add_(a))
    t("requires_grad_", lambda: a.requires_grad_())
    t("requires_grad_ False", lambda: a.requires_grad_(False))
    t("version", lambda: a._version)
    t("clone", lambda: a.clone())
    t("deepcopy", lambda: copy.deepcopy(a))
    t("matmul", lambda: w @ a)
    t("exp*", lambda: (w * 2) * a)
    t("linear", lambda: torch.nn.functional.linear(a[None], w[None]))
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(y)
            return x * 1
        @staticmethod
        def backward(ctx, g):
            return g, None
    t("custom save", lambda: F.apply(w, a))
    with torch.inference_mode():
        t("inplace in inf", lambda: a.add_(1))
        t("inplace normal in inf", lambda: normal.add_(1))
        t("normal version", lambda: normal._version)
        t("w*2 in inf", lambda: w * 2)
        t("rg inside", lambda: a.requires_grad_())
    t("is_inference fn", lambda: (torch.is_inference(a), torch.is_inference(normal)))
    t("is_inference bad", lambda: torch.is_inference(1))
    @torch.inference_mode()
    def deco():
        return torch.ones(1)
    t("deco", deco)
    @torch.inference_mode
    def deco2():
        return torch.ones(1)
    t("deco2", deco2)
    def gen():
        yield torch.ones(1)
        yield torch.is_inference_mode_enabled()
    g = torch.inference_mode()(gen)()
    t("gen1", lambda: next(g))
    t("gen2", lambda: next(g))
    t("gen after", lambda: torch.is_inference_mode_enabled())
    return out


def test_inference_mode_matches_torch_step_by_step():
    got, want = _script(numtorch), _script(torch)
    assert [g[0] for g in got] == [w[0] for w in want]
    for g, w in zip(got, want):
        assert g == w, g[0]


def test_inference_mode_state_is_restored_after_errors():
    with pytest.raises(ValueError):
        with numtorch.inference_mode():
            raise ValueError
    assert numtorch.is_grad_enabled() and not numtorch.is_inference_mode_enabled()
    x = numtorch.ones(2)
    assert not x.is_inference() and x._version == 0
