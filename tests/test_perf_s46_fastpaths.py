"""Correctness of session 46's overhead fast paths (oracle: real torch at test time).

Each fast path skips work for a common case; these tests compare that case and the cases next
to it that must still take the full path (values, dtypes, strides, gradients, errors)."""

import numpy as np
import pytest

from tests.oracle import same


def _grad_of(fn):
    """``fn(x)`` for a float32 (2, 3) leaf, its result and the leaf's gradient."""
    def run(t):
        x = t.tensor([[0.25, -3.0, 1.0], [2.0, 1e-8, 0.9999999]], requires_grad=True)
        y = fn(t, x)
        y.sum().backward()
        return y, x.grad
    return run


# -- clamp with number bounds: the range check skipped for numbers that fit ------------------

CLAMP = {
    "probs_eps": lambda t, x: x.clamp(min=1e-7, max=1 - 1e-7),
    "int_bounds": lambda t, x: x.clamp(-1, 1),
    "min_only": lambda t, x: x.clamp(min=0.5),
    "max_only": lambda t, x: t.clamp(x, max=0.5),
    "min_above_max": lambda t, x: x.clamp(min=1.0, max=-1.0),
    "inf_bounds": lambda t, x: x.clamp(min=float("-inf"), max=float("inf")),
    "float32_max": lambda t, x: x.clamp(min=-3.4028234663852886e38, max=3.4028234663852886e38),
    "clip": lambda t, x: x.clip(-0.5, 0.5),
}


