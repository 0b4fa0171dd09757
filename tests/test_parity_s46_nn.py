"""Session 46 nn/optim parity fixes, each checked against torch at test time."""

import math
import warnings

import pytest
import torch

import numtorch


def _plain(v):
    """A comparable form of a result: tensors as (dtype, shape, rounded values with NaN
    spelled out), containers element by element."""
    if isinstance(v, (torch.Tensor, numtorch.Tensor)):
        vals = v.detach().cpu().flatten().tolist()
        out = []
        for a in vals:
            if isinstance(a, float):
                out.append("nan" if math.isnan(a) else round(a, 5))
            else:
                out.append(a)
        return (str(v.dtype), tuple(v.shape), out)
    if isinstance(v, (list, tuple)):
        return type(v).__name__, [_plain(a) for a in v]
    if isinstance(v, dict):
        return {k: _plain(a) for k, a in v.items()}
    if isinstance(v, float):
        return "nan" if math.isnan(v) else round(v, 6)
    if isinstance(v, (torch.dtype, numtorch.dtype)):
        return str(v)
    return v


def _outcome(lib, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", _plain(fn(lib))
    except Exception as e:  # noqa: BLE001 - the class and message are compared
        return type(e).__name__, str(e)


def _same(fn):
    want = _outcome(torch, fn)
    assert _outcome(numtorch, fn) == want
    return want


# -- 1. recurrent layers refuse inputs and states of another dtype than their weights ------

_RNNS = ["RNN", "GRU", "LSTM"]
_CASES = [(w, h) for w in ("float64", "float32") for h in ("float32", "float64", "float16")
          if w != h]


@pytest.mark.parametrize("cls", _RNNS)
@pytest.mark.parametrize("wd,xd", _CASES + [("float64", "int64")])
@pytest.mark.parametrize("packed", [False, True])
def test_rnn_input_dtype_mismatch(cls, wd, xd, packed):
    def fn(t):
        t.manual_seed(0)
        m = getattr(t.nn, cls)(3, 2).to(getattr(t, wd))
        x = t.ones(4, 3).to(getattr(t, xd))
        if packed:
            x = t.nn.utils.rnn.pack_sequence([x])
        out = m(x)[0]
        return out.data if packed else out
    if packed and xd == "int64":
        pytest.skip("torch's pack_sequence of integers is not this test's subject")
    _same(fn)


@pytest.mark.parametrize("cls", _RNNS)
@pytest.mark.parametrize("wd,hd", _CASES)
@pytest.mark.parametrize("which", [0, 1])
def test_rnn_state_dtype_mismatch(cls, wd, hd, which):
    if which == 1 and cls != "LSTM":
        pytest.skip("only LSTM has a cell state")

    def fn(t):
        t.manual_seed(0)
        w = getattr(t, wd)
        m = getattr(t.nn, cls)(3, 2).to(w)
        s = [t.zeros(1, 2, dtype=w), t.zeros(1, 2, dtype=w)]
        s[which] = s[which].to(getattr(t, hd))
        return m(t.ones(4, 3, dtype=w), tuple(s) if cls == "LSTM" else s[0])[0]
    _same(fn)


@pytest.mark.parametrize("cls", _RNNS)
@pytest.mark.parametrize("name", ["weight_hh_l1", "bias_ih_l1"])
def test_rnn_recast_layer_weight_refused(cls, name):
    def fn(t):
        t.manual_seed(0)
        m = getattr(t.nn, cls)(3, 2, num_layers=2)
        p = getattr(m, name)
        p.data = p.data.double()
        return m(t.ones(4, 3))[0]
    _same(fn)


@pytest.mark.parametrize("cls", ["RNNCell", "GRUCell", "LSTMCell"])
@pytest.mark.parametrize("which", ["input", "hidden"])
def test_rnn_cells_refuse_mixed_dtypes(cls, which):
    def fn(t):
        t.manual_seed(0)
        m = getattr(t.nn, cls)(3, 2).double()
        x = t.ones(4, 3, dtype=t.float32 if which == "input" else t.float64)
        h = t.zeros(4, 2, dtype=t.float32 if which == "hidden" else t.float64)
        return m(x, (h, h.double()) if cls == "LSTMCell" else h)
    _same(fn)


# -- 2. scaled_dot_product_attention: is_causal with an explicit mask ------------------------

def _seq(t, *shape):
    return t.arange(math.prod(shape), dtype=t.float32).reshape(shape).sin()


@pytest.mark.parametrize("case", ["plain", "v_head6", "dropout", "kv_batch1", "kv_head1",
                                  "kv_head1_gqa", "five_d", "three_d", "float_mask"])
def test_sdpa_causal_with_mask_follows_torchs_kernel_choice(case):
    def fn(t):
        q, k, v = _seq(t, 2, 2, 3, 4), _seq(t, 2, 2, 5, 4).cos(), _seq(t, 2, 2, 5, 4) * 2
        kw = {"is_causal": True, "attn_mask": t.ones(3, 5, dtype=t.bool)}
        if case == "v_head6":
            v = _seq(t, 2, 2, 5, 6)
        elif case == "dropout":
            kw["dropout_p"] = 0.5
        elif case == "kv_batch1":
            k, v = k[:1], v[:1]
        elif case.startswith("kv_head1"):
            k, v = k[:, :1], v[:, :1]
            kw["enable_gqa"] = case.endswith("gqa")
        elif case == "five_d":
            q, k, v = q[None], k[None], v[None]
        elif case == "three_d":
            q, k, v = q[0], k[0], v[0]
        elif case == "float_mask":
            kw["attn_mask"] = _seq(t, 3, 5)
        out = t.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
        return out if case != "dropout" else out.shape
    _same(fn)


# -- 3. optimizers over named_parameters() ---------------------------------------------------

def _named_model(t):
    t.manual_seed(0)
    return t.nn.Sequential(t.nn.Linear(3, 2), t.nn.Linear(2, 1))


_NAMED_CASES = {
    "all_named": lambda t, m: [t.optim.SGD(m.named_parameters(), lr=0.1).param_groups],
    "mixed": lambda t, m: t.optim.SGD([("a", m[0].weight), m[0].bias], lr=0.1),
    "mixed_tail": lambda t, m: t.optim.SGD([m[0].bias, ("a", m[0].weight)], lr=0.1),
    "groups_named_then_not": lambda t, m: t.optim.SGD(
        [{"params": list(m[0].named_parameters()), "lr": 0.2}, {"params": m[1].parameters()}],
        lr=0.1),
    "groups_not_then_named": lambda t, m: t.optim.SGD(
        [{"params": m[0].parameters()}, {"params": m[1].named_parameters()}], lr=0.1),
    "add_named": lambda t, m: (lambda o: (o.add_param_group({"params": m[1].named_parameters()}),
                                          o.state_dict()["param_groups"]))(
        t.optim.Adam([{"params": list(m[0].named_parameters()), "lr": 0.2}], lr=0.1)),
    "short_tuple": lambda t, m: t.optim.SGD([("a",)], lr=0.1),
    "tuple_of_int": lambda t, m: t.optim.SGD([("a", 3)], lr=0.1),
    "reversed_tuple": lambda t, m: t.optim.SGD([(m[0].weight, "a")], lr=0.1),
    "dict_of_params": lambda t, m: t.optim.SGD(dict(m.named_parameters()), lr=0.1),
    "given_names": lambda t, m: t.optim.SGD(
        [{"params": m[0].parameters(), "param_names": ["x", "y"]}], lr=0.1).param_groups,
    "lbfgs": lambda t, m: repr(t.optim.LBFGS(m.named_parameters())),
}


@pytest.mark.parametrize("case", sorted(_NAMED_CASES))
def test_optimizer_takes_named_parameters(case):
    def fn(t):
        m = _named_model(t)
        out = _NAMED_CASES[case](t, m)
        if isinstance(out, list) and out and isinstance(out[0], list):  # param_groups
            out = [[{k: (v if k != "params" else len(v)) for k, v in g.items()} for g in gs]
                   for gs in out]
            out = [[list(g.items()) for g in gs] for gs in out]
        if isinstance(out, t.optim.Optimizer):
            out = repr(out)
        return out
    _same(fn)


@pytest.mark.parametrize("named_saved,named_loader", [(True, False), (False, True),
                                                      (True, True)])
def test_optimizer_state_dict_with_param_names_round_trip(named_saved, named_loader):
    def fn(t):
        m = _named_model(t)
        src = m.named_parameters() if named_saved else m.parameters()
        o = t.optim.Adam(src, lr=0.3, amsgrad=True)
        m(t.ones(2, 3)).sum().backward()
        o.step()
        sd = o.state_dict()
        o2 = t.optim.Adam(m.named_parameters() if named_loader else m.parameters(), lr=0.1)
        o2.load_state_dict(sd)
        m(t.ones(2, 3)).sum().backward()
        o2.step()
        groups = [[(k, v) for k, v in g.items() if k != "params"] for g in o2.param_groups]
        return groups, o2.state_dict()["param_groups"], list(m.parameters())
    _same(fn)


# -- 4. batch norm of a half input with float32 parameters or statistics ---------------------

@pytest.mark.parametrize("case", ["f32_module", "no_affine", "f32_stats_only", "f32_weight_only",
                                  "half_module", "no_params"])
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_batch_norm_mixed_half_input_rounds_once(case, dt):
    if dt == "bfloat16" and case in ("no_params", "half_module"):
        pytest.skip("torch's all-bfloat16 kernel without parameters is not modelled exactly")

    def fn(t):
        x = (_seq(t, 8, 3, 7) * 3 + 1).to(getattr(t, dt))
        h = getattr(t, dt)
        w = b = rm = rv = None
        if case in ("f32_module", "half_module", "f32_weight_only"):
            w, b = t.linspace(0.5, 2, 3), t.linspace(-1, 1, 3)
        if case in ("f32_module", "half_module", "no_affine", "f32_stats_only"):
            rm, rv = t.linspace(0, 1, 3), t.linspace(1, 2, 3)
        if case == "half_module":
            w, b, rm, rv = (v.to(h) for v in (w, b, rm, rv))
        y = t.nn.functional.batch_norm(x, rm, rv, w, b, training=True)
        return y.float(), rm, rv
    _same(fn)


# -- 5. convolution initialisation corners ---------------------------------------------------

@pytest.mark.parametrize("cls,args", [("Conv1d", (0, 5, 3)), ("Conv2d", (0, 2, 3)),
                                      ("ConvTranspose2d", (0, 2, 3)), ("Conv3d", (0, 1, 1))])
def test_conv_without_input_channels_draws_a_zero_bias(cls, args):
    def fn(t):
        t.manual_seed(0)
        m = getattr(t.nn, cls)(*args)
        return m.bias, t.rand(2)  # the bias is drawn (zeros), so the generator moved on
    _same(fn)


@pytest.mark.parametrize("cls,fmt", [("Conv2d", "channels_last"),
                                     ("ConvTranspose2d", "channels_last"),
                                     ("Conv3d", "channels_last_3d")])
def test_conv_reset_parameters_of_channels_last_weight_draws_row_major(cls, fmt):
    def fn(t):
        t.manual_seed(0)
        m = getattr(t.nn, cls)(4, 6, 3).to(memory_format=getattr(t, fmt))
        m.reset_parameters()
        return m.weight, m.bias, m.weight.is_contiguous(memory_format=getattr(t, fmt))
    _same(fn)


# -- 6. CTC loss corners and AdaptiveLogSoftmaxWithLoss's batch-size text ---------------------

def _ctc_inputs(t):
    t.manual_seed(0)
    lp = t.randn(6, 3, 5).log_softmax(2)
    return lp, t.tensor([6, 5, 4]), t.tensor([3, 2, 2])


@pytest.mark.parametrize("blank", [1, 2, 4])
@pytest.mark.parametrize("reduction", ["none", "sum"])
def test_ctc_targets_holding_the_blank_label(blank, reduction):
    def fn(t):
        lp, il, tl = _ctc_inputs(t)
        lp.requires_grad_(True)
        tg = t.tensor([[1, 2, 2], [3, 1, 0], [4, 2, 4]])
        loss = t.nn.functional.ctc_loss(lp, tg, il, tl, blank=blank, reduction=reduction)
        loss.sum().backward()
        return loss, lp.grad
    _same(fn)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_ctc_refuses_half_on_cpu(dt):
    def fn(t):
        lp, il, tl = _ctc_inputs(t)
        return t.nn.functional.ctc_loss(lp.to(getattr(t, dt)), t.tensor([[1, 2, 2]] * 3), il, tl)
    _same(fn)


def test_adaptive_log_softmax_batch_size_mismatch_text():
    def fn(t):
        t.manual_seed(0)
        m = t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6])
        return m(t.randn(5, 8), t.tensor([0, 4, 9]))
    _same(fn)


