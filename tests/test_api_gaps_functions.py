"""torch's top-level function forms against torch: in-place functions (``torch.exp_``),
dropout/normalization/embedding forms with ATen's argument order, ``native_*`` tuples,
losses with int reductions, raw-weight recurrent cells, convolution entry points, view
copies and splits, small queries and process switches."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, same

rng = np.random.default_rng(0)


def _arr(*shape, low=-2.0, high=2.0, dtype="float64"):
    return rng.uniform(low, high, shape).astype(dtype)


def _pair(a):
    return numtorch.from_numpy(a.copy()), torch.from_numpy(a.copy())


# -- in-place functions --------------------------------------------------------------------

UNARY_INPLACE = ["abs_", "ceil_", "cos_", "exp_", "expm1_", "floor_", "frac_", "neg_",
                 "negative_", "reciprocal_", "relu_", "round_", "sigmoid_", "sin_", "sinh_",
                 "tan_", "tanh_", "trunc_", "fix_", "square_", "erf_", "erfc_", "exp2_",
                 "deg2rad_", "rad2deg_", "atan_", "asinh_", "arctan_", "sinc_", "zero_",
                 "detach_", "i0_", "cosh_"]
POSITIVE_INPLACE = ["log_", "log10_", "log1p_", "log2_", "sqrt_", "rsqrt_", "acosh_",
                    "arccosh_"]
UNIT_INPLACE = ["acos_", "asin_", "atanh_", "arccos_", "arcsin_", "arctanh_", "logit_"]


@pytest.mark.parametrize("name", UNARY_INPLACE + POSITIVE_INPLACE + UNIT_INPLACE)
def test_unary_inplace_functions(name):
    low, high = (-2.0, 2.0)
    if name in POSITIVE_INPLACE:
        low, high = 1.1, 3.0
    if name in UNIT_INPLACE:
        low, high = 0.05, 0.95
    a = _arr(3, 4, low=low, high=high)

    def fn(t):
        x = t.from_numpy(a.copy())
        y = getattr(t, name)(x)
        return y is x, x

    same(fn, rtol=1e-12, atol=1e-12)


def test_inplace_functions_with_arguments():
    a, b = _arr(3, 4), _arr(3, 4)
    cases = [
        lambda t, x, y: t.clamp_(x, -0.5, 0.5), lambda t, x, y: t.clamp_min_(x, 0.1),
        lambda t, x, y: t.clamp_max_(x, 0.1), lambda t, x, y: t.clip_(x, max=0.3),
        lambda t, x, y: t.fill_(x, 2.5), lambda t, x, y: t.xlogy_(x.abs(), y.abs()),
        lambda t, x, y: t.ldexp_(x, t.ones(3, 4)), lambda t, x, y: t.nan_to_num_(x / 0.0),
        lambda t, x, y: t.addmv_(t.ones(3), x, y[0]), lambda t, x, y: t.celu_(x, 2.0),
        lambda t, x, y: t.selu_(x), lambda t, x, y: t.threshold_(x, 0.1, 20.0),
        lambda t, x, y: t.rrelu_(x), lambda t, x, y: t.dropout_(x, 0.0, True),
        lambda t, x, y: t.alpha_dropout_(x, 0.5, False),
        lambda t, x, y: t.feature_dropout_(x, 0.0, True),
        lambda t, x, y: t.feature_alpha_dropout_(x, 0.0, True),
    ]
    for case in cases:
        def fn(t, case=case):
            x, y = t.from_numpy(a.copy()), t.from_numpy(b.copy())
            out = case(t, x, y)
            return out is x, x

        same(fn, rtol=1e-12, atol=1e-12)


def test_inplace_gcd_lcm_index_put():
    a = np.array([[4, 6, 9], [10, 12, 15]])
    same(lambda t: t.gcd_(t.from_numpy(a.copy()), t.tensor([2, 4, 6])))
    same(lambda t: t.lcm_(t.from_numpy(a.copy()), t.tensor([2, 4, 6])))
    same(lambda t: t.index_put_(t.zeros(5), (t.tensor([1, 3]),), t.tensor([7.0, 8.0])))


def test_inplace_function_errors():
    same(lambda t: t.abs_(3))
    same(lambda t: t.relu_([1.0]))
    same(lambda t: t.clamp_(t.ones(2)))
    same(lambda t: t.exp_(t.ones(2, dtype=t.long)))
    same(lambda t: t.dropout_(t.ones(3), 1.5, True))
    same(lambda t: t.feature_dropout(t.ones(4), 0.5, True))


def test_inplace_function_autograd():
    a = _arr(3, 4)
    check_op(lambda t, x: t.tanh_(x * 1.0), [a])
    check_op(lambda t, x: t.clamp_(x * 2.0, -1.0, 1.0), [a], second_order=False)
    check_op(lambda t, x: t.selu_(x + 0.0), [a])


def test_embedding_renorm_():
    w = _arr(6, 3)
    same(lambda t: t.embedding_renorm_(t.from_numpy(w.copy()), t.tensor([0, 1, 1, 4]), 1.0,
                                       2.0), rtol=1e-12)
    same(lambda t: t.embedding_renorm_(t.from_numpy(w.copy()), t.tensor([2, 5]), 0.5, 1.0),
         rtol=1e-12)


# -- dropout forms ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_dropout",
                                  "feature_alpha_dropout"])
def test_dropout_forms_identity_and_errors(name):
    a = _arr(4, 3, 5)
    check_op(lambda t, x: getattr(t, name)(x, 0.3, False), [a])
    check_op(lambda t, x: getattr(t, name)(x, 0.0, True), [a])
    same(lambda t: getattr(t, name)(t.ones(2, 3), -0.1, True))
    same(lambda t: getattr(t, name)(t.ones(2, 3), 1.1, True))
    same(lambda t: getattr(t, name)(3, 0.5, True))


def test_dropout_forms_statistics():
    numtorch.manual_seed(0)
    x = numtorch.ones(200, 300)
    y = numtorch.dropout(x, 0.25, True)
    kept = (y != 0).double().mean().item()
    assert abs(kept - 0.75) < 0.01
    assert numtorch.allclose(y[y != 0], numtorch.tensor(1 / 0.75))
    y = numtorch.feature_dropout(numtorch.ones(50, 40, 7), 0.5, True)
    # whole channels are dropped together
    per_channel = y.amax(-1) - y.amin(-1)
    assert (per_channel == 0).all()
    y = numtorch.dropout(x, 1.0, True)
    assert (y == 0).all()


def test_native_dropout():
    a = _arr(4, 5)
    same(lambda t: t.native_dropout(t.from_numpy(a), 0.3, False))
    numtorch.manual_seed(0)
    x = numtorch.from_numpy(a).requires_grad_()
    out, mask = numtorch.native_dropout(x, 0.4, True)
    assert mask.dtype == numtorch.bool and mask.shape == x.shape
    assert numtorch.allclose(out, x.detach() * mask / 0.6)
    out.backward(numtorch.ones(4, 5))
    assert numtorch.allclose(x.grad, mask.double() / 0.6)
    out, mask = numtorch.native_dropout(x, 1.0, None)
    assert not mask.any() and (out == 0).all()


# -- normalization forms ------------------------------------------------------------------

def test_norm_forms_values_and_gradients():
    x, w, b = _arr(4, 3, 5), _arr(3), _arr(3)
    rm, rv = _arr(3), _arr(3, low=0.5, high=2.0)
    check_op(lambda t, x, w, b: t.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
             [x, w, b])
    check_op(lambda t, x, w, b: t.batch_norm(x, w, b, t.from_numpy(rm), t.from_numpy(rv),
                                             False, 0.1, 1e-5, False), [x, w, b])
    check_op(lambda t, x, w, b: t.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
             [x, w, b])
    check_op(lambda t, x, w, b: t.layer_norm(x, [5], w, b, 1e-5), [x, _arr(5), _arr(5)])
    check_op(lambda t, x, w, b: t.group_norm(x, 3, w, b), [x, w, b])
    check_op(lambda t, x, w: t.rms_norm(x, (3, 5), w), [x, _arr(3, 5)])


def test_batch_norm_running_stats_updated():
    x = _arr(6, 3, 4)

    def fn(t):
        m, v = t.zeros(3, dtype=t.float64), t.ones(3, dtype=t.float64)
        out = t.batch_norm(t.from_numpy(x), None, None, m, v, True, 0.3, 1e-5, True)
        return out, m, v

    same(fn, rtol=1e-10, atol=1e-12)


def test_native_norms():
    x = _arr(4, 3, 5)
    check_op(lambda t, x, w, b: t.native_layer_norm(x, [3, 5], w, b, 1e-5)[0],
             [x, _arr(3, 5), _arr(3, 5)])
    same(lambda t: t.native_layer_norm(t.from_numpy(x), [5], None, None, 1e-5), rtol=1e-10,
         atol=1e-12)
    same(lambda t: t.native_layer_norm(t.from_numpy(x).float(), [5], None, None, 1e-5),
         rtol=1e-5, atol=1e-6)
    check_op(lambda t, x: t.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)[0],
             [x])

    def bn(t, training):
        m, v = t.zeros(3, dtype=t.float64), t.ones(3, dtype=t.float64)
        return t.native_batch_norm(t.from_numpy(x), None, None, m, v, training, 0.1, 1e-5), m, v

    same(lambda t: bn(t, True), rtol=1e-10, atol=1e-12)
    same(lambda t: bn(t, False), rtol=1e-10, atol=1e-12)
    same(lambda t: t.native_group_norm(t.from_numpy(x), None, None, 4, 3, 5, 3, 1e-5),
         rtol=1e-10, atol=1e-12)
    check_op(lambda t, x, w: t.native_group_norm(x, w, None, 4, 3, 5, 3, 1e-5)[0],
             [_arr(4, 3, 5), _arr(3)])
    same(lambda t: t.native_group_norm(t.ones(2, 4, 5), None, None, 2, 4, 6, 2, 1e-5))


def test_norm_form_errors():
    same(lambda t: t.batch_norm(t.ones(2, 3)), messages=False)
    same(lambda t: t.batch_norm(t.randn(2, 3), None, None, None, None, False, 0.1, 1e-5,
                                False))
    same(lambda t: t.layer_norm(t.ones(2, 3), [4]))
    same(lambda t: t.group_norm(t.ones(2, 3), 2))


# -- embedding forms ----------------------------------------------------------------------

def test_embedding_form():
    w = _arr(10, 3)
    idx = np.array([[0, 8, 9], [1, 8, 2]])
    for pad in (-1, -2, 8):
        check_op(lambda t, w, i: t.embedding(w, i, pad), [w, idx], second_order=False)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag_form(mode):
    w = _arr(10, 3)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9])
    for offsets, last in (([0, 4], False), ([0, 4, 4], False), ([0, 4, 8], True)):
        off = np.array(offsets)
        for dt in ("float32", "float64"):
            same(lambda t: t.embedding_bag(t.from_numpy(w.astype(dt)), t.from_numpy(idx),
                                           t.from_numpy(off), False, mode, False, None, last),
                 rtol=1e-6)
        check_op(lambda t, w, i, o: t.embedding_bag(w, i, o, False, mode, False, None,
                                                    last)[0],
                 [w, idx, off], second_order=False)
    same(lambda t: t.embedding_bag(t.from_numpy(w), t.from_numpy(idx), t.tensor([0, 4, 4]),
                                   False, 1, False, None, False, 2), rtol=1e-12)


# -- activations and losses ---------------------------------------------------------------

def test_activation_forms():
    a = _arr(4, 5)
    check_op(lambda t, x: t.selu(x), [a])
    check_op(lambda t, x: t.celu(x, 1.5), [a])
    check_op(lambda t, x, w: t.prelu(x, w), [a, _arr(5)])
    check_op(lambda t, x: t.rrelu(x), [a])
    check_op(lambda t, x: t.threshold(x, 0.2, -3.0), [a], second_order=False)
    check_op(lambda t, x: t.hardshrink(x, 0.7), [a], second_order=False)
    same(lambda t: t.selu(3))
    same(lambda t: t.hardshrink([1.0]))


def test_loss_forms_int_reduction():
    x, y = _arr(4, 5), _arr(4, 5)
    p = _arr(4, 5, low=0.1, high=0.9)
    target = np.where(_arr(4) > 0, 1.0, -1.0)
    for red in (0, 1, 2):
        check_op(lambda t, x, y: t.kl_div(x, y, red), [x, y])
        check_op(lambda t, x, y: t.kl_div(x, y, red, log_target=True), [x, y])
        check_op(lambda t, x, y: t.binary_cross_entropy_with_logits(
            x, y, t.from_numpy(p[0]), t.from_numpy(p[1] + 0.5), red), [x, p])
        check_op(lambda t, a, b, c: t.cosine_embedding_loss(a, b, c, 0.1, red),
                 [x, y, target])
        check_op(lambda t, a, b, c: t.margin_ranking_loss(a, b, c, 0.2, red),
                 [x[:, 0], y[:, 0], target], second_order=False)
        check_op(lambda t, a, b, c: t.triplet_margin_loss(a, b, c, 1.0, 2.0, 1e-6, True, red),
                 [x, y, _arr(4, 5)])
        check_op(lambda t, a, c: t.hinge_embedding_loss(a, c, 1.0, red),
                 [x, np.where(x > 0, 1.0, -1.0)], second_order=False)
        check_op(lambda t, a, b: t.poisson_nll_loss(a, b, True, True, 1e-8, red),
                 [x, p * 3])
    check_op(lambda t, a, b, c: t.bilinear(a, b, c), [_arr(4, 3), _arr(4, 2), _arr(5, 3, 2)])
    check_op(lambda t, a, b, c, d: t.bilinear(a, b, c, d),
             [_arr(4, 3), _arr(4, 2), _arr(5, 3, 2), _arr(5)])


def test_ctc_loss_form():
    logp = np.log(rng.dirichlet(np.ones(5), size=(12, 2)))
    targets = np.array([[1, 2, 3], [2, 2, 4]])
    for red in (0, 1, 2):
        check_op(lambda t, lp, tg: t.ctc_loss(lp, tg, [12, 10], [3, 2], 0, red),
                 [logp, targets], second_order=False)
        check_op(lambda t, lp, tg: t.ctc_loss(lp, tg, t.tensor([12, 10]), t.tensor([3, 3]),
                                              0, red, True),
                 [logp, targets], second_order=False)


# -- cells, convolution, padding ----------------------------------------------------------

def test_recurrent_cells():
    x, h, c = _arr(3, 4), _arr(3, 5), _arr(3, 5)
    check_op(lambda t, x, h, c, wi, wh, bi, bh: t.lstm_cell(x, (h, c), wi, wh, bi, bh),
             [x, h, c, _arr(20, 4), _arr(20, 5), _arr(20), _arr(20)])
    check_op(lambda t, x, h, c, wi, wh: t.lstm_cell(x, [h, c], wi, wh),
             [x, h, c, _arr(20, 4), _arr(20, 5)])
    check_op(lambda t, x, h, wi, wh, bi, bh: t.gru_cell(x, h, wi, wh, bi, bh),
             [x, h, _arr(15, 4), _arr(15, 5), _arr(15), _arr(15)])
    check_op(lambda t, x, h, wi, wh, bi, bh: t.rnn_tanh_cell(x, h, wi, wh, bi, bh),
             [x, h, _arr(5, 4), _arr(5, 5), _arr(5), _arr(5)])
    check_op(lambda t, x, h, wi, wh: t.rnn_relu_cell(x, h, wi, wh),
             [x, h, _arr(5, 4), _arr(5, 5)])


def test_conv_tbc_convolution_constant_pad():
    check_op(lambda t, x, w, b: t.conv_tbc(x, w, b, 1), [_arr(7, 2, 3), _arr(3, 3, 4), _arr(4)])
    check_op(lambda t, x, w, b: t.conv_tbc(x, w, b), [_arr(7, 2, 3), _arr(2, 3, 4), _arr(4)])
    same(lambda t: t.conv_tbc(t.ones(7, 2, 3), t.ones(2, 4, 4), t.ones(4)))
    check_op(lambda t, x, w, b: t.convolution(x, w, b, [2], [1], [1], False, [0], 1),
             [_arr(2, 4, 9), _arr(6, 4, 3), _arr(6)])
    check_op(lambda t, x, w: t.convolution(x, w, None, [1, 2], [1, 0], [2, 1], False, [0, 0],
                                           2),
             [_arr(2, 4, 7, 6), _arr(4, 2, 3, 2)], second_order=False)
    check_op(lambda t, x, w, b: t.convolution(x, w, b, [2, 2], [1, 1], [1, 1], True, [1, 0],
                                              1),
             [_arr(2, 3, 4, 5), _arr(3, 2, 3, 3), _arr(2)], second_order=False)
    check_op(lambda t, x, w: t.convolution(x, w, None, [1, 1, 1], [0, 0, 0], [1, 1, 1], False,
                                           [0, 0, 0], 1),
             [_arr(1, 2, 4, 4, 3), _arr(3, 2, 2, 2, 2)], second_order=False)
    check_op(lambda t, x: t.constant_pad_nd(x, [1, 2, 0, 1], 0.5), [_arr(2, 3, 4)])
    check_op(lambda t, x: t.constant_pad_nd(x, (-1, 2)), [_arr(2, 3, 4)])


# -- view copies, splits, queries ---------------------------------------------------------

def test_view_copies_values_gradients_and_memory():
    a = _arr(4, 6)
    cases = [
        lambda t, x: t.alias_copy(x), lambda t, x: t.as_strided_copy(x, (2, 2), (1, 2), 1),
        lambda t, x: t.diagonal_copy(x, 1), lambda t, x: t.expand_copy(x[:1], (3, 6)),
        lambda t, x: t.narrow_copy(x, 1, 1, 3), lambda t, x: t.permute_copy(x, (1, 0)),
        lambda t, x: t.select_copy(x, 1, 2), lambda t, x: t.slice_copy(x, 1, 1, 5, 2),
        lambda t, x: t.slice_copy(x), lambda t, x: t.squeeze_copy(x[:1]),
        lambda t, x: t.squeeze_copy(x[:1, None], (0, 1)), lambda t, x: t.t_copy(x),
        lambda t, x: t.transpose_copy(x, 0, 1), lambda t, x: t.unfold_copy(x, 1, 2, 2),
        lambda t, x: t.unsqueeze_copy(x, 1), lambda t, x: t.view_copy(x, (3, 8)),
        lambda t, x: t.view_copy(x, (-1,)), lambda t, x: t.split_copy(x, 4, 1),
        lambda t, x: t.split_with_sizes_copy(x, [1, 3], 0), lambda t, x: t.unbind_copy(x, 1),
        lambda t, x: t.view_as_real_copy(t.view_as_complex(x.reshape(4, 3, 2))),
    ]
    for case in cases:
        check_op(case, [a], second_order=False)
    same(lambda t: t.view_as_complex_copy(t.from_numpy(a).reshape(4, 3, 2)))
    same(lambda t: t.view_copy(t.from_numpy(a).float(), t.int32))
    x = numtorch.from_numpy(a.copy())
    for y in (numtorch.t_copy(x), numtorch.permute_copy(x, (1, 0)), numtorch.alias_copy(x)):
        assert y.is_contiguous()
        y.fill_(0.0)
    assert (x == numtorch.from_numpy(a)).all()
    same(lambda t: t.t_copy(t.from_numpy(a)).stride())
    same(lambda t: t.detach_copy(t.from_numpy(a)).is_contiguous())


def test_splits():
    a = _arr(4, 6)
    for case in [lambda t, x: t.split_with_sizes(x, [1, 3]),
                 lambda t, x: t.split_with_sizes(x, [2, 4], 1),
                 lambda t, x: t.unsafe_chunk(x, 4, 1), lambda t, x: t.unsafe_split(x, 4, 1),
                 lambda t, x: t.unsafe_split_with_sizes(x, [2, 4], -1)]:
        check_op(case, [a], second_order=False)
        same(lambda t: type(case(t, t.from_numpy(a))))
    same(lambda t: t.split_with_sizes(t.ones(3), [2, 3]))
    same(lambda t: t.split_with_sizes(t.ones(3), [-1, 5]))
    same(lambda t: t.split_with_sizes(t.ones(3), [1, 2], 1))
    same(lambda t: t.unsafe_chunk(3, 2))


def test_queries():
    for dt in ("float32", "uint8", "bool", "int16", "complex64"):
        same(lambda t: t.is_signed(t.ones(2, dtype=getattr(t, dt))))
    same(lambda t: t.is_same_size(t.ones(2, 3), t.ones(2, 3)))
    same(lambda t: t.is_same_size(t.ones(2), t.ones(2, 1)))
    same(lambda t: t.is_same_size(t.ones(2), 3))
    same(lambda t: t.get_device(t.ones(2)))
    same(lambda t: t.detach(3))
    same(lambda t: t.detach(t.ones(2, requires_grad=True) * 2))
    same(lambda t: t.fill(t.ones(2, 3), 3))
    same(lambda t: t.fill(t.ones(2, 3, dtype=t.int64), t.tensor(2.7)))
    same(lambda t: t.fill(t.ones(2), t.ones(2)))
    for obj in (lambda t: t.ones(2), lambda t: t.ones(2, dtype=t.long), lambda t: 3,
                lambda t: t.nn.Linear(2, 2), lambda t: t.nn.Linear, lambda t: "s"):
        same(lambda t: t.typename(obj(t)))


def test_runtime_flags():
    same(lambda t: (t.set_warn_always(True), t.is_warn_always_enabled(),
                    t.set_warn_always(False), t.is_warn_always_enabled()))
    for mode in ("default", "warn", "error", 0, 1, 2, 3, "bad", 1.0):
        same(lambda t: (t.set_deterministic_debug_mode(mode), t.get_deterministic_debug_mode(),
                        t.are_deterministic_algorithms_enabled(),
                        t.is_deterministic_algorithms_warn_only_enabled()))
    numtorch.set_deterministic_debug_mode(0)
    torch.set_deterministic_debug_mode(0)
    same(lambda t: (t.set_anomaly_enabled(True, False), t.is_anomaly_enabled(),
                    t.is_anomaly_check_nan_enabled(), t.set_anomaly_enabled(False),
                    t.is_anomaly_enabled()))
    assert numtorch.set_flush_denormal(False) is False
    assert numtorch.get_device_module() is numtorch.cpu
    assert numtorch.get_device_module("cpu") is numtorch.cpu
    assert numtorch.get_device_module(numtorch.device("cuda:1")) is numtorch.cuda
    same(lambda t: t.get_device_module(3))
