"""The small-tensor fast paths (gather's index building, the fused division gradient, one-op
dropout) against torch: values, dtypes, gradients and second-order gradients, and errors."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, check_raises


def _index(rng, shape, size, dtype=np.int64):
    return rng.integers(0, size, size=shape).astype(dtype)


@pytest.mark.parametrize("xshape,ishape,dim", [
    ((1, 2), (1, 1), 1),          # Categorical.log_prob of one state
    ((1, 2), (1, 1), -1),
    ((1, 5), (1, 7), 1),          # one line, repeated indices (flat take; scatter-add back)
    ((3, 1), (2, 1), 0),
    ((1, 1, 4), (1, 1, 1), 2),
    ((5, 4), (5, 3), 1),
    ((5, 4), (2, 4), 0),
    ((5, 4), (3, 2), 1),          # index smaller than the input outside dim
    ((3, 4, 5), (3, 4, 1), 2),
    ((3, 4, 5), (2, 6, 3), 1),
    ((3, 4, 5), (5, 2, 5), 0),
    ((2, 1, 3, 2), (2, 1, 3, 1), 3),
    ((6,), (9,), 0),
    ((4, 3), (0, 3), 0),          # empty index
])
@pytest.mark.parametrize("idx_dtype", [np.int64, np.int32])
def test_gather_matches_torch(xshape, ishape, dim, idx_dtype):
    rng = np.random.default_rng(len(xshape) * 7 + abs(dim))
    idx = _index(rng, ishape, xshape[dim], idx_dtype)
    check_op(lambda t, x, i: t.gather(x, dim, i), [xshape, idx])
    check_op(lambda t, x, i: x.gather(dim, i) * 2, [xshape, idx], dtype="float32")


@pytest.mark.parametrize("idx_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("bad", [-1, 2, 7])
def test_gather_out_of_range_index_raises_torchs_error(bad, idx_dtype):
    idx = np.array([[0], [bad]], dtype=idx_dtype)
    x = np.zeros((2, 2), dtype=np.float32)
    for lib in (numtorch, torch):
        with pytest.raises(RuntimeError) as e:
            lib.gather(lib.from_numpy(x), 1, lib.from_numpy(idx))
        assert f"index {bad} is out of bounds for dimension 1 with size 2" in str(e.value)


@pytest.mark.parametrize("shape", [(), (2, 3), (0, 3), (1, 2)])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("keepdim", [True, False])
def test_sum_over_one_int_dim_matches_torch(shape, dim, keepdim):
    check_op(lambda t, x: x.sum(dim, keepdim=keepdim), [shape])
    check_op(lambda t, x: (t.sum(x, dim, keepdim), type(t.sum(x, dim).grad_fn).__name__),
             [shape])


@pytest.mark.parametrize("call", [lambda t: t.ones(2).sum(1), lambda t: t.tensor(1.0).sum(1),
                                  lambda t: t.ones(2).sum(0, keepdim=1),
                                  lambda t: t.ones(2, 3).sum(-3)])
def test_sum_over_a_bad_int_dim_raises_torchs_error(call):
    check_raises(call)


def test_scatter_add_with_collisions_matches_torch():
    idx = np.array([[0, 1, 0, 2], [2, 2, 2, 0]])
    check_op(lambda t, x, s, i: x.scatter_add(1, i, s), [(2, 3), (2, 4), idx])


@pytest.mark.parametrize("ashape,bshape", [
    ((3, 4), (3, 4)), ((1, 2), (1, 1)), ((4, 1), (1, 5)), ((), (3,)), ((2, 3), ()),
    ((2, 3, 4), (3, 1)), ((0, 3), (3,)),
])
@pytest.mark.parametrize("which", ["both", "a", "b"])
def test_division_gradients_match_torch(ashape, bshape, which):
    def fn(t, a, b):
        if which == "a":
            b = b.detach()
        elif which == "b":
            a = a.detach()
        return a / b

    # divisors kept away from zero so the second-order check is well conditioned
    rng = np.random.default_rng(3)
    a = np.asarray(rng.uniform(-2, 2, ashape))
    b = np.asarray(rng.uniform(0.5, 2, bshape) * rng.choice([-1, 1], bshape))
    check_op(fn, [a, b])
    check_op(fn, [a.astype(np.float32), b.astype(np.float32)], dtype="float32")


def test_division_gradient_of_complex_operands_matches_torch():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3,)) + 1j * rng.standard_normal((3,))
    b = rng.standard_normal((3,)) + 1j * rng.standard_normal((3,)) + 2
    check_op(lambda t, x, y: (x / y).abs(), [a, b], second_order=False)


def test_division_gradient_node_is_torchs_and_a_second_backward_fails():
    x = numtorch.tensor([1.0, 2.0], requires_grad=True)
    y = numtorch.tensor([3.0, 4.0], requires_grad=True)
    z = x / y
    assert z.grad_fn.name() == "DivBackward0"
    z.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.sum().backward()


@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
def test_dropout_is_bernoulli_noise_times_input(dtype):
    # the one-op path must draw exactly what bernoulli_(1 - p).div_(1 - p) draws
    x = numtorch.randn(7, 13, dtype=dtype, requires_grad=True)
    numtorch.manual_seed(3)
    y = numtorch.nn.functional.dropout(x, 0.6)
    numtorch.manual_seed(3)
    noise = numtorch.empty(7, 13, dtype=dtype).bernoulli_(0.4).div_(0.4)
    assert y.dtype is dtype and torch.equal(torch.from_numpy(y.detach().numpy()),
                                            torch.from_numpy((x * noise).detach().numpy()))
    y.backward(numtorch.ones_like(y))
    np.testing.assert_array_equal(x.grad.numpy(), noise.numpy())
    assert type(y.grad_fn).__name__ == "MulBackward0"


def test_dropout_keeps_about_one_minus_p_and_the_mean():
    numtorch.manual_seed(0)
    y = numtorch.nn.functional.dropout(numtorch.ones(100000), 0.3)
    kept = (y != 0).float().mean().item()
    assert abs(kept - 0.7) < 0.01 and abs(y.mean().item() - 1) < 0.02
    assert set(np.unique(y.numpy()).tolist()) == {0.0, np.float32(1 / 0.7).item()}


def test_dropout_argument_errors_match_torch():
    check_raises(lambda t, x: t.nn.functional.dropout(x, 1.5), [np.ones(3, np.float32)],
                 match="dropout probability has to be between 0 and 1, but got 1.5")
    check_raises(lambda t, x: t.nn.functional.dropout(x.numpy(), 0.5),
                 [np.ones(3, np.float32)])


def test_single_multinomial_draws_follow_each_row_and_the_weights():
    probs = numtorch.eye(4, dtype=numtorch.float64)[[2, 0, 3, 1]]
    assert numtorch.multinomial(probs, 1).tolist() == [[2], [0], [3], [1]]
    assert numtorch.distributions.Categorical(probs).sample().tolist() == [2, 0, 3, 1]
    # zero weights (leading, inner, trailing) are never drawn; the others at their rates
    w = numtorch.tensor([0.0, 0.1, 0.0, 0.6, 0.3, 0.0])
    numtorch.manual_seed(0)
    draws = numtorch.cat([numtorch.multinomial(w, 1) for _ in range(20000)])
    freq = numtorch.bincount(draws, minlength=6).double() / 20000
    assert freq[[0, 2, 5]].tolist() == [0.0, 0.0, 0.0]
    np.testing.assert_allclose(freq[[1, 3, 4]].numpy(), [0.1, 0.6, 0.3], atol=0.015)


@pytest.mark.parametrize("shape", [(3,), (1, 3), (4, 3)])
@pytest.mark.parametrize("replacement", [False, True])
def test_single_multinomial_draw_shape_and_dtype_match_torch(shape, replacement):
    w = np.random.default_rng(0).uniform(0.1, 1, shape).astype(np.float32)
    got = numtorch.multinomial(numtorch.from_numpy(w), 1, replacement)
    want = torch.multinomial(torch.from_numpy(w), 1, replacement)
    assert tuple(got.shape) == tuple(want.shape) and got.dtype is numtorch.int64


@pytest.mark.parametrize("bad", [[-1.0, 1.0], [0.0, 0.0], [float("inf"), 1.0],
                                 [float("nan"), 1.0], [[1.0, 1.0], [0.0, -0.5]],
                                 [[1.0, 1.0], [0.0, 0.0]]])
def test_single_multinomial_draw_of_bad_weights_raises_torchs_error(bad):
    w = np.array(bad, dtype=np.float32)
    nt_exc, th_exc = check_raises(lambda t, x: t.multinomial(x, 1), [w])
    assert str(nt_exc) == str(th_exc)


@pytest.mark.parametrize("shapes", [[(4,), (3, 4), (3,)], [(4,), (3, 4)], [(5,), (1, 5), (1,)]])
def test_linear_of_one_sample_matches_torch(shapes):
    # a 1-D input (an actor-critic's state) takes the fused op: one node, named as torch's
    def fn(t, x, w, b=None):
        return t.nn.functional.linear(x, w, b)

    check_op(fn, shapes)
    check_op(fn, shapes, dtype="float32")
    x, w = numtorch.randn(4, requires_grad=True), numtorch.randn(3, 4)
    names = [type(numtorch.nn.functional.linear(x, w, *b).grad_fn).__name__
             for b in ((numtorch.zeros(3),), ())]
    assert names == ["ViewBackward0", "SqueezeBackward4"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 1, 3, 2)])
def test_plain_sum_matches_torch(shape, dtype):
    # ``x.sum()`` with no arguments skips the argument checks: values, dtype, node name and
    # gradient as torch's
    check_op(lambda t, x: x.sum(), [shape], dtype=dtype)
    for lib in (numtorch, torch):
        y = lib.ones(shape, requires_grad=True).sum()
        assert y.grad_fn.name() == "SumBackward0"


def test_sum_argument_errors_match_torch():
    for fn in (lambda t: t.ones(2).sum(keepdim=1), lambda t: t.ones(2).sum(1.5),
               lambda t: t.ones(2).sum(dtype="x")):
        ours, theirs = check_raises(fn)
    assert "keepdim" in str(check_raises(lambda t: t.ones(2).sum(0, 1))[0])
    # integer and bool tensors still sum to int64
    for dt in ("int32", "bool"):
        assert numtorch.ones(3, dtype=getattr(numtorch, dt)).sum().dtype == numtorch.int64


def test_cat_of_many_pieces_and_its_errors_match_torch():
    # per-step losses: many one-element pieces with gradients, one node
    check_op(lambda t, *xs: t.cat(list(xs)).sum() * 2, [(1,)] * 12, dtype="float32")
    check_op(lambda t, a, b, e: t.cat([a, e, b], 1), [(2, 3), (2, 1), (0,)])  # legacy empty
    check_op(lambda t, a, e: t.cat([e, a, e]), [(2, 3), (0,)])
    for fn in (lambda t: t.cat([t.ones(2, 3), t.ones(2, 2)]),
               lambda t: t.cat([t.ones(2, 3), t.ones(2, 3, 1)]),
               lambda t: t.cat([t.ones(()), t.ones(())]),
               lambda t: t.cat([t.ones(2), 1.0]),
               lambda t: t.cat([])):
        ours, theirs = check_raises(fn)
        assert str(ours) == str(theirs)


def test_stack_of_pieces_that_need_gradients_is_one_node():
    for lib in (numtorch, torch):
        xs = [lib.tensor(float(i), requires_grad=True) for i in range(3)]
        y = lib.stack(xs)
        assert y.grad_fn.name() == "StackBackward0"
        assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["AccumulateGrad"] * 3
    check_op(lambda t, a, b, c: t.stack([a, b, c], 1), [(2, 3)] * 3)
    check_op(lambda t, a, b: t.stack([a, b]), [(), ()], dtype="float32")
