"""Defects found by session 36's user-style programs, checked against torch.

The programs ``tests/parity_users/programs/s36_*.py`` print values, dtypes, gradients and error
texts; each is run under real torch and under numtorch and the outputs must be the same. The
tests below it check the fixed defects directly, one library beside the other.
"""

import os

import pytest
import torch

import numtorch
from tests.parity_users.compare import diff

PROGRAMS = os.path.join(os.path.dirname(__file__), "parity_users", "programs")
S36 = sorted(n[:-3] for n in os.listdir(PROGRAMS) if n.startswith("s36_") and n.endswith(".py"))


def test_s36_programs_print_what_torch_prints():
    # every program in one child process per library: two interpreter starts in all
    # (one pair per program made these wrappers minutes of CI time)
    count, bad = diff(S36)
    assert count >= 2 * len(S36)
    report = "".join(f"==== {k}\n--- torch\n{w}--- numtorch\n{g}" for k, w, g in bad[:5])
    assert not bad, f"{len(bad)} of {count} cells differ:\n{report}"


def _outcome(f):
    try:
        out = f()
    except Exception as e:  # noqa: BLE001 - the error is what gets compared
        return type(e).__name__, str(e)
    if hasattr(out, "tolist"):
        if out.is_floating_point():  # a few ulps apart is the same answer
            out = out.double().round(decimals=3)
        return "ok", str(out.dtype), out.tolist()
    return "ok", out


def _same(make):
    assert _outcome(make(numtorch)) == _outcome(make(torch))


# -- linalg.norm: a dim list must have one or two entries, whatever ord is -------------------
@pytest.mark.parametrize("dim", [(0, 1, 2), (), [0], (0, 2), 1, (-1,)])
@pytest.mark.parametrize("ord", [None, 2, "fro", 1, float("inf")])
def test_linalg_norm_dim_length(dim, ord):
    _same(lambda L: lambda: L.linalg.norm(L.arange(24.).reshape(2, 3, 4), ord=ord, dim=dim))


# -- linalg.solve_triangular: upper is required and must be a bool ---------------------------
@pytest.mark.parametrize("kw", [{}, {"upper": None}, {"upper": 1}, {"upper": True},
                                {"upper": False, "left": False}])
def test_solve_triangular_upper_argument(kw):
    A = [[2., 1.], [0., 4.]]
    _same(lambda L: lambda: L.linalg.solve_triangular(L.tensor(A), L.eye(2), **kw))


# -- sparse COO products: torch.mm's dense gradient for a leaf made to require grad later ----
SPARSE_PRODUCTS = {
    "mm": lambda L, s: L.mm(s, L.eye(2)),
    "matmul": lambda L, s: L.matmul(s, L.eye(2)),
    "matvec": lambda L, s: s @ L.ones(2),
    "addmm": lambda L, s: L.addmm(L.ones(2, 2), s, L.eye(2)),
    "mv": lambda L, s: L.mv(s, L.ones(2)),
    "dense_mm": lambda L, s: L.mm(L.eye(2), s),
    "sparse_mm": lambda L, s: L.sparse.mm(s, L.eye(2)),
    "sparse_mm_dense_first": lambda L, s: L.sparse.mm(L.eye(2), s),
    "sparse_addmm": lambda L, s: L.sparse.addmm(L.ones(2, 2), s, L.eye(2)),
}


@pytest.mark.parametrize("late", [False, True])
@pytest.mark.parametrize("name", sorted(SPARSE_PRODUCTS))
def test_sparse_leaf_product_gradient(name, late):
    def run(L):
        idx, val = [[0, 1], [1, 0]], [1., 2.]
        if late:
            s = L.sparse_coo_tensor(idx, val, (2, 2)).requires_grad_()
        else:
            s = L.sparse_coo_tensor(idx, val, (2, 2), requires_grad=True)
        y = SPARSE_PRODUCTS[name](L, s)
        y.sum().backward()
        return y.grad_fn.name(), str(s.grad.layout), s.grad.to_dense().tolist()
    assert run(numtorch) == run(torch)


