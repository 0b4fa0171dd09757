"""Session 47 nn/optim parity fixes, each checked against real torch at test time (oracle:
``tests.oracle.same`` runs one lambda on both libraries and compares whatever comes out)."""

import pytest

from tests.oracle import same

# -- 1. LBFGS: the strong-Wolfe search gets max_eval's remaining evaluations; complex params ----

def _lbfgs_run(t, line_search, max_iter, max_eval=None, steps=2):
    w = t.nn.Parameter(t.tensor([[0.5, -1.0], [2.0, 0.3]]))
    b = t.nn.Parameter(t.tensor([0.1, -0.2]))
    x = t.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])
    opt = t.optim.LBFGS([w, b], lr=0.5, max_iter=max_iter, max_eval=max_eval,
                        history_size=3, line_search_fn=line_search)

    def closure():
        opt.zero_grad()
        loss = ((x @ w + b).tanh() ** 2).sum() + (w ** 4).sum() * 0.1
        loss.backward()
        return loss

    losses = [opt.step(closure) for _ in range(steps)]
    st = opt.state[w]
    return losses, w, b, st["d"], st["func_evals"], st["n_iter"], float(st["t"])


@pytest.mark.parametrize("max_iter,max_eval", [(5, None), (3, None), (10, 1), (10, 2), (10, 5),
                                               (6, 40), (1, None)])
@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_eval_budget(line_search, max_iter, max_eval):
    """The line search may use only the evaluations left of ``max_eval`` (it took up to 25)."""
    same(lambda t: _lbfgs_run(t, line_search, max_iter, max_eval), rtol=1e-4, atol=1e-6)


def _lbfgs_complex(t, line_search, max_iter):
    w = t.nn.Parameter(t.tensor([1 + 1j, 2 - 1j]))
    v = t.nn.Parameter(t.tensor([0.5, -0.3]))
    opt = t.optim.LBFGS([w, v], max_iter=max_iter, line_search_fn=line_search, lr=0.3)

    def closure():
        opt.zero_grad()
        loss = ((w - (0.5 + 2j)).abs() ** 4).sum() + (v * w.real).pow(2).sum() + v.pow(4).sum()
        loss.backward()
        return loss

    losses = [opt.step(closure) for _ in range(2)]
    st = opt.state[w]
    return losses, w, v, st["d"], st["old_dirs"], st["func_evals"], st["n_iter"]


@pytest.mark.parametrize("max_iter", [1, 4])
@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_complex_params(line_search, max_iter):
    """A complex parameter counts as its (real, imag) pairs: the flat direction and history
    are real vectors twice its size (a complex dot product steered the search wrongly)."""
    same(lambda t: _lbfgs_complex(t, line_search, max_iter), rtol=1e-4, atol=1e-6)


# -- 2. SparseAdam refuses sparse and complex parameters when built -----------------------------

SPARSE_ADAM = {
    "sparse_param": lambda t: t.optim.SparseAdam(
        [t.nn.Parameter(t.ones(2)), t.zeros(2, 2).to_sparse().requires_grad_()]),
    "complex_param": lambda t: t.optim.SparseAdam(
        [{"params": [t.nn.Parameter(t.ones(2))]},
         {"params": [t.nn.Parameter(t.ones(2)),
                     t.nn.Parameter(t.ones(2, dtype=t.complex64))]}]),
    "dense_ok": lambda t: t.optim.SparseAdam([t.nn.Parameter(t.ones(2))]).param_groups[0]["lr"],
}


@pytest.mark.parametrize("name", sorted(SPARSE_ADAM))
def test_sparse_adam_param_checks(name):
    same(SPARSE_ADAM[name])


# -- 3. CyclicLR.load_state_dict takes '_scale_fn_custom' out of the given dict ------------------

def _cyclic_load(t):
    def make():
        p = t.nn.Parameter(t.zeros(2))
        opt = t.optim.SGD([p], lr=0.1, momentum=0.9)
        return opt, t.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2)
    opt, s = make()
    for _ in range(3):
        opt.step()
        s.step()
    sd = s.state_dict()
    opt2, s2 = make()
    s2.load_state_dict(sd)
    opt2.step()
    s2.step()
    return sorted(sd), "_scale_fn_custom" in sd, s2.get_last_lr(), s2.last_epoch


def test_cyclic_lr_load_state_dict():
    same(_cyclic_load)


