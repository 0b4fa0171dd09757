"""Correctness of session 46's cat/stack fast paths for many small inputs (oracle: real torch
at test time): the cases the one-pass paths take and the cases next to them that must still
take the general path (values, dtypes, strides, gradients, node names, errors)."""

import pytest

from tests.oracle import same


def _described(r):
    """A result with what the oracle does not compare itself: strides and node name."""
    fn = r.grad_fn
    return r, tuple(r.stride()), r.is_contiguous(), None if fn is None else type(fn).__name__


def _inputs(t, kind, n=50, grad=False):
    """``n`` small tensors of one kind (each a fresh leaf when ``grad``)."""
    makers = {
        "one": lambda i: t.tensor([i * 0.5 - 3.0]),
        "four": lambda i: t.arange(4.0) * (i - 7) / 3,
        "scalar": lambda i: t.tensor(i * 0.25),
        "rows": lambda i: t.arange(6.0).reshape(2, 3) + i,
        "int": lambda i: t.tensor([i, -i], dtype=t.int64),
        "half": lambda i: t.tensor([i / 7, 1.5], dtype=t.float16),
    }
    xs = [makers[kind](i) for i in range(n)]
    if grad:
        xs = [x.detach().requires_grad_() for x in xs]
    return xs


CAT_KINDS = ["one", "four", "rows", "int", "half"]


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("kind", CAT_KINDS)
def test_cat_many_small(kind, dim):
    same(lambda t: _described(t.cat(_inputs(t, kind), dim)))


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("kind", CAT_KINDS + ["scalar"])
def test_stack_many_small(kind, dim):
    same(lambda t: _described(t.stack(_inputs(t, kind), dim)))