# -- 7. full backward hooks of a module whose output is not a tensor or a tuple --------------

@pytest.mark.parametrize("kind", ["dict", "list"])
def test_full_backward_hook_silent_for_untapped_outputs(kind):
    def fn(t):
        calls = []

        class M(t.nn.Module):
            def forward(self, x):
                return {"y": x * 2} if kind == "dict" else [x * 2]

        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: calls.append("full"))
        m.register_full_backward_pre_hook(lambda mod, go: calls.append("pre"))
        x = t.ones(2, requires_grad=True)
        out = m(x)
        (out["y"] if kind == "dict" else out[0]).sum().backward()
        return calls, x.grad
    _same(fn)


# -- 8. complex parameters step as pairs of reals; complex gradients' norms -----------------

_COMPLEX_OPTS = [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.1, "amsgrad": True}),
                 ("AdamW", {"lr": 0.1}), ("RMSprop", {"centered": True, "momentum": 0.2}),
                 ("Adagrad", {}), ("Adadelta", {}), ("NAdam", {}), ("RAdam", {}),
                 ("Adamax", {}), ("ASGD", {}), ("Rprop", {}),
                 ("Adam", {"lr": 0.1, "foreach": False, "maximize": True})]


@pytest.mark.parametrize("name,kw", _COMPLEX_OPTS, ids=[f"{n}{i}" for i, (n, _) in
                                                       enumerate(_COMPLEX_OPTS)])
