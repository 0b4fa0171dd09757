"""Floating-point warnings: numtorch is as silent as torch on inf/NaN-producing math.

Every case runs under ``warnings.simplefilter("always")`` (which overrides any filter a library
installs), and the warnings each library emits must be the same; torch emits none for these
except its own UserWarnings (degrees of freedom, grid_sample's default). A user's own NumPy
calls still warn.
"""

import warnings

import numpy as np
import pytest
import torch

import numtorch

CASES = [
    ('div0', lambda t: t.tensor([0., 1., -1.]) / 0),
    ('div00', lambda t: t.tensor(0.) / t.tensor(0.)),
    ('rdiv0', lambda t: 1 / t.tensor([0., 1., -1.])),
    ('floordiv0', lambda t: t.tensor([0., 1., -1.]) // 0),
    ('mod0', lambda t: t.tensor([0., 1., -1.]) % 0),
    ('fmod0', lambda t: t.fmod(t.tensor([0., 1., -1.]), 0.)),
    ('remainder0', lambda t: t.remainder(t.tensor([0., 1., -1.]), 0.)),
    ('div floor 0', lambda t: t.div(t.tensor([0., 1., -1.]), 0., rounding_mode='floor')),
    ('div trunc 0', lambda t: t.div(t.tensor([0., 1., -1.]), 0., rounding_mode='trunc')),
    ('reciprocal0', lambda t: t.tensor([0., 1., -1.]).reciprocal()),
    ('log0', lambda t: t.tensor([0., 1., -1.]).log()),
    ('log2 neg', lambda t: t.tensor([0., 1., -1.]).log2()),
    ('log10', lambda t: t.tensor([0., 1., -1.]).log10()),
    ('log1p -1', lambda t: t.tensor([-1., -2.]).log1p()),
    ('sqrt neg', lambda t: t.tensor([0., 1., -1.]).sqrt()),
    ('rsqrt 0', lambda t: t.tensor([0., 1., -1.]).rsqrt()),
    ('pow neg frac', lambda t: t.tensor([0., 1., -1.]) ** 0.5),
    ('pow 0 neg', lambda t: t.tensor([0., 1., -1.]) ** -1),
    ('exp big', lambda t: t.tensor([1000.]).exp()),
    ('exp f16', lambda t: t.tensor([20.], dtype=t.float16).exp()),
    ('expm1 big', lambda t: t.tensor([1000.]).expm1()),
    ('exp2 big', lambda t: t.tensor([1000.]).exp2()),
    ('sinh big', lambda t: t.tensor([1000.]).sinh()),
    ('cosh big', lambda t: t.tensor([1000.]).cosh()),
    ('tan pi/2', lambda t: t.tensor([1.5707963267948966], dtype=t.float64).tan()),
    ('asin 2', lambda t: t.tensor([2.]).asin()),
    ('acos 2', lambda t: t.tensor([2.]).acos()),
    ('acosh 0', lambda t: t.tensor([0., 1., -1.]).acosh()),
    ('atanh 1', lambda t: t.tensor([1., 2.]).atanh()),
    ('erfinv 1', lambda t: t.tensor([1., 2.]).erfinv()),
    ('lgamma 0', lambda t: t.tensor([0., 1., -1.]).lgamma()),
    ('digamma 0', lambda t: t.tensor([0., 1., -1.]).digamma()),
    ('polygamma 0', lambda t: t.polygamma(1, t.tensor([0., 1., -1.]))),
    ('logit 0', lambda t: t.tensor([0., 1.]).logit()),
    ('xlogy', lambda t: t.xlogy(t.tensor([0., 1., -1.]), t.tensor([0., 1., -1.]))),
    ('sinc 0', lambda t: t.tensor([0., 1., -1.]).sinc()),
    ('atan2 00', lambda t: t.atan2(t.tensor([0., 1., -1.]), t.tensor([0., 1., -1.]))),
    ('inf-inf', lambda t: t.tensor([float('inf')]) - float('inf')),
    ('inf*0', lambda t: t.tensor([float('inf')]) * 0),
    ('nan cmp', lambda t: t.tensor([float('nan')]) > 0),
    ('nan max', lambda t: t.tensor([float('nan'), 1.]).max()),
    ('f16 mul overflow', lambda t: t.tensor([60000.], dtype=t.float16) * 2),
    ('f16 add overflow', lambda t: t.tensor([60000.], dtype=t.float16) + 60000),
    ('f16 from f32', lambda t: t.tensor([1e10]).half()),
    ('f32 from f64', lambda t: t.tensor([1e300], dtype=t.float64).float()),
    ('nan->int', lambda t: t.tensor([float('nan')]).long()),
    ('inf->int', lambda t: t.tensor([float('inf')]).int()),
    ('big->int8', lambda t: t.tensor([1000.]).to(t.int8)),
    ('big->uint8', lambda t: t.tensor([-1.]).to(t.uint8)),
    ('nan->bool', lambda t: t.tensor([float('nan')]).bool()),
    ('nan->int type', lambda t: t.tensor([float('nan')]).type(t.int32)),
    ('complex->float', lambda t: t.tensor([1+1j]).real),
    ('cast via tensor()', lambda t: t.tensor([float('nan')], dtype=t.int64)),
    ('softmax -inf', lambda t: t.nn.functional.softmax(t.full((2,3), float('-inf')), dim=1)),
    ('log_softmax -inf', lambda t: t.nn.functional.log_softmax(t.full((2,3), float('-inf')), dim=1)),
    ('softmax inf', lambda t: t.nn.functional.softmax(t.tensor([float('inf'), 1.]), 0)),
    ('logsumexp -inf', lambda t: t.full((3,), float('-inf')).logsumexp(0)),
    ('logsumexp inf', lambda t: t.tensor([float('inf'), float('inf')]).logsumexp(0)),
    ('norm 1e30', lambda t: t.tensor([1e30, 1e30]).norm()),
    ('linalg.norm 1e30', lambda t: t.linalg.norm(t.tensor([1e30, 1e30]))),
    ('vector_norm 1e30 p3', lambda t: t.linalg.vector_norm(t.tensor([1e30, 1e30]), 3)),
    ('matrix_norm fro 1e30', lambda t: t.linalg.matrix_norm(t.full((2,2), 1e30))),
    ('dist 1e30', lambda t: t.dist(t.tensor([1e30, 1e30]), -t.tensor([1e30, 1e30]))),
    ('cdist 1e30', lambda t: t.cdist(t.tensor([1e30, 1e30]).reshape(1,1,2), -t.tensor([1e30, 1e30]).reshape(1,1,2))),
    ('normalize 0', lambda t: t.nn.functional.normalize(t.zeros(2,3))),
    ('cosine_sim 0', lambda t: t.nn.functional.cosine_similarity(t.zeros(2,3), t.zeros(2,3))),
    ('pdist 0', lambda t: t.nn.functional.pdist(t.zeros(3,2))),
    ('var 1', lambda t: t.ones(1).var()),
    ('std 1', lambda t: t.ones(1).std()),
    ('var_mean 1', lambda t: t.var_mean(t.ones(1))),
    ('std_mean 1', lambda t: t.std_mean(t.ones(1))),
    ('mean empty', lambda t: t.ones(0).mean()),
    ('mean dim empty', lambda t: t.ones(0, 3).mean(0)),
    ('var empty', lambda t: t.ones(0).var()),
    ('nanmedian all nan', lambda t: t.tensor([float('nan')]).nanmedian()),
    ('median nan', lambda t: t.tensor([float('nan'), 1.]).median()),
    ('prod big', lambda t: t.full((100,), 1e10).prod()),
    ('cumprod big', lambda t: t.full((100,), 1e10).cumprod(0)),
    ('sigmoid -big', lambda t: t.tensor([-1000.]).sigmoid()),
    ('tanh big', lambda t: t.tensor([1000.]).tanh()),
    ('softplus big', lambda t: t.nn.functional.softplus(t.tensor([1000.]))),
    ('logsigmoid -big', lambda t: t.nn.functional.logsigmoid(t.tensor([-1000.]))),
    ('elu -big', lambda t: t.nn.functional.elu(t.tensor([-1000.]))),
    ('selu -big', lambda t: t.nn.functional.selu(t.tensor([-1000.]))),
    ('celu 0 alpha', lambda t: t.nn.functional.celu(t.tensor([-1.]), alpha=1e-30)),
    ('gelu big', lambda t: t.nn.functional.gelu(t.tensor([1e30]))),
    ('silu -big', lambda t: t.nn.functional.silu(t.tensor([-1000.]))),
    ('mish big', lambda t: t.nn.functional.mish(t.tensor([1000.]))),
    ('bce 0', lambda t: t.nn.functional.binary_cross_entropy(t.tensor([0., 1.]), t.tensor([1., 0.]))),
    ('bce_logits big', lambda t: t.nn.functional.binary_cross_entropy_with_logits(t.tensor([1000., -1000.]), t.tensor([0., 1.]))),
    ('kl_div 0', lambda t: t.nn.functional.kl_div(t.tensor([0.]).log(), t.tensor([0.]), reduction='sum')),
    ('nll -inf', lambda t: t.nn.functional.nll_loss(t.full((1,2), float('-inf')), t.tensor([0]))),
    ('cross_entropy -inf', lambda t: t.nn.functional.cross_entropy(t.full((1,2), float('-inf')), t.tensor([0]))),
    ('poisson_nll', lambda t: t.nn.functional.poisson_nll_loss(t.tensor([1000.]), t.tensor([1.]), log_input=True)),
    ('gaussian_nll 0 var', lambda t: t.nn.functional.gaussian_nll_loss(t.tensor([1.]), t.tensor([0.]), t.tensor([0.]))),
    ('mse inf', lambda t: t.nn.functional.mse_loss(t.tensor([float('inf')]), t.tensor([float('inf')]))),
    ('mean of inf', lambda t: t.tensor([float('inf'), -float('inf')]).mean()),
    ('batchnorm const', lambda t: t.nn.functional.batch_norm(t.ones(4, 2), None, None, training=True, eps=0.)),
    ('layernorm const eps0', lambda t: t.nn.functional.layer_norm(t.ones(2, 4), (4,), eps=0.)),
    ('instance_norm', lambda t: t.nn.functional.instance_norm(t.ones(1, 1, 1), eps=0.)),
    ('group_norm', lambda t: t.nn.functional.group_norm(t.ones(1, 2, 1), 1, eps=0.)),
    ('matmul f16 overflow', lambda t: t.full((2,2), 60000., dtype=t.float16) @ t.full((2,2), 60000., dtype=t.float16)),
    ('matmul inf', lambda t: t.tensor([[float('inf'), 0.]]) @ t.tensor([[0.], [1.]])),
    ('addmm nan', lambda t: t.addmm(t.zeros(1,1), t.tensor([[float('inf')]]), t.tensor([[0.]]))),
    ('det nan', lambda t: t.linalg.det(t.full((2,2), float('nan')))),
    ('det big', lambda t: t.linalg.det(t.eye(3) * 1e200)),
    ('slogdet 0', lambda t: t.linalg.slogdet(t.zeros(2,2))),
    ('inv inf', lambda t: t.linalg.inv(t.tensor([[float('inf'), 0.], [0., 1.]]))),
    ('solve inf', lambda t: t.linalg.solve(t.eye(2), t.tensor([float('inf'), 1.]))),
    ('exp_ inplace', lambda t: t.tensor([1000.]).exp_()),
    ('div_ inplace', lambda t: t.ones(2).div_(0)),
    ('idiv', lambda t: t.ones(2).__itruediv__(0)),
    ('pow tensor', lambda t: t.pow(t.tensor([0.]), t.tensor([-1.]))),
    ('float_power', lambda t: t.float_power(t.tensor([0.]), -1)),
    ('hypot inf', lambda t: t.hypot(t.tensor([float('inf')]), t.tensor([float('nan')]))),
    ('logaddexp inf', lambda t: t.logaddexp(t.tensor([float('inf')]), t.tensor([float('inf')]))),
    ('logaddexp -inf', lambda t: t.logaddexp(t.tensor([float('-inf')]), t.tensor([float('-inf')]))),
    ('clamp nan', lambda t: t.tensor([float('nan')]).clamp(0, 1)),
    ('round big', lambda t: t.tensor([1e308], dtype=t.float64).round(decimals=10)),
    ('nan_to_num', lambda t: t.tensor([float('nan'), float('inf')]).nan_to_num()),
    ('frexp inf', lambda t: t.frexp(t.tensor([float('inf')]))),
    ('ldexp big', lambda t: t.ldexp(t.tensor([1.]), t.tensor([2000]))),
    ('i0 big', lambda t: t.i0(t.tensor([1000.]))),
    ('erfc', lambda t: t.erfc(t.tensor([-1000.]))),
    ('bincount w nan', lambda t: t.bincount(t.tensor([0]), t.tensor([float('nan')]))),
    ('trapz inf', lambda t: t.trapezoid(t.tensor([float('inf'), -float('inf')]))),
    ('interpolate', lambda t: t.nn.functional.interpolate(t.full((1,1,2), 1e38), scale_factor=2, mode='linear')),
    ('rsub inf', lambda t: 1 - t.tensor([float('inf')]) * 0),
    ('addcdiv 0', lambda t: t.addcdiv(t.zeros(1), t.zeros(1), t.zeros(1))),
    ('sgn', lambda t: t.sgn(t.tensor([0j]))),
    ('angle', lambda t: t.angle(t.tensor([float('nan')]))),
    ('complex div 0', lambda t: t.tensor([1+1j]) / 0),
    ('complex abs big', lambda t: t.tensor([1e300+1e300j]).abs()),
    ('quantile nan', lambda t: t.tensor([float('nan'), 1.]).max(0)),
    ('mul int overflow', lambda t: t.tensor([2**62]) * 4),
    ('neg int min', lambda t: -t.tensor([-2**63])),
    ('abs int min', lambda t: t.tensor([-2**63]).abs()),
    ('int floordiv min', lambda t: t.tensor([-2**63]) // -1),
    ('int pow big', lambda t: t.tensor([10]) ** 30),
    ('std_mean one unbiased', lambda t: t.tensor([1.]).std(unbiased=True)),
    ('cov?', lambda t: t.zeros(2).var(correction=5)),
    ('sum inf -inf', lambda t: t.tensor([float('inf'), -float('inf')]).sum()),
    ('ones f16 div', lambda t: t.ones(2, dtype=t.float16) / 0),
    ('dropout p1', lambda t: t.nn.functional.dropout(t.ones(3), p=1.0)),
    ('alpha_dropout p1', lambda t: t.nn.functional.alpha_dropout(t.ones(3), p=1.0, training=True)),
    ('embedding max_norm 0', lambda t: t.nn.functional.embedding(t.tensor([0]), t.zeros(2, 2), max_norm=1.)),
    ('pairwise_distance', lambda t: t.nn.functional.pairwise_distance(t.full((1,2), 1e30), t.full((1,2), -1e30))),
    ('triplet', lambda t: t.nn.functional.triplet_margin_loss(t.full((1,2), 1e30), t.zeros(1,2), t.zeros(1,2))),
    ('cosine_embedding 0', lambda t: t.nn.functional.cosine_embedding_loss(t.zeros(1,2), t.zeros(1,2), t.ones(1))),
    ('ctc?', lambda t: t.nn.functional.huber_loss(t.tensor([float('inf')]), t.tensor([float('inf')]))),
    ('local_response_norm', lambda t: t.nn.functional.local_response_norm(t.zeros(1, 2, 2), 2, k=0.)),
    ('lp_pool 0', lambda t: t.nn.functional.lp_pool1d(t.zeros(1, 1, 4), 0.5, 2)),
    ('avg_pool f16', lambda t: t.nn.functional.avg_pool1d(t.full((1,1,4), 60000., dtype=t.float16), 2)),
    ('adaptive_avg f16', lambda t: t.nn.functional.adaptive_avg_pool1d(t.full((1,1,4), 60000., dtype=t.float16), 1)),
    ('conv f16', lambda t: t.nn.functional.conv1d(t.full((1,1,4), 60000., dtype=t.float16), t.full((1,1,2), 60000., dtype=t.float16))),
    ('linear f16', lambda t: t.nn.functional.linear(t.full((1,4), 300., dtype=t.float16), t.full((1,4), 300., dtype=t.float16))),
    ('sdpa -inf', lambda t: t.nn.functional.scaled_dot_product_attention(t.ones(1,2,2), t.ones(1,2,2), t.ones(1,2,2), attn_mask=t.zeros(2,2,dtype=t.bool))),]


def _warnings_of(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(lib)
        except Exception:  # noqa: BLE001 - errors are compared elsewhere; warnings here
            pass
    return [(w.category.__name__, str(w.message).split(" (Triggered internally")[0])
            for w in caught]


@pytest.mark.parametrize("fn", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_warnings_match_torch(fn):
    assert _warnings_of(numtorch, fn) == _warnings_of(torch, fn)


def test_a_users_own_numpy_calls_still_warn():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.log(np.zeros(1))
        numtorch.zeros(1).log()
    assert [w.category for w in caught] == [RuntimeWarning]
    assert "divide by zero" in str(caught[0].message)
    assert caught[0].filename == __file__


def test_a_users_numpy_call_inside_a_function_numtorch_runs_warns():
    class Log(numtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return numtorch.from_numpy(np.log(x.detach().numpy()))

        @staticmethod
        def backward(ctx, g):
            return g

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Log.apply(numtorch.zeros(1, requires_grad=True))
    assert [w.category for w in caught] == [RuntimeWarning]


def test_explicit_numpy_error_settings_are_respected():
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            np.log(np.zeros(1))
    with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.log(np.zeros(1))
    assert not caught