@pytest.mark.parametrize("fn", ["cat", "stack"])
@pytest.mark.parametrize("kind", ["one", "four", "rows"])
def test_join_many_small_grad(fn, kind):
    if fn == "cat" and kind == "scalar":
        pytest.skip("0-d tensors cannot be concatenated")

    def run(t):
        xs = _inputs(t, kind, grad=True)
        y = getattr(t, fn)(xs, 0)
        (y * t.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        return _described(y), [x.grad for x in xs]
    same(run)


def test_join_some_need_grad_and_no_grad_mode():
    def run(t):
        xs = _inputs(t, "four", 6)
        xs[3] = xs[3].detach().requires_grad_()
        y = t.cat(xs)
        z = t.stack(xs, 1)
        (y.sum() + z.sum()).backward()
        with t.no_grad():
            w = t.cat(xs)
            v = t.stack(xs)
        return _described(y), _described(z), xs[3].grad, _described(w), _described(v)
    same(run)


def test_join_views_of_a_leaf():
    """Views (rows of one tensor) with and without a graph: the general path's edges."""
    def run(t):
        base = t.arange(12.0).reshape(4, 3)
        rows = list(base)
        a = t.cat(rows)
        b = t.stack(rows, 1)
        leaf = base.clone().requires_grad_()
        c = t.cat(list(leaf))
        c.pow(2).sum().backward()
        return _described(a), _described(b), _described(c), leaf.grad
    same(run)


MISMATCHED = {
    # cat: other dims differ, ranks differ, a 0-d input, legacy empty 1-d among 2-d, dtypes
    "cat_other_dim": lambda t: t.cat([t.zeros(2, 3), t.zeros(2, 4)]),
    "cat_along_dim": lambda t: t.cat([t.zeros(2, 3), t.ones(5, 3)]),
    "cat_rank": lambda t: t.cat([t.zeros(2, 3), t.zeros(6)]),
    "cat_zero_d": lambda t: t.cat([t.zeros(2), t.tensor(1.0)]),
    "cat_legacy_empty": lambda t: t.cat([t.zeros(2, 3), t.zeros(0), t.ones(1, 3)]),
    "cat_empty_1d": lambda t: t.cat([t.zeros(0), t.ones(3), t.zeros(0)]),
    "cat_dtypes": lambda t: t.cat([t.zeros(2, dtype=t.int8), t.ones(2, dtype=t.float16)]),
    "cat_dtypes_first_wider": lambda t: t.cat([t.ones(2), t.zeros(2, dtype=t.int32)]),
    "cat_bad_dim": lambda t: t.cat([t.zeros(2), t.ones(2)], 1),
    "cat_not_tensor": lambda t: t.cat([t.zeros(2), [1.0, 2.0]]),
    "cat_number": lambda t: t.cat([t.zeros(2), 3.0]),
    "cat_grad_other_dim": lambda t: t.cat([t.zeros(2, 3, requires_grad=True), t.zeros(2, 4)]),
    "cat_grad_along_dim": lambda t: t.cat([t.zeros(2, 3, requires_grad=True), t.ones(5, 3)]),
    "cat_grad_rank": lambda t: t.cat([t.zeros(2, 3, requires_grad=True), t.zeros(0)]),
    "cat_view_other_dim": lambda t: t.cat([t.zeros(4, 3)[1:3], t.zeros(2, 4)[:, 1:]], 1),
    # stack: equal sizes but other shapes, ranks differ, empty ones, dtypes
    "stack_same_size_other_shape": lambda t: t.stack([t.zeros(2, 3), t.zeros(3, 2)]),
    "stack_sum_matches": lambda t: t.stack([t.zeros(2, 4), t.zeros(1, 4), t.zeros(3, 4)]),
    "stack_rank": lambda t: t.stack([t.zeros(1, 6), t.zeros(6)]),
    "stack_rank_1": lambda t: t.stack([t.zeros(1), t.tensor(2.0)]),
    "stack_empty_differ": lambda t: t.stack([t.zeros(2, 0), t.zeros(0, 0), t.zeros(4, 0)]),
    "stack_empty_same": lambda t: t.stack([t.zeros(2, 0), t.zeros(2, 0)], 1),
    "stack_dtypes": lambda t: t.stack([t.zeros(2, dtype=t.int8), t.ones(2)]),
    "stack_dim1_differ": lambda t: t.stack([t.zeros(2, 3), t.zeros(3, 2)], 1),
    "stack_not_tensor": lambda t: t.stack([t.zeros(2), [1.0, 2.0]]),
}


@pytest.mark.parametrize("case", sorted(MISMATCHED))
def test_join_general_path_cases(case):
    same(lambda t: _described(MISMATCHED[case](t)))


def test_cat_channels_last_many():
    # (a batch of 1 is left out: its stack gives the size-1 dim another stride than torch,
    # as before this session)
    def run(t):
        xs = [t.arange(48.0).reshape(2, 2, 3, 4).add(i).contiguous(
            memory_format=t.channels_last) for i in range(8)]
        return _described(t.cat(xs, 1)), _described(t.stack(xs))
    same(run)


# -- clamp with Python int bounds past int64 (torch's argument parser refuses them) ----------

CLAMP_DTYPES = ["float32", "float16", "bfloat16", "float64", "int64", "int32", "int16", "int8",
                "uint8", "bool"]
CLAMP_BIG = {
    "min_1e40": {"min": 10**40},
    "max_neg_1e40": {"max": -10**40},
    "min_1e20": {"min": 10**20},
    "min_2_63": {"min": 2**63},
    "min_2_64_minus_1": {"min": 2**64 - 1},
    "min_2_64": {"min": 2**64},
    "min_neg_2_63": {"min": -2**63},
    "min_neg_2_63_minus_1": {"min": -2**63 - 1},
    "max_1e400": {"max": 10**400},
    "float_1e40": {"min": 1e40},
    "both": {"min": 10**30, "max": 10**40},
    "min_1e10": {"min": 10**10},
}


@pytest.mark.parametrize("case", sorted(CLAMP_BIG))
@pytest.mark.parametrize("dtype", CLAMP_DTYPES)
def test_clamp_python_int_past_int64(dtype, case):
    def run(t):
        r = t.tensor([-1, 0, 3], dtype=getattr(t, dtype)).clamp(**CLAMP_BIG[case])
        return str(r.dtype), (r.double() if r.dtype is t.bfloat16 else r)
    same(run)


@pytest.mark.parametrize("fn", ["clamp_", "clip", "clamp_min", "clamp_max", "clamp_min_"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_clamp_variants_int_past_int64(fn, dtype):
    def run(t):
        x = t.tensor([-1, 0, 3], dtype=getattr(t, dtype))
        return getattr(x, fn)(10**40)
    same(run)
