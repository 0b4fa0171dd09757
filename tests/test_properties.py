"""Property tests (hypothesis): random shapes and index expressions, numtorch vs torch.

Broadcasting binary ops and ``where`` compare values, gradients and second-order gradients on
random mutually broadcastable shapes. Indexing draws random index tuples from a shape (ints,
slices with steps, None, an ellipsis, int lists or tensors, boolean masks) and checks
``x[idx]`` (values and gradients) and ``x[idx] = v`` (in place, and inside a graph). When torch
rejects an index, numtorch must raise the same kind of exception.
"""

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.oracle import check_op, check_raises

# derandomized so the suite is reproducible; raise max_examples locally to explore further
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

DTYPES = st.sampled_from(["float32", "float64"])


def _values(rng, shape, dtype, away_from_zero=False):
    x = np.asarray(rng.uniform(-2.0, 2.0, shape))
    if away_from_zero:
        x = np.sign(x + (x == 0)) * rng.uniform(0.5, 2.0, shape)
    return np.asarray(x, dtype=dtype)


BINARY = {
    "add": lambda t, a, b: a + b,
    "sub": lambda t, a, b: a - b,
    "mul": lambda t, a, b: a * b,
    "div": lambda t, a, b: a / b,
    "maximum": lambda t, a, b: t.maximum(a, b),
    "rsub-chain": lambda t, a, b: (a - b) * (b + a),
}


@SETTINGS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4,
                                                min_side=0, max_side=4),
       op=st.sampled_from(sorted(BINARY)), dtype=DTYPES, seed=st.integers(0, 2**16))
def test_broadcasting_binary_ops_match_torch(shapes, op, dtype, seed):
    rng = np.random.default_rng(seed)
    a = _values(rng, shapes.input_shapes[0], dtype)
    b = _values(rng, shapes.input_shapes[1], dtype, away_from_zero=op == "div")
    check_op(BINARY[op], [a, b], dtype=dtype)


@SETTINGS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                max_side=4),
       dtypes=st.tuples(DTYPES, DTYPES), seed=st.integers(0, 2**16))
def test_broadcasting_with_mixed_float_dtypes_matches_torch(shapes, dtypes, seed):
    rng = np.random.default_rng(seed)
    a = _values(rng, shapes.input_shapes[0], dtypes[0])
    b = _values(rng, shapes.input_shapes[1], dtypes[1], away_from_zero=True)
    check_op(lambda t, x, y: x * y + x / y, [a, b], dtype="float32")


@SETTINGS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3,
                                                min_side=0, max_side=4),
       dtype=DTYPES, seed=st.integers(0, 2**16))
def test_where_broadcasting_matches_torch(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    cond = np.asarray(rng.uniform(size=shapes.input_shapes[0]) > 0.5)
    a = _values(rng, shapes.input_shapes[1], dtype)
    b = _values(rng, shapes.input_shapes[2], dtype)
    check_op(lambda t, c, x, y: t.where(c, x * 2, y.exp()), [cond, a, b], dtype=dtype)


# -- random index expressions -------------------------------------------------------------------


class Adv:
    """An advanced index item kept as a NumPy array, given to each library as a list or as a
    tensor (``as_tensor``)."""

    def __init__(self, arr, as_tensor):
        self.arr, self.as_tensor = arr, as_tensor

    def build(self, lib):
        if self.as_tensor:
            return lib.from_numpy(self.arr.copy())
        return self.arr.tolist()

    def __repr__(self):
        return f"Adv({self.arr.tolist()!r}, tensor={self.as_tensor})"


def build_index(items, lib):
    return tuple(i.build(lib) if isinstance(i, Adv) else i for i in items)


@st.composite
def _dim_item(draw, n, list_len, unique):
    kinds = ["slice", "full"]
    if n > 0:
        kinds += ["int", "list"]
    kinds.append("mask")
    kind = draw(st.sampled_from(kinds))
    if kind == "full":
        return slice(None)
    if kind == "int":
        return draw(st.integers(-n, n - 1))
    if kind == "slice":
        bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
        step = st.one_of(st.none(), st.integers(1, 3))
        return slice(draw(bound), draw(bound), draw(step))
    if kind == "list":
        if unique:  # distinct positions: writes through the index then have one winner
            k = min(list_len, n)
            vals = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True))
            vals = [v - n if draw(st.booleans()) else v for v in vals]
        else:
            vals = draw(st.lists(st.integers(-n, n - 1), min_size=list_len,
                                 max_size=list_len))
        return Adv(np.array(vals, dtype=np.int64), draw(st.booleans()))
    mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    return Adv(mask, draw(st.booleans()))