# -- histc / bincount argument errors carry torch 2.13's texts -------------------------------
@pytest.mark.parametrize("call", [
    lambda L: L.histc(L.tensor([1., 2.]), bins=0),
    lambda L: L.histc(L.tensor([1., 2.]), bins=-3),
    lambda L: L.bincount(L.tensor([1, 2]), minlength=-1),
    lambda L: L.bincount(L.tensor([1, 2]), minlength=-7),
    lambda L: L.bincount(L.tensor([1, 2]), minlength=4),
])
def test_histc_bincount_argument_errors(call):
    _same(lambda L: lambda: call(L))


# -- complex abs: the gradient is grad * sgn(z), torch's MulBackward0 under create_graph -----
def test_complex_abs_double_backward():
    def run(L):
        z = L.tensor([3 + 4j, 0j, -1 + 0.5j, 2j], requires_grad=True)
        g, = L.autograd.grad((z.abs() * L.tensor([1., 2., 3., 4.])).sum(), z, create_graph=True)
        h, = L.autograd.grad((g * L.tensor([1 + 2j, 1, 2 - 1j, 0.5j])).real.sum(), z,
                             create_graph=True)
        return (g.grad_fn.name(), h.grad_fn.name(), L.view_as_real(g).round(decimals=4).tolist(),
                (L.view_as_real(h).round(decimals=3) + 0.0).tolist())
    assert run(numtorch) == run(torch)


# -- embedding with max_norm: the renorm runs first, with its own checks and double scale -----
@pytest.mark.parametrize("idx", [[7, -9], [9, 7], [2, 7, -6], [[1], [8]], [-1], [-5], [4], [0, 3],
                                 [1.], [0, 0, 2]])
@pytest.mark.parametrize("max_norm", [None, 1.0, 20.0])
def test_embedding_max_norm_order(idx, max_norm):
    def run(L):
        w = L.arange(15.).reshape(5, 3)
        out = _outcome(lambda: L.nn.functional.embedding(L.tensor(idx), w, max_norm=max_norm))
        return out, w.tolist()
    assert run(numtorch) == run(torch)


# -- element-wise Python callbacks and fill_diagonal_: torch's error texts --------------------
@pytest.mark.parametrize("call", [
    lambda L: L.tensor([1.], requires_grad=True).apply_(lambda v: v),
    lambda L: (L.tensor([1.], requires_grad=True) * 2).apply_(lambda v: v),
    lambda L: L.tensor([1.], requires_grad=True).map_(L.ones(1), lambda a, b: a),
    lambda L: L.ones(1).map_(L.ones(1, requires_grad=True), lambda a, b: a + b),
    lambda L: L.zeros(2, 3, 4).fill_diagonal_(1),
    lambda L: L.zeros(3, 3, 3, 2).fill_diagonal_(1),
    lambda L: L.zeros(2, 2, 2).fill_diagonal_(1),
])
def test_callback_and_fill_diagonal_errors(call):
    _same(lambda L: lambda: call(L))


# -- set_ on an UntypedStorage reads its bytes as the tensor's dtype --------------------------
@pytest.mark.parametrize("dtype,args", [("float32", (1, (2, 2), (1, 2))), ("int32", (2, (2,))),
                                        ("float32", (0, (6,))), ("int16", (3, (2, 2), (2, 1)))])
def test_set_untyped_storage(dtype, args):
    def run(L):
        base = L.arange(6.)
        s = L.empty(0, dtype=getattr(L, dtype))
        s.set_(base.untyped_storage(), *args)
        return s.tolist(), s.stride(), s.storage_offset()
    assert run(numtorch) == run(torch)


# -- a lower triangular solve hands back no negative strides ----------------------------------
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("upper", [True, False])
def test_solve_triangular_strides_positive(upper, left):
    a = numtorch.tensor([[2., 0.5, 0.], [1., 3., 0.2], [0.5, -1., 4.]])
    b = numtorch.ones(3, 2) if left else numtorch.ones(2, 3)
    x = numtorch.linalg.solve_triangular(a, b, upper=upper, left=left)
    assert min(x.stride()) > 0
    assert numtorch.from_numpy(x.numpy()).tolist() == x.tolist()
    t = torch.linalg.solve_triangular(torch.from_numpy(a.numpy()), torch.from_numpy(b.numpy()),
                                      upper=upper, left=left)
    assert torch.allclose(torch.from_numpy(x.numpy()), t)