# -- 4. scaled_dot_product_attention: grouped heads, shape errors -------------------------------

def _z(t, *s):
    n = 1
    for d in s:
        n *= d
    return t.cos(t.arange(n, dtype=t.float32) * 0.71).reshape(s)


def _sdpa(t, shapes, mask=None, **kw):
    args = [_z(t, *s).requires_grad_() for s in shapes]
    if mask is not None:
        args.append(mask(t))
    out = t.nn.functional.scaled_dot_product_attention(*args, **kw)
    out.sum().backward()
    return out, [a.grad for a in args[:3]]


def _bmask(t, *s):
    return (t.arange(s[-2] * s[-1]).reshape(s[-2:]) % 3 != 1).expand(*s)


SDPA = {
    "gqa_value_heads_full": {"shapes": [(2, 4, 3, 4), (2, 2, 5, 4), (2, 4, 5, 6)],
                                 "enable_gqa": True},
    "gqa_key_heads_full": {"shapes": [(2, 4, 3, 4), (2, 4, 5, 4), (2, 2, 5, 6)],
                               "enable_gqa": True},
    "gqa_mask": {"shapes": [(2, 4, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6)], "enable_gqa": True,
                     "mask": lambda t: _bmask(t, 3, 5)},
    "gqa_mask_bad": {"shapes": [(2, 4, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6)], "enable_gqa": True,
                         "mask": lambda t: _bmask(t, 3, 4)},
    "gqa_not_dividing": {"shapes": [(2, 3, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6)],
                             "enable_gqa": True},
    "gqa_not_dividing_value": {"shapes": [(2, 4, 3, 4), (2, 2, 5, 4), (2, 3, 5, 6)],
                                   "enable_gqa": True},
    "gqa_2d": {"shapes": [(3, 4), (5, 4), (5, 6)], "enable_gqa": True},
    "gqa_3d": {"shapes": [(4, 3, 4), (2, 5, 4), (2, 5, 6)], "enable_gqa": True},
    "one_dim": {"shapes": [(4,), (4,), (4,)]},
    "value_len_2d": {"shapes": [(3, 4), (5, 4), (6, 6)]},
    "value_len_3d": {"shapes": [(2, 3, 4), (2, 5, 4), (2, 6, 6)]},
    "value_len_4d_mask": {"shapes": [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 6, 6)],
                              "mask": lambda t: t.zeros(3, 5)},
    "bool_mask_bad_rows": {"shapes": [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6)],
                               "mask": lambda t: _bmask(t, 2, 5)},
    "bool_mask_bad_cols": {"shapes": [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6)],
                               "mask": lambda t: _bmask(t, 3, 4)},
    "bool_mask_bad_3d": {"shapes": [(2, 3, 4), (2, 5, 4), (2, 5, 6)],
                             "mask": lambda t: _bmask(t, 3, 3)},
    "bool_mask_ok": {"shapes": [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6)],
                         "mask": lambda t: _bmask(t, 2, 1, 3, 5)},
}


@pytest.mark.parametrize("name", sorted(SDPA))
def test_sdpa_heads_and_shapes(name):
    kw = dict(SDPA[name])
    same(lambda t: _sdpa(t, **kw), rtol=1e-5, atol=1e-6)


# -- 5. layer error messages: fractional_max_pool3d bounds, local_response_norm, embedding_bag --

def _frac3d(t, out, kernel=2):
    x = t.linspace(-1, 1, 210).reshape(1, 1, 5, 6, 7)
    return t.nn.functional.fractional_max_pool3d(
        x, kernel, output_size=out, _random_samples=t.full((1, 1, 3), 0.5),
        return_indices=True)


FRAC3D = {
    "fits": ((3, 4, 5), 2),
    "time_equal": ((4, 4, 5), 2),
    "height_equal": ((3, 5, 5), 2),
    "width_equal": ((3, 4, 6), 2),
    "height_and_width": ((3, 5, 6), 2),
    "kernel_h_only": ((4, 5, 7), (1, 2, 1)),
    "kernel_w_only": ((4, 5, 6), (1, 1, 2)),
    "kernel_t_ok": ((3, 5, 6), (2, 1, 1)),
}