def test_optimizers_step_complex_parameters_as_real_pairs(name, kw):
    def fn(t):
        t.manual_seed(0)
        w = t.nn.Parameter(t.randn(2, 3, dtype=t.complex64))
        o = getattr(t.optim, name)([w], **kw)
        for _ in range(3):
            o.zero_grad()
            ((w * w.conj()).real.sum() + (w.real * 2).sum() - w.imag.sum()).backward()
            o.step()
        return t.view_as_real(w.detach())
    want = _outcome(torch, fn)
    got = _outcome(numtorch, fn)
    assert got[0] == want[0] == "ok"
    assert got[1][:2] == want[1][:2]
    assert got[1][2] == pytest.approx(want[1][2], abs=1e-4)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3.0])
def test_clip_grad_norm_of_complex_gradients(norm_type):
    def fn(t):
        w = t.nn.Parameter(t.zeros(3, dtype=t.complex64))
        w.grad = t.tensor([3 + 4j, 0, 1j], dtype=t.complex64)
        n = t.nn.utils.clip_grad_norm_([w], 1.0, norm_type=norm_type)
        return n, t.view_as_real(w.grad)
    _same(fn)


@pytest.mark.parametrize("fn_name,args", [
    ("normal_", ()), ("normal_", (1.0, 2.0)), ("kaiming_normal_", ()), ("xavier_normal_", ()),
    ("uniform_", ())])