@pytest.mark.parametrize("case", sorted(CLAMP))
def test_clamp_number_bounds(case):
    same(_grad_of(CLAMP[case]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("bounds", [(1e-7, 1 - 1e-7), (-2, 2), (1e39, None), (None, -1e39),
                                    (-1e300, 1e300), (True, None), (float("nan"), None),
                                    (70000.0, None)])
def test_clamp_bound_ranges(dtype, bounds):
    """Bounds inside and outside each dtype's range: the overflow error where torch raises
    it, the value where it clamps."""
    lo, hi = bounds

    def run(t):
        x = t.tensor([-1.5, 0.25, 3.0], dtype=getattr(t, dtype))
        return x.clamp(min=lo, max=hi).float()
    same(run)


def test_clamp_nan_input_and_out():
    def run(t):
        x = t.tensor([float("nan"), -2.0, 0.5])
        out = t.empty(3)
        r = t.clamp(x, -1.0, 1.0, out=out)
        return r, out, r is out
    same(run)


def test_clamp_categorical_log_prob():
    """A policy's step: Categorical(probs).log_prob (clamped probabilities) and its gradient."""
    def run(t):
        t.manual_seed(0)
        logits = t.tensor([[0.3, -1.2], [2.0, 0.1]], requires_grad=True)
        probs = t.softmax(logits, dim=1)
        m = t.distributions.Categorical(probs)
        lp = m.log_prob(t.tensor([1, 0]))
        (-lp * t.tensor([0.5, -1.0])).sum().backward()
        return lp, logits.grad
    same(run, rtol=1e-6, atol=1e-7)


# -- unary elementwise results: row-major operands keep the row-major result -----------------

UNARY_LAYOUT = {
    "contiguous": lambda t: t.arange(6.0).reshape(2, 3),
    "row": lambda t: t.arange(3.0).reshape(1, 3),
    "column_of_transpose": lambda t: t.arange(6.0).reshape(2, 3).t()[:1],
    "transposed": lambda t: t.arange(6.0).reshape(2, 3).t(),
    "expanded": lambda t: t.arange(3.0).reshape(1, 3).expand(2, 3),
    "unit_stride_odd": lambda t: t.arange(12.0).reshape(3, 4)[:, :1],
    "channels_last": lambda t: t.arange(24.0).reshape(1, 2, 3, 4).to(
        memory_format=t.channels_last),
}


@pytest.mark.parametrize("case", sorted(UNARY_LAYOUT))
@pytest.mark.parametrize("op", ["clamp", "relu"])
def test_unary_pointwise_layout(case, op):
    def run(t):
        x = UNARY_LAYOUT[case](t)
        y = {"clamp": lambda: x.clamp(1.0, 4.0), "relu": lambda: t.relu(x - 2),
             "sigmoid": lambda: x.sigmoid()}[op]()
        return y, y.stride(), y.is_contiguous()
    same(run)


def test_unary_layout_numpy_view_input():
    """A tensor sharing a NumPy array's (non-owned) memory."""
    def run(t):
        a = np.arange(8.0, dtype=np.float32).reshape(2, 4)
        x = t.from_numpy(a[:, ::2])
        y = x.clamp(min=1.0)
        return y, y.stride()
    same(run)


# -- sums over a last dim of 2-3 values: the ordered sum's two cases without its planning -----

SUM_ROWS = [(2,), (3,), (1, 2), (1, 3), (5, 2), (4, 3), (2, 1, 3), (1, 1, 2), (3, 2, 1, 3),
            (2, 4), (1,)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SUM_ROWS, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_short_last_dim_bits(dtype, shape, keepdim):
    """Bit for bit: values whose sum depends on the order they are added in."""
    rng = np.random.default_rng(len(shape) * 10 + shape[-1])
    a = (rng.standard_normal(shape) * np.array([1e8, 1.0, -1e8][:shape[-1]] + [1.0] * max(
        0, shape[-1] - 3))).astype(dtype)
    a.flat[0] = -0.0

    def run(t):
        x = t.tensor(a, requires_grad=True)
        y = x.sum(-1, keepdim=keepdim)
        (y * 2).sum().backward()
        return y, x.grad, t.sum(x.detach(), dim=len(shape) - 1, keepdim=keepdim)
    same(run)


def test_sum_short_last_dim_negative_zeros():
    """torch's accumulator starts at +0: a row of -0. sums to +0."""
    same(lambda t: t.tensor([[-0.0, -0.0], [-0.0, 1.0]]).sum(-1))


def test_sum_short_last_dim_not_contiguous_and_int():
    def run(t):
        x = t.tensor([[1e8, 1.0], [3.0, -1e8], [0.5, 0.25]]).t()  # (2, 3) transposed
        return x.sum(-1), x.sum(0), t.tensor([[1, 2], [3, 4]]).sum(-1), \
            t.tensor([[1.0, 2.0]], dtype=t.float16).sum(-1)
    same(run)


def test_categorical_normalises_probs():
    """Categorical(probs) divides by the sum over the last dim (2 and 3 classes)."""
    def run(t):
        p = t.tensor([[0.2, 0.3], [1.0, 3.0]], requires_grad=True)
        q = t.tensor([0.1, 0.7, 0.2000001])
        m2, m3 = t.distributions.Categorical(p), t.distributions.Categorical(q)
        m2.probs.sum().backward()
        return m2.probs, m3.probs, p.grad
    same(run)


# -- recorded ops share their inputs' (shape, dtype) metadata with the producing node ---------

def _chain(t, x):
    """A chain of shape-keeping ops (each shares its input's metadata) and broadcasting ones."""
    y = (x * 2.0).relu().sigmoid()
    z = y + t.ones(1, x.shape[-1])  # broadcast operand: its gradient is summed back
    return (z.clamp(0.6, 2.0) * y).log().sum()


META_CASES = {
    "chain": lambda t, x: _chain(t, x),
    "leaf_twice": lambda t, x: (x * x).sum() + (x + 1).tanh().sum(),
    "multi_output": lambda t, x: sum(p.exp().sum() for p in x.split(1, dim=0)),
    "max_values": lambda t, x: x.max(dim=1).values.relu().sum(),
    "view_then_op": lambda t, x: x.view(-1).sigmoid().mul(3.0).sum(),
    "dtype_change": lambda t, x: (x.double() * 2).float().sum(),
    "inplace_nonleaf": lambda t, x: (x * 1).add_(1.0).mul_(2.0).exp().sum(),
    "reduce_then_broadcast": lambda t, x: (x.sum(1, keepdim=True) * x).sum(),
}


@pytest.mark.parametrize("case", sorted(META_CASES))
def test_shared_meta_gradients(case):
    def run(t):
        x = t.tensor([[0.5, -1.0, 2.0], [0.25, 1.5, -0.75]], requires_grad=True)
        out = META_CASES[case](t, x)
        out.backward()
        return out, x.grad
    same(run, rtol=1e-6, atol=1e-7)


def test_shared_meta_after_data_swap():
    """``.data`` replaced by another shape after the producing op: the op reading the tensor
    must see the new shape (its gradient is shaped like the new data)."""
    def run(t):
        w = t.ones(2, 3, requires_grad=True)
        y = w * 2.0
        y.data = t.ones(3)  # the node that made y still describes (2, 3)
        z = y * t.tensor([1.0, 2.0, 3.0])
        gy = t.autograd.grad(z.sum(), y, retain_graph=True)
        leaf = t.ones(2, requires_grad=True)
        leaf.data = t.arange(4.0)
        (leaf * 3.0).sum().backward()
        return z, gy, leaf.grad
    same(run)


def test_shared_meta_custom_function():
    """An autograd.Function's outputs (its node's own metadata, a non-tensor output)."""
    def run(t):
        class Twice(t.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2, 7

            @staticmethod
            def backward(ctx, g, _):
                return g * 2

        x = t.tensor([1.0, -2.0], requires_grad=True)
        y, k = Twice.apply(x)
        (y.sigmoid() * k).sum().backward()
        return y, x.grad
    same(run, rtol=1e-6)


def test_shared_meta_half_and_complex():
    def run(t):
        x = t.tensor([0.5, 1.5], dtype=t.float16, requires_grad=True)
        c = t.tensor([1 + 2j, -1j], requires_grad=True)
        (x * 2).float().sum().backward()
        (c * c).abs().sum().backward()
        return x.grad, c.grad
    same(run, rtol=1e-3)


# -- squeeze(dim): the one-dim shape and strides without the general comprehension ------------

SQUEEZE = {
    "last_unit": lambda t: t.arange(6.0).reshape(2, 3, 1),
    "first_unit": lambda t: t.arange(3.0).reshape(1, 3),
    "middle_unit_strided": lambda t: t.arange(24.0).reshape(4, 6)[::2, 1:2].unsqueeze(1),
    "not_unit": lambda t: t.arange(6.0).reshape(2, 3),
    "transposed": lambda t: t.arange(6.0).reshape(3, 1, 2).transpose(0, 2),
    "zero_d": lambda t: t.tensor(2.0),
    "empty": lambda t: t.zeros(0, 1, 3),
}


@pytest.mark.parametrize("case", sorted(SQUEEZE))
@pytest.mark.parametrize("dim", [0, 1, -1, None, (0, -1)])
def test_squeeze_one_dim(case, dim):
    def run(t):
        base = SQUEEZE[case](t).clone().requires_grad_(True)
        x = base * 1
        if dim is not None and x.dim() == 0 and dim not in (0, -1):
            return "skip"
        y = x.squeeze() if dim is None else x.squeeze(dim)
        (y * 2).sum().backward()
        return y, y.shape, y.stride() if y.numel() else None, y._base is x, base.grad, \
            type(y.grad_fn).__name__ if y.grad_fn is not None else None
    same(run)


def test_squeeze_view_writes_through():
    def run(t):
        x = t.zeros(2, 1, 3)
        y = x.squeeze(1)
        y[0, 1] = 5.0
        z = t.ones(1, 4)
        w = z.squeeze(-1)  # nothing removed: still a view
        w[0, 0] = 3.0
        return x, y.stride(), z, w.shape
    same(run)