@pytest.mark.parametrize("name", sorted(FRAC3D))
def test_fractional_max_pool3d_bounds(name):
    """torch's 3-d bounds check is strict (output + kernel - 1 < input) and goes time, width,
    height; the 2-d one allows equality."""
    out, kernel = FRAC3D[name]
    same(lambda t: _frac3d(t, out, kernel))


def test_fractional_max_pool2d_bound_equal():
    same(lambda t: t.nn.functional.fractional_max_pool2d(
        t.linspace(-1, 1, 30).reshape(1, 1, 5, 6), 2, output_size=(4, 5),
        _random_samples=t.full((1, 1, 2), 0.5)))


LAYER_ERRORS = {
    "lrn_2d": lambda t: t.nn.functional.local_response_norm(t.ones(2, 3), 2),
    "lrn_module_1d": lambda t: t.nn.LocalResponseNorm(2)(t.ones(3)),
    "bag_offset0_long": lambda t: t.nn.functional.embedding_bag(
        t.tensor([1, 2, 3]), t.ones(5, 2), t.tensor([2, 3])),
    "bag_offset0_int": lambda t: t.nn.functional.embedding_bag(
        t.tensor([1, 2, 3], dtype=t.int32), t.ones(5, 2), t.tensor([1, 3], dtype=t.int32)),
}


@pytest.mark.parametrize("name", sorted(LAYER_ERRORS))
def test_layer_error_messages(name):
    same(LAYER_ERRORS[name])


# -- 6. optimizer hyperparameters given as tensors: Adam's betas, the repr -----------------------

def _p(t):
    return [t.nn.Parameter(t.tensor([1.0, -2.0]))]


def _opt_view(opt):
    g = opt.param_groups[0]
    return repr(opt), g["lr"], g["betas"], opt.state_dict()["param_groups"][0]["lr"]


OPT_TENSOR_HP = {
    "adam_lr_0d": lambda t: _opt_view(t.optim.Adam(_p(t), lr=t.tensor(0.1))),
    "adam_lr_1d": lambda t: _opt_view(t.optim.Adam(_p(t), lr=t.tensor([0.1]))),
    "adam_lr_2d_f64": lambda t: _opt_view(
        t.optim.Adam(_p(t), lr=t.tensor([[0.1]], dtype=t.float64))),
    "adam_betas_1d": lambda t: _opt_view(
        t.optim.Adam(_p(t), betas=(t.tensor([0.9]), t.tensor([0.99])))),
    "adamw_betas_mixed": lambda t: _opt_view(
        t.optim.AdamW(_p(t), betas=(t.tensor(0.9), t.tensor([0.99])))),
    "nadam_betas_1d": lambda t: _opt_view(
        t.optim.NAdam(_p(t), betas=(t.tensor([0.9]), t.tensor([0.99])))),
    "sgd_lr_1d": lambda t: repr(t.optim.SGD(_p(t), lr=t.tensor([0.5]), momentum=0.9)),
}


@pytest.mark.parametrize("name", sorted(OPT_TENSOR_HP))
def test_optimizer_tensor_hyperparameters(name):
    same(OPT_TENSOR_HP[name])


def _adam_tensor_betas_steps(t):
    p = t.nn.Parameter(t.tensor([1.0, -2.0, 0.5]))
    opt = t.optim.Adam([p], lr=0.1, betas=(t.tensor([0.8]), t.tensor([0.9])))
    for _ in range(3):
        opt.zero_grad()
        (p ** 3).sum().backward()
        opt.step()
    return p, opt.state[p]["exp_avg"], opt.state[p]["step"]


def test_adam_tensor_betas_steps():
    same(_adam_tensor_betas_steps, rtol=1e-5, atol=1e-6)


# -- 7. clip_grad_norm_ / get_total_norm of float16 and bfloat16 gradients ----------------------

def _clip_half(t, dtype, norm_type, big):
    dt = getattr(t, dtype)
    w = t.nn.Parameter(t.ones(3, dtype=dt))
    v = t.nn.Parameter(t.ones(big, dtype=dt))
    w.grad = t.tensor([300.0, 0.1, -200.0], dtype=dt)
    v.grad = t.full((big,), 1.5, dtype=dt)
    total = t.nn.utils.get_total_norm([w.grad, v.grad], norm_type)
    norm = t.nn.utils.clip_grad_norm_([w, v], 1.0, norm_type=norm_type)
    return total.float(), norm.float(), str(norm.dtype), w.grad.float(), v.grad[:3].float()