def test_init_of_complex_tensors_fills_both_parts(fn_name, args):
    def fn(t):
        t.manual_seed(0)
        w = getattr(t.nn.init, fn_name)(t.empty(3, 4, dtype=t.complex64), *args)
        return t.view_as_real(w), t.rand(1)
    _same(fn)


@pytest.mark.parametrize("case", ["mse", "mse_none", "mse_real_complex", "mse_weight",
                                  "smooth_l1", "smooth_l1_beta0", "huber", "huber_weight", "l1",
                                  "mse_cdouble"])
def test_regression_losses_on_complex_values(case):
    def fn(t):
        F = t.nn.functional
        a = t.tensor([1 + 2j, 3 - 1j])
        b = t.tensor([0.5 + 1j, 2 + 2j])
        calls = {"mse": lambda: F.mse_loss(a, b), "mse_none": lambda: F.mse_loss(a, b, reduction="none"),
                 "mse_real_complex": lambda: F.mse_loss(a.real, b),
                 "mse_weight": lambda: F.mse_loss(a, b, weight=t.ones(2)),
                 "smooth_l1": lambda: F.smooth_l1_loss(a, b),
                 "smooth_l1_beta0": lambda: F.smooth_l1_loss(a, b, beta=0.0),
                 "huber": lambda: F.huber_loss(a, b),
                 "huber_weight": lambda: F.huber_loss(a, b, weight=t.ones(2)),
                 "l1": lambda: F.l1_loss(a, b),
                 "mse_cdouble": lambda: F.mse_loss(a.to(t.complex128), b.to(t.complex128))}
        out = calls[case]()
        return t.view_as_real(out) if out.is_complex() else out
    _same(fn)