@st.composite
def shape_and_index(draw, unique=False, max_dims=4):
    """A shape and an index tuple for it: each indexed dim gets one item; an optional ellipsis
    stands for a run of untouched dims; None entries are sprinkled in."""
    zero_sides = draw(st.integers(0, 5)) == 0  # now and then an empty dim
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0 if zero_sides else 1,
                                  max_side=4))
    nd = len(shape)
    n_idx = draw(st.integers(0, nd))
    ellipsis_at = draw(st.one_of(st.none(), st.integers(0, n_idx)))
    if ellipsis_at is None:
        dims = list(range(n_idx))
    else:
        dims = list(range(ellipsis_at)) + list(range(nd - (n_idx - ellipsis_at), nd))
    list_len = draw(st.integers(1, 3))
    items = [draw(_dim_item(shape[d], list_len, unique)) for d in dims]
    if ellipsis_at is not None:
        items.insert(ellipsis_at, Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    if draw(st.integers(0, 9)) == 0 and nd >= 2:
        # now and then a mask over two dims in front
        mask = np.array(draw(st.lists(st.booleans(), min_size=shape[0] * shape[1],
                                      max_size=shape[0] * shape[1])), dtype=bool)
        items = [Adv(mask.reshape(shape[:2]), True)] + [slice(None)] * (nd - 2)
    return shape, items


def _torch_outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the exception is the oracle's answer
        return None, e


@SETTINGS
@given(data=shape_and_index(), dtype=DTYPES, seed=st.integers(0, 2**16))
def test_random_getitem_matches_torch(data, dtype, seed):
    shape, items = data
    x = _values(np.random.default_rng(seed), shape, dtype)
    _, err = _torch_outcome(lambda: torch.from_numpy(x.copy())[build_index(items, torch)])
    if err is not None:
        check_raises(lambda t, a: a[build_index(items, t)], [x])
        return
    check_op(lambda t, a: a[build_index(items, t)], [x], dtype=dtype, seed=seed)


@SETTINGS
@given(data=shape_and_index(), seed=st.integers(0, 2**16))
def test_random_getitem_of_nonleaf_and_view_matches_torch(data, seed):
    shape, items = data
    x = _values(np.random.default_rng(seed), shape, "float64")
    _, err = _torch_outcome(lambda: torch.from_numpy(x.copy())[build_index(items, torch)])
    assume(err is None)
    check_op(lambda t, a: (a * a)[build_index(items, t)] * 3, [x], seed=seed)
    if x.ndim >= 2:
        check_op(lambda t, a: a.transpose(0, -1).transpose(0, -1)[build_index(items, t)],
                 [x], seed=seed, second_order=False)


def _result_shape(x, items):
    return tuple(torch.from_numpy(x.copy())[build_index(items, torch)].shape)


@SETTINGS
@given(data=shape_and_index(unique=True), dtype=DTYPES, seed=st.integers(0, 2**16),
       scalar=st.booleans())
def test_random_setitem_matches_torch(data, dtype, seed, scalar):
    shape, items = data
    rng = np.random.default_rng(seed)
    x = _values(rng, shape, dtype)
    out, err = _torch_outcome(lambda: _result_shape(x, items))
    assume(err is None)
    v = np.asarray(rng.uniform(-5, 5)).astype(dtype) if scalar else _values(rng, out, dtype)

    def write(t, a, val):
        z = a.detach().clone()
        z[build_index(items, t)] = val
        return z, z._version

    check_op(write, [x, v], dtype=dtype, grad=False)

    def write_number(t, a):
        z = a.detach().clone()
        z[build_index(items, t)] = 1.5
        return z

    check_op(write_number, [x], dtype=dtype, grad=False)


@SETTINGS
@given(data=shape_and_index(unique=True), seed=st.integers(0, 2**16))
def test_random_setitem_in_graph_matches_torch(data, seed):
    shape, items = data
    rng = np.random.default_rng(seed)
    x = _values(rng, shape, "float64")
    out, err = _torch_outcome(lambda: _result_shape(x, items))
    assume(err is None)
    v = _values(rng, out, "float64")

    def write(t, a, val):
        y = a * 2
        y[build_index(items, t)] = val.sin()
        return y * a

    check_op(write, [x, v], seed=seed)


@SETTINGS
@given(data=shape_and_index(unique=True), seed=st.integers(0, 2**16))
def test_random_setitem_through_view_matches_torch(data, seed):
    shape, items = data
    rng = np.random.default_rng(seed)
    x = _values(rng, shape, "float64")
    out, err = _torch_outcome(lambda: _result_shape(x, items))
    assume(err is None)
    v = _values(rng, out, "float64")

    def write(t, a, val):
        base = t.zeros((2,) + tuple(a.shape), dtype=a.dtype)
        view = base[1]
        view[build_index(items, t)] = val
        return base, base._version

    check_op(write, [x, v], grad=False)


@pytest.mark.parametrize("items,shape", [
    ((0, slice(None), Adv(np.array([0, 1]), True)), (2, 3, 4)),
    ((None, 0, slice(None), Adv(np.array([0, 1]), False)), (2, 3, 4)),
    ((Ellipsis, None, Adv(np.array([True, False, True]), True)), (2, 3)),
    ((Adv(np.array([1, 1, 0]), True), None, slice(None, None, 2)), (2, 3)),
], ids=["int-slice-tensor", "none-int-slice-list", "ellipsis-none-mask", "repeated-none-step"])
def test_index_expression_examples(items, shape):
    # fixed examples of the generator's output, so the cases stay covered without hypothesis
    check_op(lambda t, a: a[build_index(items, t)], [shape])
