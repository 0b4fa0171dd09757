"""Session 51 nn/optim parity fixes, each checked against real torch at test time (oracle:
``tests.oracle.same`` runs one lambda on both libraries and compares whatever comes out)."""

import pytest

from tests.oracle import same


# -- 1. grid_sample: a non-finite grid point sends the input no gradient (zeros padding) -------
def _grid_nan(t, mode, align_corners, bad, dims):
    if dims == 2:
        x = t.arange(9.0).reshape(1, 1, 3, 3).requires_grad_()
        pts = [[bad, 0.0], [0.3, bad], [0.2, -0.4]]
        grid = t.tensor([[pts]], requires_grad=True)
    else:
        x = t.arange(27.0).reshape(1, 1, 3, 3, 3).requires_grad_()
        pts = [[bad, 0.0, 0.1], [0.3, -0.2, bad], [0.2, -0.4, 0.5]]
        grid = t.tensor([[[pts]]], requires_grad=True)
    out = t.nn.functional.grid_sample(x, grid, mode=mode, padding_mode="zeros",
                                      align_corners=align_corners)
    (out * t.tensor([1.0, 2.0, 3.0]).reshape(out.shape)).sum().backward()
    return out, x.grad, grid.grad


@pytest.mark.parametrize("mode,dims", [("bilinear", 2), ("bicubic", 2), ("bilinear", 3),
                                       ("nearest", 2)])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("bad", ["nan", "inf"])
def test_grid_sample_nonfinite_point_input_grad(mode, dims, align_corners, bad):
    same(lambda t: _grid_nan(t, mode, align_corners, float(bad), dims), rtol=1e-5, atol=1e-6)


# -- 2. nn.parameter.UninitializedTensorMixin: the public base of the lazy placeholders --------
def _lazy_mixin(t):
    mixin = t.nn.parameter.UninitializedTensorMixin
    m = t.nn.LazyLinear(2)
    before = [isinstance(m.weight, mixin), isinstance(t.nn.parameter.UninitializedBuffer(), mixin),
              isinstance(t.nn.Parameter(t.ones(1)), mixin), mixin.__name__]
    m(t.ones(1, 3))
    return before, isinstance(m.weight, mixin), t.nn.parameter.is_lazy(m.weight)


def test_uninitialized_tensor_mixin():
    same(_lazy_mixin)


# -- 3. linear_cross_entropy: ignore_index with probability targets; nn.modules names ----------
@pytest.mark.parametrize("ignore_index", [None, 1, -100])
def test_linear_cross_entropy_prob_target_ignore_index(ignore_index):
    def f(t):
        g = t.Generator().manual_seed(0)
        x, w = t.randn(3, 4, generator=g), t.randn(5, 4, generator=g)
        target = t.softmax(t.randn(3, 5, generator=g), 1)
        return t.nn.functional.linear_cross_entropy(x, w, target, ignore_index=ignore_index)

    same(f, rtol=1e-5, atol=1e-6)


def test_linear_cross_entropy_in_nn_modules():
    same(lambda t: (t.nn.modules.LinearCrossEntropyLoss.__name__,
                    t.nn.modules.LinearCrossEntropyOptions.__name__,
                    t.nn.modules.LinearCrossEntropyLoss is t.nn.LinearCrossEntropyLoss))


# -- 4. l1_loss: a NaN difference has gradient 0 (torch's sign), not NaN ----------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_loss_nan_difference_grad(dtype, reduction):
    def f(t):
        dt = getattr(t, dtype)
        big = 3.0 if dtype == "complex64" else float("inf")
        a = t.tensor([float("nan"), 1.0, -2.0, 0.5, big], dtype=dt, requires_grad=True)
        b = t.tensor([0.0, float("nan"), 1.0, 0.5, 1.0], dtype=dt, requires_grad=True)
        out = t.nn.functional.l1_loss(a, b, reduction=reduction)
        s = out.sum()
        ga, gb = t.autograd.grad(s.real if s.is_complex() else s, [a, b])
        if dtype == "bfloat16":  # (the oracle reads bfloat16 through float32)
            return out.float(), ga.float(), gb.float()
        return out, ga, gb

    same(f, rtol=1e-6, atol=1e-6)


# -- 5. ASGD foreach=True on 16-bit parameters: torch's multi-tensor rounding ------------------
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("kw", [{}, {"weight_decay": 0.1}, {"t0": 1, "maximize": True}],
                         ids=["plain", "wd", "t0_max"])
