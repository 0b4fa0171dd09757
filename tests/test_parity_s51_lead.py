"""Lead's oracle tests of session 51: backward passes that accumulate into zeros leave +0.0
where the incoming gradient holds -0.0, as torch's do (a printed gradient showed -0.)."""

import numpy as np
import pytest
import torch

import numtorch


def _signs(t):
    return np.signbit(t.detach().numpy()).tolist()


def _grads(lib, index, shape, grad, how):
    w = lib.zeros(*shape, requires_grad=True)
    if how == "getitem":
        out = w[index]
    elif how == "embedding":
        out = lib.nn.functional.embedding(index, w)
    elif how == "index_select":
        out = w.index_select(0, index)
    out.backward(grad)
    return w.grad


@pytest.mark.parametrize("how", ["getitem", "embedding", "index_select"])
@pytest.mark.parametrize("rows,width,repeats", [
    (5, 1, 1),     # one value per row: a plain write
    (5, 20, 3),    # short buckets of wide rows: the padded block
    (5, 3, 3),     # short buckets of narrow rows: rank by rank
    (3, 4, 40),    # long buckets: one reduction each
    (3, 1, 40),    # long buckets of single values: a running sum
])
def test_index_backward_of_negative_zero_is_positive_zero(how, rows, width, repeats):
    rng = np.random.default_rng(rows * width + repeats)
    idx = np.tile(np.arange(rows - 1), repeats)  # the last row is never picked
    g = rng.standard_normal((idx.size, width)).astype(np.float32)
    g[rng.random(g.shape) < 0.5] = -0.0
    g[idx == 0] = -0.0  # a whole bucket of -0.0
    want = _grads(torch, torch.from_numpy(idx), (rows, width), torch.from_numpy(g), how)
    got = _grads(numtorch, numtorch.from_numpy(idx), (rows, width), numtorch.from_numpy(g), how)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert _signs(got) == _signs(want)


def test_mask_index_backward_of_negative_zero():
    g = np.array([[-0.0, 1.0], [2.0, -0.0]], np.float32)
    mask = np.array([True, False, True])
    grads = []
    for lib in (torch, numtorch):
        w = lib.zeros(3, 2, requires_grad=True)
        w[lib.from_numpy(mask)].backward(lib.from_numpy(g))
        grads.append(_signs(w.grad))
    assert grads[0] == grads[1]


# window functions: torch evaluates each step in the result's dtype; its vectorised cosine
# may be 1 ulp apart from a correctly rounded one, the rest of every value must agree
@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_window_values_are_rounded_as_torch(name, dtype):
    same = total = 0
    for n in range(2, 70):
        for periodic in (True, False):
            want = getattr(torch, name)(n, periodic=periodic, dtype=getattr(torch, dtype))
            got = getattr(numtorch, name)(n, periodic=periodic, dtype=getattr(numtorch, dtype))
            w, g = want.double().numpy(), got.double().numpy()
            # a cosine 1 ulp apart moves a value by up to an ulp of 1 (cancellation near 0)
            ulp = float(np.finfo(want.numpy().dtype).eps) if dtype in ("float32", "float64") \
                else 0.0
            if dtype in ("float16", "bfloat16") or name == "bartlett_window":
                np.testing.assert_array_equal(g, w)
            else:
                assert (np.abs(g - w) <= ulp).all(), (n, periodic)
            same += int((g == w).sum())
            total += n
            assert np.signbit(g[0]) == np.signbit(w[0])
    assert same >= 0.95 * total


_SIGN_OPS = {
    "masked_select": lambda x: x.masked_select(x.new_tensor([True, False, True, False]).bool()),
    "sort": lambda x: x.sort(1).values,
    "topk": lambda x: x.topk(2, 1).values,
    "max_dim": lambda x: x.max(1).values,
    "kthvalue": lambda x: x.kthvalue(2, 1).values,
    "gather_one_per_line": lambda x: x.gather(1, x.new_tensor([[1], [0], [3]]).long()),
    "gather": lambda x: x.gather(1, x.new_tensor([[1, 1], [0, 2], [3, 0]]).long()),
    "take": lambda x: x.take(x.new_tensor([0, 0, 5]).long()),
    "cumsum": lambda x: x.cumsum(1),
    "cummax": lambda x: x.cummax(1).values,
    "embedding_bag": None,
}


