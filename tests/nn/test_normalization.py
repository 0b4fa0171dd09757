"""Normalization layers against torch: batch/instance/layer/group/RMS/local-response norm,
``F.normalize``, running statistics, eval mode, gradients of order one to three, errors."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import assert_same, check_module, check_op, check_raises, to_libs

DTYPES = ["float64", "float32"]


def _positive(shape, seed=3):
    return np.random.default_rng(seed).uniform(0.5, 2.0, shape)


# -- functionals: values, first and second order ----------------------------------------------

FUNCTIONAL = {
    "bn_train": (lambda t, x: t.nn.functional.batch_norm(x, None, None, training=True),
                 [(4, 3, 5)], True),
    "bn_train_affine": (lambda t, x, w, b: t.nn.functional.batch_norm(
        x, None, None, w, b, training=True), [(4, 3, 5), (3,), (3,)], True),
    "bn_train_2d": (lambda t, x, w, b: t.nn.functional.batch_norm(
        x, None, None, w, b, training=True, eps=1e-3), [(6, 3), (3,), (3,)], True),
    "bn_train_4d_weight": (lambda t, x, w: t.nn.functional.batch_norm(
        x, None, None, w, training=True), [(2, 3, 2, 3), (3,)], True),
    # torch's own double backward fails for a bias without a weight
    "bn_train_bias_only": (lambda t, x, b: t.nn.functional.batch_norm(
        x, None, None, None, b, training=True), [(4, 3, 2), (3,)], False),
    "bn_eval": (lambda t, x, m, v, w, b: t.nn.functional.batch_norm(
        x, m.detach(), v.detach(), w, b), [(4, 3, 5), (3,), _positive(3), (3,), (3,)], True),
    "ln_last": (lambda t, x, w, b: t.nn.functional.layer_norm(x, (5,), w, b),
                [(4, 3, 5), (5,), (5,)], True),
    "ln_two_dims": (lambda t, x, w, b: t.nn.functional.layer_norm(x, [3, 5], w, b, 1e-3),
                    [(4, 3, 5), (3, 5), (3, 5)], True),
    "ln_plain": (lambda t, x: t.nn.functional.layer_norm(x, (3, 5)), [(2, 3, 5)], True),
    "ln_weight_only": (lambda t, x, w: t.nn.functional.layer_norm(x, (4,), w), [(3, 4), (4,)],
                       True),
    "ln_empty_batch": (lambda t, x, w, b: t.nn.functional.layer_norm(x, (3,), w, b),
                       [(0, 3), (3,), (3,)], True),
    "ln_empty_group": (lambda t, x: t.nn.functional.layer_norm(x, (0,)), [(2, 0)], True),
    "bn_train_empty_batch": (lambda t, x, w, b: t.nn.functional.batch_norm(
        x, None, None, w, b, training=True), [(0, 3), (3,), (3,)], True),
    "gn": (lambda t, x, w, b: t.nn.functional.group_norm(x, 2, w, b),
           [(4, 6, 5), (6,), (6,)], True),
    "gn_4d": (lambda t, x, w, b: t.nn.functional.group_norm(x, 3, w, b),
              [(2, 6, 2, 3), (6,), (6,)], True),
    "gn_2d_plain": (lambda t, x: t.nn.functional.group_norm(x, 3), [(4, 6)], True),
    "in": (lambda t, x, w, b: t.nn.functional.instance_norm(x, weight=w, bias=b),
           [(4, 3, 5), (3,), (3,)], True),
    "in_plain_3d": (lambda t, x: t.nn.functional.instance_norm(x), [(2, 3, 2, 3, 2)], True),
    "in_running": (lambda t, x, m, v: t.nn.functional.instance_norm(
        x, m.detach(), v.detach(), use_input_stats=False), [(2, 3, 4), (3,), _positive(3)],
        True),
    "rms": (lambda t, x, w: t.nn.functional.rms_norm(x, (5,), w), [(4, 3, 5), (5,)], True),
    "rms_eps": (lambda t, x: t.nn.functional.rms_norm(x, [3, 5], eps=1e-2), [(2, 3, 5)], True),
    "lrn_odd": (lambda t, x: t.nn.functional.local_response_norm(x, 3), [(4, 5, 3)], True),
    "lrn_even_4d": (lambda t, x: t.nn.functional.local_response_norm(
        x, 2, alpha=0.3, beta=0.6, k=0.5), [(2, 5, 3, 2)], True),
    "lrn_5d_wide": (lambda t, x: t.nn.functional.local_response_norm(
        x, 7, alpha=0.5), [(2, 3, 2, 2, 2)], True),
    "normalize": (lambda t, x: t.nn.functional.normalize(x), [(4, 3)], True),
    "normalize_p3_dim0": (lambda t, x: t.nn.functional.normalize(x, p=3, dim=0), [(4, 3)],
                          True),
    "normalize_tiny": (lambda t, x: t.nn.functional.normalize(x, eps=1e-3),
                       [np.full((2, 3), 1e-5)], True),
    "normalize_empty": (lambda t, x: t.nn.functional.normalize(x, dim=0), [(0, 3)], True),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_matches_torch(name, dtype):
    fn, shapes, second = FUNCTIONAL[name]
    shapes = [s.astype(dtype) if isinstance(s, np.ndarray) else s for s in shapes]
    check_op(fn, shapes, dtype=dtype, second_order=second)


@pytest.mark.parametrize("dtype", DTYPES)
def test_functional_non_contiguous_input(dtype):
    check_op(lambda t, x, w, b: t.nn.functional.layer_norm(x.transpose(0, 1), (3,), w, b),
             [(3, 4), (3,), (3,)], dtype=dtype, non_contiguous=True)
    check_op(lambda t, x: t.nn.functional.batch_norm(x.transpose(0, 1), None, None,
                                                     training=True), [(3, 4)], dtype=dtype,
             non_contiguous=True)


def _second_order_projection(lib, fn, arrays, create_graph):
    """The inputs and <d/dx <d/dx <f(x), u>, v>, w> for fixed random u, v, w."""
    xs = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
    y = fn(lib, *xs)
    u = lib.from_numpy(np.random.default_rng(5).standard_normal(tuple(y.shape)))
    g = lib.autograd.grad(y, xs, u, create_graph=True, allow_unused=True)
    s = sum((gi * lib.from_numpy(np.random.default_rng(6 + i).standard_normal(a.shape))).sum()
            for i, (gi, a) in enumerate(zip(g, arrays)) if gi is not None)
    g2 = lib.autograd.grad(s, xs, create_graph=create_graph, allow_unused=True)
    s2 = sum((gi * lib.from_numpy(np.random.default_rng(9 + i).standard_normal(a.shape))).sum()
             for i, (gi, a) in enumerate(zip(g2, arrays)) if gi is not None)
    return xs, s2


def _third_order_input_grad(lib, fn, arrays):
    xs, s2 = _second_order_projection(lib, fn, arrays, True)
    return lib.autograd.grad(s2, xs[0])[0]


def _norm_case(case):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 6, 3))
    w, b = rng.standard_normal(6), rng.standard_normal(6)
    if case == "batch_norm":
        fn = lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b, True)  # noqa
    elif case == "batch_norm_plain":
        fn = lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, training=True)  # noqa
    elif case == "layer_norm":
        w, b = rng.standard_normal(3), rng.standard_normal(3)
        fn = lambda t, x, w, b: t.nn.functional.layer_norm(x, (3,), w, b)  # noqa: E731
    else:
        fn = lambda t, x, w, b: t.nn.functional.group_norm(x, 3, w, b)  # noqa: E731
    return fn, [x, w, b]


def test_third_order_gradient_of_group_norm_matches_torch():
    fn, arrays = _norm_case("group_norm")
    assert_same(_third_order_input_grad(numtorch, fn, arrays),
                _third_order_input_grad(torch, fn, arrays), 1e-6, 1e-8)


@pytest.mark.parametrize("case", ["batch_norm", "batch_norm_plain", "layer_norm",
                                  "group_norm"])
def test_third_order_gradient_matches_finite_differences(case):
    # torch 2.13's third derivatives of batch_norm and layer_norm disagree with finite
    # differences, so these are checked numerically (a directional central difference)
    fn, arrays = _norm_case(case)
    g3 = _third_order_input_grad(numtorch, fn, arrays).numpy()
    d = np.random.default_rng(42).standard_normal(arrays[0].shape)
    h = 1e-5

    def f(x):
        return float(_second_order_projection(numtorch, fn, [x] + arrays[1:], False)[1])

    fd = (f(arrays[0] + h * d) - f(arrays[0] - h * d)) / (2 * h)
    np.testing.assert_allclose((g3 * d).sum(), fd, rtol=1e-6)


@pytest.mark.parametrize("case", ["batch_norm", "layer_norm", "group_norm"])
def test_parameter_gradients_differentiate_through_the_cotangent(case):
    # the input needs no gradient here, so the fused backward returns only the weight and
    # bias gradients; their derivative with respect to the output gradient is checked
    fn, (x, w, b) = _norm_case(case)
    rng = np.random.default_rng(1)
    u = rng.standard_normal(x.shape)
    v = [rng.standard_normal(w.shape), rng.standard_normal(b.shape)]
    res = []
    for lib in (numtorch, torch):
        wt, bt, ut = (lib.from_numpy(a.copy()).requires_grad_() for a in (w, b, u))
        y = fn(lib, lib.from_numpy(x.copy()), wt, bt)
        gw, gb = lib.autograd.grad(y, (wt, bt), ut, create_graph=True)
        s = (gw * lib.from_numpy(v[0])).sum() + (gb * lib.from_numpy(v[1])).sum()
        res.append(lib.autograd.grad(s, (ut, wt), allow_unused=True))
    assert_same(res[0][0], res[1][0], 1e-10, 1e-12)
    assert res[0][1] is None and res[1][1] is None


def test_output_may_be_changed_in_place_before_backward():
    for lib in (numtorch, torch):
        x = lib.randn(4, 3, requires_grad=True)
        y = lib.nn.functional.layer_norm(x, (3,))
        y.relu_()  # torch's norms save the input, not the output
        y.sum().backward()
        assert x.grad is not None


def test_changing_the_input_in_place_is_detected():
    for lib in (numtorch, torch):
        x = lib.randn(4, 3, requires_grad=True)
        h = x * 1
        y = lib.nn.functional.layer_norm(h, (3,))
        h.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("case", ["layer_norm", "group_norm", "batch_norm"])
def test_half_input_is_normalised_in_float32(case):
    fn = {"layer_norm": lambda t, x: t.nn.functional.layer_norm(x, (6,)),
          "group_norm": lambda t, x: t.nn.functional.group_norm(x, 2),
          "batch_norm": lambda t, x: t.nn.functional.batch_norm(x, None, None, training=True)
          }[case]
    x = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float16)
    a = fn(numtorch, numtorch.from_numpy(x))
    assert a.dtype == numtorch.float16
    if case == "batch_norm":
        # torch's half batch norm rounds its mean and 1/std to half first: so does numtorch
        ref = fn(torch, torch.from_numpy(x)).float().numpy()
        np.testing.assert_allclose(a.numpy().astype(np.float32), ref, rtol=2.0 ** -10)
        return
    ref = fn(torch, torch.from_numpy(x).double()).numpy()
    np.testing.assert_allclose(a.numpy().astype(np.float64), ref, atol=1e-3)


# -- running statistics --------------------------------------------------------------------

@pytest.mark.parametrize("momentum", [0.1, 0.5])
@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 6)])
def test_functional_batch_norm_updates_running_stats_in_place(shape, momentum):
    x = np.random.default_rng(1).standard_normal(shape)
    res = []
    for lib in (numtorch, torch):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        lib.nn.functional.batch_norm(lib.from_numpy(x), rm, rv, training=True,
                                     momentum=momentum)
        res.append((rm, rv))
    for a, b in zip(*res):
        assert_same(a, b, 1e-12, 1e-12, "running stat")


def test_functional_instance_norm_updates_running_stats_in_place():
    x = np.random.default_rng(1).standard_normal((2, 3, 5))
    res = []
    for lib in (numtorch, torch):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        lib.nn.functional.instance_norm(lib.from_numpy(x), rm, rv, momentum=0.3)
        res.append((rm, rv))
    for a, b in zip(*res):
        assert_same(a, b, 1e-12, 1e-12, "running stat")


def test_empty_batch_leaves_running_stats_alone():
    for lib in (numtorch, torch):
        rm, rv = lib.zeros(3), lib.ones(3)
        out = lib.nn.functional.batch_norm(lib.zeros(0, 3), rm, rv, training=True)
        assert tuple(out.shape) == (0, 3)
        assert rm.tolist() == [0, 0, 0] and rv.tolist() == [1, 1, 1]


MODULES = {
    "bn1d": (lambda t: t.nn.BatchNorm1d(3), (6, 3)),
    "bn1d_3d_cma": (lambda t: t.nn.BatchNorm1d(3, momentum=None), (4, 3, 5)),
    "bn2d": (lambda t: t.nn.BatchNorm2d(3, momentum=0.3), (4, 3, 2, 3)),
    "bn2d_no_affine": (lambda t: t.nn.BatchNorm2d(3, affine=False), (4, 3, 2, 2)),
    "bn2d_no_bias": (lambda t: t.nn.BatchNorm2d(3, bias=False), (4, 3, 2, 2)),
    "bn2d_untracked": (lambda t: t.nn.BatchNorm2d(3, track_running_stats=False), (4, 3, 2, 2)),
    "bn3d": (lambda t: t.nn.BatchNorm3d(2, eps=1e-3), (2, 2, 2, 3, 2)),
    "sync_bn": (lambda t: t.nn.SyncBatchNorm(3), (4, 3, 2)),
    "in1d_tracked": (lambda t: t.nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
                     (4, 3, 5)),
    "in2d": (lambda t: t.nn.InstanceNorm2d(3, affine=True), (2, 3, 3, 2)),
    "in2d_unbatched": (lambda t: t.nn.InstanceNorm2d(3, track_running_stats=True), (3, 3, 2)),
    "in3d": (lambda t: t.nn.InstanceNorm3d(2), (2, 2, 2, 2, 3)),
    "ln": (lambda t: t.nn.LayerNorm(5), (4, 3, 5)),
    "ln_2d_no_bias": (lambda t: t.nn.LayerNorm([3, 5], bias=False), (4, 3, 5)),
    "ln_plain": (lambda t: t.nn.LayerNorm(5, elementwise_affine=False), (4, 5)),
    "gn": (lambda t: t.nn.GroupNorm(2, 4), (3, 4, 5)),
    "gn_plain": (lambda t: t.nn.GroupNorm(4, 4, affine=False), (3, 4, 2, 2)),
    "rms": (lambda t: t.nn.RMSNorm(5), (4, 3, 5)),
    "rms_plain": (lambda t: t.nn.RMSNorm([3, 5], eps=1e-3, elementwise_affine=False),
                  (2, 3, 5)),
    "lrn": (lambda t: t.nn.LocalResponseNorm(3, alpha=0.1), (4, 5, 3)),
    "cross_map_lrn": (lambda t: t.nn.CrossMapLRN2d(3, alpha=0.1), (2, 5, 3, 2)),
    "cross_map_lrn_even": (lambda t: t.nn.CrossMapLRN2d(4, alpha=0.7, beta=0.8, k=1.3),
                           (2, 7, 2, 2)),
}


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_matches_torch(name, dtype, train):
    make, shape = MODULES[name]
    check_module(make, [shape], dtype=dtype, train=train)


@pytest.mark.parametrize("name", [n for n in sorted(MODULES)
                                  if n.startswith(("bn", "sync", "in1d", "in2d_unb"))])
def test_running_stats_after_several_steps_and_eval(name):
    make, shape = MODULES[name]
    nt_m, th_m = make(numtorch).double(), make(torch).double()
    rng = np.random.default_rng(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unbatched instance norm's num_features warning
        for step in range(4):
            x = rng.standard_normal(shape) * (step + 1) + step
            assert_same(nt_m(numtorch.from_numpy(x)), th_m(torch.from_numpy(x)), 1e-10, 1e-12)
            th_b = dict(th_m.named_buffers())
            for k, v in nt_m.named_buffers():
                assert_same(v, th_b[k], 1e-12, 1e-12, f"buffer {k} after step {step}")
        nt_m.eval()
        th_m.eval()
        x = rng.standard_normal(shape)
        nt_x, th_x = to_libs([x], True)
        a, b = nt_m(nt_x[0]), th_m(th_x[0])
    assert_same(a, b, 1e-10, 1e-12, "eval output")
    u = rng.standard_normal(shape)
    ga = numtorch.autograd.grad(a, nt_x, numtorch.from_numpy(u))[0]
    gb = torch.autograd.grad(b, th_x, torch.from_numpy(u))[0]
    assert_same(ga, gb, 1e-10, 1e-12, "eval input gradient")


def test_batch_norm_state_dict_matches_torch_names():
    for make in (lambda t: t.nn.BatchNorm2d(3), lambda t: t.nn.BatchNorm2d(3, affine=False),
                 lambda t: t.nn.BatchNorm2d(3, track_running_stats=False),
                 lambda t: t.nn.InstanceNorm2d(3, track_running_stats=True)):
        a, b = make(numtorch).state_dict(), make(torch).state_dict()
        assert list(a) == list(b)
        for k in a:
            assert_same(a[k], b[k], 0, 0, k)
    bn = numtorch.nn.BatchNorm2d(3)
    assert bn.num_batches_tracked.dtype == numtorch.int64
    assert dict(bn.named_parameters()).keys() == {"weight", "bias"}


def test_batch_norm_loads_state_dict_without_batch_count():
    sd = {k: numtorch.from_numpy(v.numpy().copy())
          for k, v in torch.nn.BatchNorm1d(3).state_dict().items()
          if k != "num_batches_tracked"}
    bn = numtorch.nn.BatchNorm1d(3)
    bn.load_state_dict(sd)
    assert int(bn.num_batches_tracked) == 0


def test_reset_running_stats_and_parameters():
    bn = numtorch.nn.BatchNorm1d(3)
    bn(numtorch.randn(8, 3) * 3 + 1)
    with numtorch.no_grad():
        bn.weight.mul_(2)
    bn.reset_parameters()
    assert bn.running_mean.tolist() == [0, 0, 0] and bn.running_var.tolist() == [1, 1, 1]
    assert int(bn.num_batches_tracked) == 0 and bn.weight.tolist() == [1, 1, 1]


def test_convert_sync_batchnorm_shares_state():
    net = numtorch.nn.Sequential(numtorch.nn.Linear(2, 3), numtorch.nn.BatchNorm1d(3),
                                 numtorch.nn.Sequential(numtorch.nn.BatchNorm2d(4, bias=False)))
    bn = net[1]
    out = numtorch.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert out is net
    assert type(net[1]) is numtorch.nn.SyncBatchNorm
    assert type(net[2][0]) is numtorch.nn.SyncBatchNorm and net[2][0].bias is None
    assert net[1].weight is bn.weight and net[1].running_mean is bn.running_mean
    single = numtorch.nn.SyncBatchNorm.convert_sync_batchnorm(numtorch.nn.BatchNorm1d(2))
    assert type(single) is numtorch.nn.SyncBatchNorm


def test_reprs_match_torch():
    cases = [lambda t: t.nn.BatchNorm2d(3), lambda t: t.nn.BatchNorm1d(
        3, affine=False, momentum=None, track_running_stats=False),
        lambda t: t.nn.InstanceNorm1d(3), lambda t: t.nn.InstanceNorm3d(3, affine=True),
        lambda t: t.nn.LayerNorm([3, 4]), lambda t: t.nn.LayerNorm(4, bias=False),
        lambda t: t.nn.GroupNorm(2, 4, affine=False), lambda t: t.nn.RMSNorm(3),
        lambda t: t.nn.RMSNorm([2, 3], eps=1e-3, elementwise_affine=False),
        lambda t: t.nn.LocalResponseNorm(2), lambda t: t.nn.CrossMapLRN2d(3),
        lambda t: t.nn.SyncBatchNorm(3)]
    for make in cases:
        assert repr(make(numtorch)) == repr(make(torch))


def test_classes_live_at_torch_paths():
    from numtorch.nn.modules import batchnorm, instancenorm, normalization

    assert batchnorm.BatchNorm2d is numtorch.nn.BatchNorm2d
    assert instancenorm.InstanceNorm1d is numtorch.nn.InstanceNorm1d
    assert normalization.GroupNorm is numtorch.nn.GroupNorm
    assert isinstance(numtorch.nn.SyncBatchNorm(2), batchnorm._BatchNorm)
    assert isinstance(numtorch.nn.InstanceNorm2d(2), batchnorm._NormBase)


def test_instance_norm_warns_on_channel_mismatch_without_affine():
    with pytest.warns(UserWarning, match="does not match num_features"):
        numtorch.nn.InstanceNorm1d(4)(numtorch.randn(2, 3, 5))


@pytest.mark.parametrize("size", [1, 3, 4, 9])
def test_cross_map_lrn_legacy_gradient_is_differentiable_again(size):
    # torch raises on double backward here; numtorch differentiates its legacy closed form
    x = numtorch.randn(2, 5, 2, 3, dtype=numtorch.float64, requires_grad=True)
    lrn = numtorch.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.7, k=1.2)
    assert numtorch.autograd.gradgradcheck(lrn, (x,))


# -- bad input -------------------------------------------------------------------------------

F_ERRORS = [
    (lambda t: t.nn.BatchNorm2d(3)(t.randn(2, 3, 4)), "expected 4D input (got 3D input)"),
    (lambda t: t.nn.BatchNorm1d(3)(t.randn(2, 3, 4, 5)), "expected 2D or 3D input (got 4D"),
    (lambda t: t.nn.BatchNorm3d(3)(t.randn(2, 3, 4, 5)), "expected 5D input (got 4D input)"),
    (lambda t: t.nn.SyncBatchNorm(3)(t.randn(3)), "expected at least 2D input (got 1D"),
    (lambda t: t.nn.BatchNorm2d(3)(t.randn(2, 4, 4, 4)),
     "running_mean should contain 4 elements not 3"),
    (lambda t: t.nn.BatchNorm2d(3)(t.randn(1, 3, 1, 1)),
     "Expected more than 1 value per channel when training, got input size torch.Size([1, 3, "
     "1, 1])"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3), t.zeros(3), t.ones(3),
                                          weight=t.ones(4)), "weight should contain 3 elements"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3), t.zeros(4), t.ones(4),
                                          weight=t.ones(4)), "running_mean should contain 3"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3), t.zeros(3), t.ones(3), bias=t.ones(4)),
     "bias should contain 3 elements not 4"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3), t.zeros(3), t.ones(4)),
     "running_var should contain 3 elements not 4"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3), None, None),
     "running_mean must be defined in evaluation mode"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3), t.zeros(3), None),
     "running_var must be defined in evaluation mode"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3), t.zeros(3), None, training=True),
     "must either both be None or neither be None"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3), None, None, training=True, eps=0.0),
     "batch_norm eps must be positive during training, but got 0.0"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3), t.zeros(3), t.ones(3), eps=-1.0),
     "batch_norm eps must be non-negative"),
    (lambda t: t.nn.functional.batch_norm(t.ones(2, 3, dtype=t.int32), None, None,
                                          training=True),
     "\"batch_norm\" not implemented for 'Int'"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3, dtype=t.float64), None, None,
                                          t.ones(3), training=True), "mixed dtype (CPU)"),
    (lambda t: t.nn.functional.batch_norm(t.randn(3), None, None, training=True),
     "Dimension out of range"),
    (lambda t: t.nn.functional.batch_norm(t.randn(2, 3), t.zeros(3, requires_grad=True),
                                          t.ones(3)),
     "not differentiable with respect to argument 'running_mean'"),
    (lambda t: t.nn.InstanceNorm2d(3)(t.randn(2, 3)), "expected 3D or 4D input (got 2D input)"),
    (lambda t: t.nn.InstanceNorm2d(3, affine=True)(t.randn(2, 4, 4, 4)),
     "expected input's size at dim=1 to match num_features (3), but got: 4."),
    (lambda t: t.nn.InstanceNorm1d(3)(t.randn(2, 3, 1)),
     "Expected more than 1 spatial element when training, got input size torch.Size([2, 3, "
     "1])"),
    (lambda t: t.nn.functional.instance_norm(t.randn(2, 3, 4), t.zeros(4), t.ones(4)),
     "running_mean should contain 6 elements not 8"),
    (lambda t: t.nn.functional.instance_norm(t.randn(2, 3, 4), weight=t.ones(4)),
     "weight should contain 6 elements not 8"),
    (lambda t: t.nn.functional.instance_norm(t.randn(2, 3, 4), use_input_stats=False),
     "Expected running_mean and running_var to be defined when use_input_stats is false"),
    (lambda t: t.nn.functional.layer_norm(t.randn(2, 3, 4), (3,)),
     "Given normalized_shape=[3], expected input with shape [*, 3], but got input of "
     "size[2, 3, 4]"),
    (lambda t: t.nn.functional.layer_norm(t.randn(3, 4), (2, 3, 4)),
     "expected input with shape [*, 2, 3, 4]"),
    (lambda t: t.nn.functional.layer_norm(t.randn(2, 4), (4,), weight=t.ones(3)),
     "Expected weight to be of same shape as normalized_shape, but got weight of shape [3] "
     "and normalized_shape = [4]"),
    (lambda t: t.nn.functional.layer_norm(t.randn(2, 4), (4,), bias=t.ones(3)),
     "Expected bias to be of same shape as normalized_shape"),
    (lambda t: t.nn.functional.layer_norm(t.randn(2, 4), 4),
     "argument 'normalized_shape' (position 2) must be tuple of ints, not int"),
    (lambda t: t.nn.functional.layer_norm(t.randn(2, 4), [4.0]),
     "must be tuple of ints, but found element of type float at pos 0"),
    (lambda t: t.nn.functional.layer_norm(t.randn(2, 4), ()),
     "Expected normalized_shape to be at least 1-dimensional"),
    (lambda t: t.nn.functional.layer_norm(t.ones(2, 4, dtype=t.int64), (4,)),
     "\"LayerNormKernelImpl\" not implemented for 'Long'"),
    (lambda t: t.nn.GroupNorm(2, 3), "num_channels (3) must be divisible by num_groups (2)"),
    (lambda t: t.nn.GroupNorm(2, 4)(t.randn(2, 6, 4)),
     "Expected weight to be a vector of size equal to the number of channels in input, but "
     "got weight of shape [4] and input of shape [2, 6, 4]"),
    (lambda t: t.nn.functional.group_norm(t.randn(2, 6, 4), 4),
     "Expected number of channels in input to be divisible by num_groups, but got input of "
     "shape [2, 6, 4] and num_groups=4"),
    (lambda t: t.nn.functional.group_norm(t.randn(6), 3),
     "Expected at least 2 dimensions for input tensor but received 1"),
    (lambda t: t.nn.functional.group_norm(t.randn(1, 3, 1), 3),
     "Expected more than 1 value per channel when training, got input size [1, 3, 1]"),
    (lambda t: t.nn.functional.group_norm(t.randn(2, 6), 0), None),
    (lambda t: t.nn.functional.rms_norm(t.randn(2, 3), (4,)),
     "Given normalized_shape=[4], expected input with shape [*4], but got input of size[2, 3]"),
    (lambda t: t.nn.functional.rms_norm(t.randn(2, 3), (3,), t.ones(2)),
     "Expected weight to be of same shape as normalized_shape"),
    (lambda t: t.nn.functional.rms_norm(t.ones(2, 3, dtype=t.int32), [3]),
     "\"rms_norm\" not implemented for 'Int'"),
    (lambda t: t.nn.functional.local_response_norm(t.randn(2, 3), 2),
     "Expected 3D or higher dimensionality"),
    (lambda t: t.nn.CrossMapLRN2d(3)(t.randn(2, 3, 4)),
     "CrossMapLRN2d: Expected input to be 4D, got 3D instead."),
    (lambda t: t.nn.functional.normalize(t.randn(2, 3), dim=2), "Dimension out of range"),
    (lambda t: t.nn.functional.normalize(t.ones(2, 3, dtype=t.int32)),
     "Expected a floating point or complex tensor as input. Got Int"),
]


@pytest.mark.parametrize("case", range(len(F_ERRORS)))
def test_bad_input_raises_like_torch(case):
    fn, match = F_ERRORS[case]
    check_raises(fn, match=match)


def test_normalize_writes_into_out():
    x = np.random.default_rng(0).standard_normal((3, 4))
    res = []
    for lib in (numtorch, torch):
        out = lib.empty(3, 4, dtype=lib.float64)
        r = lib.nn.functional.normalize(lib.from_numpy(x.copy()), dim=0, out=out)
        assert r is out
        res.append(out)
    assert_same(res[0], res[1], 1e-12, 1e-12)