def test_asgd_half_foreach(dtype, foreach, kw):
    def f(t):
        g = t.Generator().manual_seed(0)
        p = t.nn.Parameter(t.randn(16, generator=g).to(getattr(t, dtype)))
        opt = t.optim.ASGD([p], lr=0.1, foreach=foreach, **kw)
        for _ in range(3):
            opt.zero_grad()
            (p ** 3).sum().backward()
            opt.step()
        st = opt.state[p]
        return p.detach().float(), st["ax"].float(), st["eta"], st["mu"]

    same(f)


# -- 6. fused=True refuses complex parameters at step, as torch's kernels do -------------------
@pytest.mark.parametrize("name", ["Adam", "AdamW", "SGD", "Adagrad"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_fused_step_complex_param(name, dtype):
    def f(t):
        p = t.nn.Parameter(t.ones(2, dtype=getattr(t, dtype)))
        q = t.nn.Parameter(t.ones(2))
        opt = getattr(t.optim, name)([q, p], lr=0.1, fused=True)
        p.grad, q.grad = t.ones_like(p), t.ones_like(q)
        opt.step()
        return p.detach(), q.detach()

    same(f)


# -- 7. TransformerEncoderLayer inference fast path: plain relu / exact gelu ------------------
@pytest.mark.parametrize("act", ["gelu_tanh", "relu_subclass", "gelu_str"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_fast_path_activation(act, norm_first):
    def f(t):
        class Doubled(t.nn.ReLU):
            def forward(self, x):
                return x * 2

        activation = {"gelu_tanh": lambda: t.nn.GELU(approximate="tanh"),
                      "relu_subclass": Doubled, "gelu_str": lambda: "gelu"}[act]()
        t.manual_seed(0)
        layer = t.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=activation,
                                             batch_first=True, norm_first=norm_first)
        x = t.randn(2, 5, 8, generator=t.Generator().manual_seed(1)) * 3
        train_out = layer(x)
        layer.eval()
        with t.no_grad():
            fast = layer(x)
        return train_out.detach(), fast, layer(x).detach()

    same(f, rtol=1e-5, atol=1e-5)


# -- 8. torch.__future__ conversion switches: new parameter objects, or swapped contents -------
@pytest.mark.parametrize("mode", ["overwrite", "swap", "both", "neither"])
@pytest.mark.parametrize("convert", ["double", "float", "half_frozen", "cpu"])
def test_future_module_param_conversion(mode, convert):
    def f(t):
        fut = t.__future__
        fut.set_overwrite_module_params_on_conversion(mode in ("overwrite", "both"))
        fut.set_swap_module_params_on_conversion(mode in ("swap", "both"))
        try:
            m = t.nn.Linear(2, 2)
            p0 = m.weight
            p0.grad = t.ones(2, 2)
            g0 = p0.grad
            if convert == "half_frozen":
                p0.requires_grad_(False)
                m.half()
            else:
                getattr(m, convert)()
            w = m.weight
            return (w is p0, type(w).__name__, w.requires_grad, w.dtype, p0.dtype,
                    w.grad is g0, None if w.grad is None else w.grad.dtype, g0.dtype,
                    fut.get_overwrite_module_params_on_conversion(),
                    fut.get_swap_module_params_on_conversion())
        finally:
            fut.set_overwrite_module_params_on_conversion(False)
            fut.set_swap_module_params_on_conversion(False)

    same(f)


def test_future_names():
    same(lambda t: sorted(n for n in dir(t.__future__) if not n.startswith("_")))


# -- 9. optimizer state dicts of torch < 1.12: Python-number step counters load as tensors -----
@pytest.mark.parametrize("name", ["Adam", "AdamW", "Adagrad", "RMSprop", "Adadelta", "Adamax",
                                  "NAdam", "RAdam", "ASGD", "Rprop", "Adafactor", "SGD"])
@pytest.mark.parametrize("default64", [False, True])
def test_optimizer_load_number_step(name, default64):
    def f(t):
        old = t.get_default_dtype()
        t.set_default_dtype(t.float64 if default64 else t.float32)
        try:
            kw = {"momentum": 0.9} if name == "SGD" else {}
            cls = getattr(t.optim, name)
            p = t.nn.Parameter(t.ones(2, dtype=t.float32))
            opt = cls([p], lr=0.1, **kw)
            p.grad = t.ones(2, dtype=t.float32)
            opt.step()
            sd = opt.state_dict()
            st = dict(sd["state"][0])
            for k in ("step", "mu_product", "eta", "mu"):
                if k in st:
                    st[k] = int(st[k].item()) if k == "step" else st[k].item()
            sd = {"state": {0: st}, "param_groups": sd["param_groups"]}
            q = t.nn.Parameter(t.ones(2, dtype=t.float32))
            opt2 = cls([q], lr=0.1, **kw)
            opt2.load_state_dict(sd)
            counters = {k: (v.dtype, float(v)) for k, v in opt2.state[q].items()
                        if k in ("step", "mu_product", "eta", "mu")}
            q.grad = t.ones(2, dtype=t.float32)
            opt2.step()
            return counters, q.detach()
        finally:
            t.set_default_dtype(old)

    same(f, rtol=1e-6, atol=1e-7)


# -- 10. conv with fewer weight rows than groups: torch's 'at least' message ------------------
@pytest.mark.parametrize("wshape", [(2, 1, 2, 2), (4, 1, 2, 2), (1, 1, 2, 2)])
@pytest.mark.parametrize("fn", ["conv2d", "conv_transpose2d"])
def test_conv_groups_weight_rows(wshape, fn):
    same(lambda t: getattr(t.nn.functional, fn)(t.ones(1, 3, 3, 3), t.ones(*wshape), groups=3))


# -- 11. soft_margin_loss backward: torch's formula and rounding order ------------------------
@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_soft_margin_loss_grad_bits(dtype, reduction):
    def f(t):
        g = t.Generator().manual_seed(0)
        x = (t.randn(37, 11, generator=g) * 3).to(getattr(t, dtype)).requires_grad_()
        y = t.sign(t.randn(37, 11, generator=g)).to(getattr(t, dtype))
        out = t.nn.functional.soft_margin_loss(x, y, reduction=reduction)
        go = t.ones_like(out)
        (gx,) = t.autograd.grad(out, x, go)
        return (out.float(), gx.float(), out.grad_fn.name(), len(out.grad_fn.next_functions))

    same(f)


# -- 12. multilabel_soft_margin_loss: torch's composition (16-bit gradients bit-equal) --------
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_soft_margin_grad_bits(dtype, reduction, weighted):
    def f(t):
        g = t.Generator().manual_seed(0)
        dt = getattr(t, dtype)
        x = (t.randn(37, 11, generator=g) * 3).to(dt).requires_grad_()
        y = (t.rand(37, 11, generator=g) > 0.5).to(dt)
        w = t.rand(11, generator=g).to(dt) if weighted else None
        out = t.nn.functional.multilabel_soft_margin_loss(x, y, weight=w, reduction=reduction)
        (gx,) = t.autograd.grad(out, x, t.ones_like(out))
        return out.float(), gx.float()

    same(f)


def test_multilabel_soft_margin_infinite_scores():
    def f(t):
        x = t.tensor([[float("inf"), float("-inf"), 100.0, -100.0, 0.0]], requires_grad=True)
        out = t.nn.functional.multilabel_soft_margin_loss(x, t.tensor([[1.0, 0, 1, 0, 1]]))
        return out, t.autograd.grad(out, x)

    same(f, rtol=1e-6, atol=1e-7)


# -- 13. binary_cross_entropy_with_logits forward on float16/bfloat16: torch's op order ---------
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("extra", ["plain", "pos_weight", "weight", "both"])
def test_bce_with_logits_half_forward_bits(dtype, reduction, extra):
    def f(t):
        g = t.Generator().manual_seed(0)
        dt = getattr(t, dtype)
        x = (t.randn(64, 33, generator=g) * 4).to(dt).requires_grad_()
        y = t.rand(64, 33, generator=g).to(dt)
        pw = (t.rand(33, generator=g) * 3).to(dt) if extra in ("pos_weight", "both") else None
        w = t.rand(64, 1, generator=g).to(dt) if extra in ("weight", "both") else None
        out = t.nn.functional.binary_cross_entropy_with_logits(
            x, y, weight=w, pos_weight=pw, reduction=reduction)
        (gx,) = t.autograd.grad(out, x, t.ones_like(out))
        return out.float(), gx.float()

    same(f)


# -- 14. 2-norm backward in torch's order, (x / ||x||) * g: pairwise_distance, triplet loss ----
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("case", ["vector_norm", "pairwise_distance", "triplet", "all"])
def test_two_norm_backward_bits(dtype, case):
    def f(t):
        g = t.Generator().manual_seed(0)
        dt = getattr(t, dtype)
        a = (t.randn(23, 9, generator=g) * 2).to(dt).requires_grad_()
        b = (t.randn(23, 9, generator=g) * 2).to(dt)
        c = (t.randn(23, 9, generator=g) * 2).to(dt)
        if case == "vector_norm":
            out = t.linalg.vector_norm(a, 2, 1)
        elif case == "pairwise_distance":
            out = t.nn.functional.pairwise_distance(a, b)
        elif case == "triplet":
            out = t.nn.functional.triplet_margin_loss(a, b, c, reduction="none")
        else:
            out = a.norm()
        w = t.randn(tuple(out.shape), generator=g).to(dt)
        (ga,) = t.autograd.grad(out, a, w)
        return out.float(), ga.float()

    same(f)