@pytest.mark.parametrize("name", sorted(_SIGN_OPS))
def test_sign_of_zero_gradients_as_torch(name):
    # selecting ops (sort, topk, max, masked_select) write the gradient back, keeping -0.0;
    # accumulating ones (gather, take, cumsum) add it into zeros, giving +0.0
    signs = []
    for lib in (torch, numtorch):
        x = lib.ones(3, 4, requires_grad=True)
        y = _SIGN_OPS[name](x) if name != "embedding_bag" else lib.nn.functional.embedding_bag(
            lib.tensor([0, 1, 1, 2]), x, lib.tensor([0, 2]))
        y.backward(lib.full_like(y, -0.0))
        signs.append(_signs(x.grad))
    assert signs[0] == signs[1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64"])
def test_cumsum_of_negative_zeros_starts_from_zero(dtype):
    data = np.array([[-0.0, -0.0, 1.0], [2.0, -0.0, -2.0]])
    want = torch.tensor(data, dtype=getattr(torch, dtype)).cumsum(1)
    got = numtorch.tensor(data, dtype=getattr(numtorch, dtype)).cumsum(1)
    w, g = want.numpy(), got.numpy()
    np.testing.assert_array_equal(g, w)
    assert np.signbit(g.real).tolist() == np.signbit(w.real).tolist()
    assert np.signbit(g.imag).tolist() == np.signbit(w.imag).tolist()


def _lightning_style_epochs(lib):
    """Two epochs on persistent workers, then the loader's iterator shut down and dropped
    through torch's attribute names (as Lightning's loops do), then one more epoch."""
    from importlib import import_module

    DataLoader = import_module(lib.__name__ + ".utils.data").DataLoader
    dl = DataLoader(list(range(6)), batch_size=2, num_workers=1, persistent_workers=True)
    seen = [dl._iterator is None]
    for _ in range(2):
        seen.append([b.tolist() for b in dl])
    first = dl._iterator
    seen.append(first is not None)
    dl._iterator._shutdown_workers()
    dl._iterator = None
    seen.append([b.tolist() for b in dl])
    seen.append(dl._iterator is not first)
    dl._iterator._shutdown_workers()
    return seen


def test_dataloader_iterator_attribute_as_torch():
    assert _lightning_style_epochs(numtorch) == _lightning_style_epochs(torch)
    plain = numtorch.utils.data.DataLoader([1, 2], batch_size=1)
    assert plain._iterator is None
    list(plain)
    assert plain._iterator is None  # only persistent workers keep an iterator


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_det_gradient_of_non_finite_matrices_as_torch(dtype, create_graph):
    nan, inf = float("nan"), float("inf")
    for m in ([[nan, 1.0], [0.0, 1.0]], [[inf, 1.0], [2.0, 1.0]],
              [[[nan, 1.0], [0.0, 1.0]], [[1.0, 2.0], [3.0, 4.0]]]):
        out = []
        for lib in (torch, numtorch):
            x = lib.tensor(m, dtype=getattr(lib, dtype), requires_grad=True)
            d = lib.linalg.det(x)
            g, = lib.autograd.grad(d.sum(), x, create_graph=create_graph)
            out.append((str(d.tolist()), str(g.tolist())))
        assert out[0] == out[1]


def test_squeeze_method_takes_dims_as_separate_arguments():
    out = []
    for lib in (torch, numtorch):
        x = lib.ones(1, 3, 1, 1, requires_grad=True)
        y = x.detach().clone()
        y.squeeze_(0, 3)
        out.append((tuple(x.squeeze(0, 2).shape), tuple(x.squeeze(0, 2, 3).shape),
                    tuple(y.shape), x.squeeze(0, 2).grad_fn.name()))
    assert out[0] == out[1]
    errors = []
    for lib in (torch, numtorch):
        with pytest.raises(RuntimeError) as info:
            lib.ones(1, 2).squeeze(0, 0)
        errors.append(str(info.value).split("\n")[0])
    assert errors[0] == errors[1]