def test_orthogonal_init_refuses_complex_after_drawing():
    def fn(t):
        t.manual_seed(0)
        try:
            t.nn.init.orthogonal_(t.empty(2, 3, dtype=t.complex64))
        except NotImplementedError as e:
            return str(e), t.rand(2)
        return None
    _same(fn)


@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True}])
def test_complex_elman_rnn_gradients(kw):
    def fn(t):
        t.manual_seed(0)
        m = t.nn.RNN(3, 2, dtype=t.complex64, **kw)
        x = t.randn(4, 3, dtype=t.complex64, requires_grad=True)
        out, h = m(x)
        ((out.abs() ** 2).sum() + h.real.sum()).backward()
        return [t.view_as_real(v) for v in [out.detach(), x.grad] +
                [p.grad for p in m.parameters()]]
    want = _outcome(torch, fn)
    got = _outcome(numtorch, fn)
    assert got[0] == want[0] == "ok"
    for g, w in zip(got[1][1], want[1][1]):
        assert g[:2] == w[:2]
        assert g[2] == pytest.approx(w[2], rel=2e-4, abs=1e-4)


def test_complex_lstm_cell_gradients():
    def fn(t):
        t.manual_seed(0)
        m = t.nn.LSTMCell(3, 2, dtype=t.complex64)
        x = t.randn(4, 3, dtype=t.complex64, requires_grad=True)
        h, c = m(x)
        ((h.abs() ** 2).sum() + c.real.sum()).backward()
        return [t.view_as_real(v) for v in [h.detach(), x.grad] + [p.grad for p in m.parameters()]]
    want = _outcome(torch, fn)
    got = _outcome(numtorch, fn)
    assert got[0] == want[0] == "ok"
    for g, w in zip(got[1][1], want[1][1]):
        assert g[:2] == w[:2]
        assert g[2] == pytest.approx(w[2], rel=2e-4, abs=1e-4)


@pytest.mark.parametrize("cls,kw", [("GRU", {}), ("GRU", {"num_layers": 2, "bidirectional": True}),
                                    ("LSTM", {}), ("LSTM", {"bidirectional": True, "proj_size": 1})])
def test_complex_gru_lstm_sequence_gradients(cls, kw):
    def fn(t):
        t.manual_seed(0)
        m = getattr(t.nn, cls)(3, 2, dtype=t.complex64, **kw)
        x = t.randn(4, 3, dtype=t.complex64, requires_grad=True)
        out = m(x)[0]
        (out.abs() ** 2).sum().backward()
        return [t.view_as_real(v) for v in [out.detach(), x.grad] +
                [p.grad for p in m.parameters()]]
    want = _outcome(torch, fn)
    got = _outcome(numtorch, fn)
    assert got[0] == want[0] == "ok"
    for g, w in zip(got[1][1], want[1][1]):
        assert g[:2] == w[:2]
        assert g[2] == pytest.approx(w[2], rel=2e-4, abs=1e-3)  # float32 through 2 layers