# -- torch.func: aux unwrapped by vjp/jvp/jacrev/jacfwd, argnums and chunk_size texts ---------
@pytest.mark.parametrize("rg", [False, True])
@pytest.mark.parametrize("which", ["vjp", "jvp", "jacrev", "grad"])
def test_func_aux_is_unwrapped(which, rg):
    def run(L):
        F = L.func
        x = L.ones(2, requires_grad=rg)
        f = lambda a: (a * 2, a.sum())  # noqa: E731
        if which == "vjp":
            aux = F.vjp(f, x, has_aux=True)[2]
        elif which == "jvp":
            aux = F.jvp(f, (x,), (L.ones(2),), has_aux=True)[2]
        elif which == "jacrev":
            aux = F.jacrev(f, has_aux=True)(x)[1]
        else:
            aux = F.grad(lambda a: ((a * 2).sum(), {"k": [a * 3]}), has_aux=True)(x)[1]["k"][0]
        return aux.tolist(), aux.requires_grad, aux.grad_fn is None
    assert run(numtorch) == run(torch)


@pytest.mark.parametrize("argnums", [(0, 0), (1, 1, 0), (1, -1)])
@pytest.mark.parametrize("fn", ["grad", "jacrev", "jacfwd"])
def test_func_argnums_unique_text(fn, argnums):
    _same(lambda L: lambda: getattr(L.func, fn)(lambda a, b: (a * b).sum(), argnums=argnums)(
        L.ones(2), L.ones(2)))


@pytest.mark.parametrize("chunk", [0, -2])
def test_jacrev_chunk_size_checked_when_made(chunk):
    _same(lambda L: lambda: L.func.jacrev(lambda a: a, chunk_size=chunk))


# -- prod backward: grad * (result / input), bit for bit, and under jacfwd/hessian ------------
def test_prod_gradient_rounding_and_forward_mode():
    for seed in range(20):
        x = numtorch.rand(7, generator=numtorch.Generator().manual_seed(seed)) * 3 + 0.1
        g = numtorch.rand((), generator=numtorch.Generator().manual_seed(seed + 99))
        xs = [x.clone().requires_grad_(), torch.from_numpy(x.numpy()).requires_grad_()]
        xs[0].prod().backward(g)
        xs[1].prod().backward(torch.from_numpy(g.numpy()))
        assert xs[0].grad.tolist() == xs[1].grad.tolist()
    v = [1., 2., 3.]
    for L in (numtorch, torch):
        assert L.func.jacfwd(L.prod)(L.tensor(v)).tolist() == [6., 3., 2.]
        assert L.func.hessian(L.prod)(L.tensor(v)).tolist() == [[0., 3., 2.], [3., 0., 1.],
                                                                 [2., 1., 0.]]


# -- bernoulli with a probability tensor outside [0, 1]: torch's whole text ------------------
@pytest.mark.parametrize("call", [
    lambda L: L.bernoulli(L.tensor([1.5])),
    lambda L: L.bernoulli(L.tensor([0.2, -0.1])),
    lambda L: L.zeros(2).bernoulli_(L.tensor([1.5, 0.2])),
    lambda L: L.zeros(2).bernoulli_(1.5),
])
def test_bernoulli_probability_range_text(call):
    _same(lambda L: lambda: call(L))


# -- vmap of diag/trace (and their backward) runs batched, without the fallback warning -------
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (3, 3), (2, 5)])
@pytest.mark.parametrize("k", [-2, -1, 0, 1, 2])
def test_vmap_diag_rules(shape, k):
    import warnings

    def run(L):
        m = L.arange(float(shape[0] * shape[1])).reshape(shape)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            jac = L.func.jacrev(lambda t: L.diag(t, k))(m)
            per = L.func.vmap(L.func.grad(lambda t: L.diag(t, k).sum()))(L.stack([m, m * 2]))
            tr = L.func.vmap(L.trace)(L.stack([m, -m]))
        return jac.tolist(), per.tolist(), tr.tolist()
    assert run(numtorch) == run(torch)