@pytest.mark.parametrize("big", [4, 40000])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_clip_grad_norm_half(dtype, norm_type, big):
    """Squares of float16 gradients past 256 overflowed (norm inf, gradients zeroed) and
    bfloat16 sums lost their low bits: torch accumulates in float32 and rounds the norm (and the
    clip coefficient) to the gradients' dtype."""
    same(lambda t: _clip_half(t, dtype, norm_type, big))


# -- 8. float16 huber / smooth L1 losses round as torch's kernels; Adafactor on bfloat16 ---------

def _half_pair(t, n, scale):
    g = t.Generator().manual_seed(0)
    a = (t.randn(n, generator=g) * scale).half()
    b = (t.randn(n, generator=g) * scale).half()
    return a, b


HALF_LOSSES = {
    "huber_big": lambda t, a, b, r: t.nn.functional.huber_loss(a, b, delta=150.0, reduction=r),
    "huber_small": lambda t, a, b, r: t.nn.functional.huber_loss(a / 50, b / 60, delta=0.7,
                                                                 reduction=r),
    "smooth_l1_big": lambda t, a, b, r: t.nn.functional.smooth_l1_loss(a, b, beta=150.0,
                                                                       reduction=r),
    "smooth_l1_small": lambda t, a, b, r: t.nn.functional.smooth_l1_loss(a / 50, b / 60,
                                                                         beta=0.3, reduction=r),
    "mse": lambda t, a, b, r: t.nn.functional.mse_loss(a, b, reduction=r),
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", sorted(HALF_LOSSES))
def test_float16_pointwise_losses(name, reduction):
    """float16 huber losses of differences past 256 overflowed (d*d before the 0.5) and the
    smooth L1 / huber roundings differed: torch's huber works from the float32 difference and
    rounds once, its smooth L1 rounds 0.5 d^2, the quotient and |d| - beta/2 each."""
    def run(t):
        a, b = _half_pair(t, 3000, 100.0)
        out = HALF_LOSSES[name](t, a, b, reduction)
        return out.float(), str(out.dtype)
    same(run)


@pytest.mark.parametrize("shape", [(6,), (2, 3)])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_adafactor_half_params(dtype, shape):
    """Adafactor on bfloat16 parameters raised (NumPy's finfo knows no bfloat16)."""
    def run(t):
        w = t.nn.Parameter(t.linspace(-2, 3, 6).reshape(shape).to(getattr(t, dtype)))
        opt = t.optim.Adafactor([w])
        for _ in range(3):
            opt.zero_grad()
            (w.float() ** 3).sum().backward()
            opt.step()
        return w.float(), sorted(opt.state[w])
    same(run, rtol=2e-2, atol=1e-2)


# -- 9. soft_margin_loss overflows as torch's log1p(exp(-y x)) does -----------------------------

@pytest.mark.parametrize("reduction", ["none", "sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_soft_margin_loss_large_margins(dtype, reduction):
    """numtorch's stable softplus gave finite losses where torch's kernel overflows to inf (and
    its gradient to nan): margins past exp's range of the dtype."""
    def run(t):
        dt = getattr(t, dtype)
        x = t.tensor([-100.0, -20.0, 0.5, 50.0, 100.0, 800.0], dtype=dt, requires_grad=True)
        y = t.tensor([1.0, 1.0, -1.0, -1.0, -1.0, -1.0], dtype=dt)
        loss = t.nn.functional.soft_margin_loss(x, y, reduction=reduction)
        loss.sum().backward()
        return loss.float(), x.grad.float(), loss.grad_fn.name()
    same(run, rtol=1e-3, atol=1e-3)


def test_soft_margin_loss_values_exact():
    def run(t):
        g = t.Generator().manual_seed(0)
        x = t.randn(2000, generator=g) * 5
        y = t.sign(t.randn(2000, generator=g))
        return [t.nn.functional.soft_margin_loss(x.to(d), y.to(d), reduction="none").float()
                for d in (t.float32, t.float16, t.bfloat16)]
    same(run, rtol=1e-6)  # (float32 exp/log1p may differ from torch's SLEEF in the last bit)


# -- 10. binary_cross_entropy refuses NaN inputs and targets --------------------------------------

BCE_NAN = {
    "input_nan": ([float("nan"), 0.5], [0.5, 0.5]),
    "target_nan": ([0.5, 0.5], [float("nan"), 0.5]),
    "input_inf": ([float("inf")], [0.5]),
    "ok": ([0.25, 1.0, 0.0], [0.5, 1.0, 0.0]),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("name", sorted(BCE_NAN))
def test_bce_nan_range_check(name, dtype):
    x, y = BCE_NAN[name]
    same(lambda t: t.nn.functional.binary_cross_entropy(
        t.tensor(x, dtype=getattr(t, dtype)), t.tensor(y, dtype=getattr(t, dtype)),
        reduction="none").float())


# -- 11. embedding_bag with per_sample_weights on half types: products summed unrounded ---------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_embedding_bag_half_per_sample_weights(dtype):
    """Each weighted row was rounded to the half type before the bag sum; torch sums the
    products in float32 and rounds each bag once."""
    def run(t):
        g = t.Generator().manual_seed(0)
        w = (t.randn(50, 8, generator=g) * 3).to(getattr(t, dtype))
        idx = t.randint(0, 50, (300,), generator=g)
        psw = t.randn(300, generator=g).to(getattr(t, dtype))
        off = t.tensor([0, 7, 100, 101, 250])
        out = t.nn.functional.embedding_bag(idx, w, off, mode="sum", per_sample_weights=psw)
        out2 = t.nn.functional.embedding_bag(idx.reshape(30, 10), w, mode="sum",
                                             per_sample_weights=psw.reshape(30, 10),
                                             padding_idx=3)
        return out.float(), out2.float(), str(out.dtype)
    same(run)


# -- 12. user schedulers built on LRScheduler ----------------------------------------------------

def _warm_sched(t):
    class Warm(t.optim.lr_scheduler.LRScheduler):
        def __init__(self, opt, warm):
            self.warm = warm
            super().__init__(opt)

        def get_lr(self):
            return [b * min(1.0, (self.last_epoch + 1) / self.warm) for b in self.base_lrs]

    p = t.nn.Parameter(t.zeros(2))
    opt = t.optim.SGD([{"params": [p]}, {"params": [t.nn.Parameter(t.zeros(1))], "lr": 0.2}],
                      lr=0.1, momentum=0.9)
    s = Warm(opt, 3)
    out = [s.get_last_lr()]
    for _ in range(4):
        opt.step()
        s.step()
        out.append(s.get_last_lr())
    return out, sorted(s.state_dict())


SCHED_BASE = {
    "custom_warmup": _warm_sched,
    "base_without_get_lr": lambda t: t.optim.lr_scheduler.LRScheduler(
        t.optim.SGD([t.nn.Parameter(t.zeros(1))], lr=0.1)),
}


@pytest.mark.parametrize("name", sorted(SCHED_BASE))
def test_lr_scheduler_subclassing(name):
    """The base class's get_lr raises a bare NotImplementedError in torch (a RuntimeError
    with a message here before)."""
    same(SCHED_BASE[name])


# -- 13. Module.to parses its arguments as Tensor.to does ----------------------------------------

MODULE_TO = {
    "device_then_str_dtype": ("cpu", "float32"),
    "dtype_then_device": ("DT", "cpu"),
    "three_positional": ("cpu", "DT", "x"),
    "str_dtype_only": ("float32",),
    "bad_device": ("cuda:x",),
    "device_dtype": ("cpu", "DT"),
    "dtype_only": ("DT",),
}


@pytest.mark.parametrize("name", sorted(MODULE_TO))
def test_module_to_argument_forms(name):
    """Module.to accepted (dtype, device) and raised RuntimeError/other messages where torch's
    parser (shared with Tensor.to) raises its TypeError."""
    def run(t):
        args = [t.float64 if a == "DT" else a for a in MODULE_TO[name]]
        m = t.nn.Linear(2, 2).to(*args)
        return [(n, str(v.dtype)) for n, v in m.state_dict().items()]
    same(run)


def test_module_to_keywords():
    same(lambda t: [str(p.dtype) for p in t.nn.Linear(2, 2).to(
        device="cpu", dtype=t.float64, non_blocking=True).parameters()])
    same(lambda t: t.nn.Linear(2, 2).to(device="cpu", foo=1))


# -- 14. Rprop: a NaN gradient entry leaves its parameter unmoved (torch's sign(NaN) is 0) ------

@pytest.mark.parametrize("shape", [(), (3,)])
def test_rprop_nan_gradient(shape):
    def run(t):
        w = t.nn.Parameter(t.tensor([1.0, -2.0, 3.0])[:shape[0]] if shape else t.tensor(1.5))
        opt = t.optim.Rprop([w], lr=0.01)
        grads = ([float("nan"), 1.0, -1.0], [1.0, float("nan"), -1.0], [-1.0, 1.0, 1.0])
        for g in grads:
            w.grad = t.tensor(g) if shape else t.tensor(g[0])
            opt.step()
        st = opt.state[w]
        return w, st["prev"], st["step_size"]
    same(run)


# -- 15. interpolate(mode='area') to an output size of 0 is an empty result ----------------------

AREA_ZERO = {
    "1d_scale": lambda t: t.nn.functional.interpolate(t.ones(1, 2, 7), scale_factor=0.1,
                                                      mode="area"),
    "1d_size": lambda t: t.nn.functional.interpolate(t.ones(1, 2, 7), size=0, mode="area"),
    "2d_size": lambda t: t.nn.functional.interpolate(t.ones(1, 2, 7, 5), size=(0, 3),
                                                     mode="area"),
    "3d_size": lambda t: t.nn.functional.interpolate(t.ones(1, 1, 2, 3, 4), size=(1, 0, 2),
                                                     mode="area"),
    "nearest_refuses": lambda t: t.nn.functional.interpolate(t.ones(1, 2, 7), scale_factor=0.1),
    "linear_refuses": lambda t: t.nn.functional.interpolate(t.ones(1, 2, 7), size=0,
                                                            mode="linear"),
}


@pytest.mark.parametrize("name", sorted(AREA_ZERO))
def test_interpolate_area_zero_size(name):
    same(AREA_ZERO[name])


# -- 16. max_unpool: which invalid index the error names ---------------------------------------

UNPOOL_BAD = {
    "plane0_two_bad": [[0, 9, 1, 8], [1, 2, 3, 4]],
    "plane1_two_bad": [[0, 1, 2, 3], [9, 1, 8, 2]],
    "plane0_ascending": [[0, 8, 1, 9], [1, 2, 3, 4]],
    "negative": [[0, -1, 1, 7], [1, 2, 3, 4]],
}


@pytest.mark.parametrize("name", sorted(UNPOOL_BAD))
def test_max_unpool_invalid_index_reported(name):
    """torch names the last invalid index of the (first) plane holding one; numtorch named the
    first. (Planes with bad indices in several planes race in torch: not tested.)"""
    same(lambda t: t.nn.functional.max_unpool1d(
        t.ones(1, 2, 4), t.tensor(UNPOOL_BAD[name])[None], 2, stride=1, output_size=[5]))


# -- 17. convolution dtype-mismatch messages follow torch's kernel choice -------------------------

CONV_DT = {
    "conv1d_batch2": lambda t, d: t.nn.functional.conv1d(t.ones(2, 4, 9), t.ones(2, 4, 3, dtype=d)),
    "conv1d_batch1": lambda t, d: t.nn.functional.conv1d(t.ones(1, 4, 9), t.ones(2, 4, 3, dtype=d)),
    "conv1d_batch1_groups": lambda t, d: t.nn.functional.conv1d(
        t.ones(1, 4, 9), t.ones(2, 2, 3, dtype=d), groups=2),
    "conv2d_batch1": lambda t, d: t.nn.functional.conv2d(t.ones(1, 4, 7, 6),
                                                         t.ones(2, 4, 3, 3, dtype=d)),
    "conv2d_batch1_big_kernel": lambda t, d: t.nn.functional.conv2d(
        t.ones(1, 4, 7, 6), t.ones(2, 4, 4, 4, dtype=d)),
    "conv2d_batch1_large": lambda t, d: t.nn.functional.conv2d(t.ones(1, 4, 80, 70),
                                                               t.ones(2, 4, 3, 3, dtype=d)),
    "conv2d_unbatched": lambda t, d: t.nn.functional.conv2d(t.ones(4, 7, 6),
                                                            t.ones(2, 4, 3, 3, dtype=d)),
    "conv2d_batch2": lambda t, d: t.nn.functional.conv2d(t.ones(2, 4, 7, 6),
                                                         t.ones(2, 4, 3, 3, dtype=d)),
    "conv3d_batch2": lambda t, d: t.nn.functional.conv3d(t.ones(2, 4, 3, 7, 6),
                                                         t.ones(2, 4, 1, 3, 3, dtype=d)),
    "convT2d_batch4": lambda t, d: t.nn.functional.conv_transpose2d(
        t.ones(4, 3, 7, 6), t.ones(3, 2, 3, 3, dtype=d)),
    "bf16_input": lambda t, d: t.nn.functional.conv1d(t.ones(2, 4, 9, dtype=t.bfloat16),
                                                      t.ones(2, 4, 3, dtype=d)),
}


@pytest.mark.parametrize("wdtype", ["float64", "float16", "int64", "complex64"])
@pytest.mark.parametrize("name", sorted(CONV_DT))
def test_conv_dtype_mismatch_message(name, wdtype):
    """torch's mkldnn path (bfloat16; float32 1-d/2-d by its size heuristic) words the error
    'Input type (torch.FloatTensor) and weight type (...) should be the same ...', naming types
    without a legacy tensor class CPU...Type; the native path says 'expected scalar type'."""
    same(lambda t: CONV_DT[name](t, getattr(t, wdtype)))


# -- 18. convolution argument errors come in torch's order ----------------------------------------

CONV_ORDER = {
    "channels_before_weight_dtype_1d": lambda t: t.nn.functional.conv1d(
        t.ones(2, 3, 9), t.ones(2, 4, 3, dtype=t.float64)),
    "channels_before_weight_dtype_3d": lambda t: t.nn.functional.conv3d(
        t.ones(1, 3, 3, 7, 6), t.ones(2, 4, 1, 3, 3, dtype=t.float64)),
    "kernel_size_before_weight_dtype": lambda t: t.nn.functional.conv1d(
        t.ones(2, 4, 2), t.ones(2, 4, 3, dtype=t.float64)),
    "bias_dtype_before_channels": lambda t: t.nn.functional.conv1d(
        t.ones(2, 3, 9), t.ones(2, 4, 3), t.ones(2, dtype=t.float64)),
    "bias_dtype_before_bias_shape": lambda t: t.nn.functional.conv1d(
        t.ones(2, 4, 9), t.ones(2, 4, 3), t.ones(3, dtype=t.float64)),
    "transposed_channels_before_dtype": lambda t: t.nn.functional.conv_transpose1d(
        t.ones(2, 3, 9), t.ones(4, 2, 3, dtype=t.float64)),
    "transposed_output_padding_before_dtype": lambda t: t.nn.functional.conv_transpose1d(
        t.ones(2, 4, 9), t.ones(4, 2, 3, dtype=t.float64), output_padding=2),
    "transposed_output_padding_1d_stride": lambda t: t.nn.functional.conv_transpose1d(
        t.ones(2, 4, 9), t.ones(4, 2, 3), output_padding=2, stride=2),
    "transposed_bias_shape_first": lambda t: t.nn.functional.conv_transpose1d(
        t.ones(2, 4, 9), t.ones(4, 2, 3), t.ones(3, dtype=t.float64)),
}


@pytest.mark.parametrize("name", sorted(CONV_ORDER))
def test_conv_error_order(name):
    """torch checks a plain convolution's bias dtype first, then the shapes, then the weight
    dtype (a transposed one: shapes and output padding, then dtypes); numtorch checked dtypes
    before shapes. A 1-d transposed convolution's output-padding error spells 2-d sizes."""
    same(CONV_ORDER[name])


# -- 19. layer_norm: a bias of another dtype next to a matching weight ----------------------------

LN_DT = [("float32", "float32", "float64"), ("float32", "float64", "float32"),
         ("float32", None, "float64"), ("float64", "float64", "float32"),
         ("float16", "float16", "float32"), ("float16", "float32", None),
         ("float16", "float32", "float16")]


@pytest.mark.parametrize("xd,wd,bd", LN_DT)
def test_layer_norm_param_dtype_errors(xd, wd, bd):
    def run(t):
        w = None if wd is None else t.ones(3, dtype=getattr(t, wd))
        b = None if bd is None else t.ones(3, dtype=getattr(t, bd))
        return t.nn.functional.layer_norm(t.ones(2, 3, dtype=getattr(t, xd)), (3,), w, b).float()
    same(run)
