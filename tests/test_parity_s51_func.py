"""Session 51 parity tests of torch.func (vmap batching rules, ...): each case runs the same
user code under real torch and under numtorch and compares values, dtypes, shapes and
exceptions at test time; numtorch must also stay silent where torch has a batching rule (no
per-sample fallback warning)."""

import warnings
from importlib import import_module

import pytest

from tests._compare_user_code import check


def _silent(fn, op=""):
    """``fn(lib)`` with numtorch's per-sample fallback warning (for op ``op``, or any) turned
    into a failure."""
    def run(lib):
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message="vmap: there is no batching rule for the "
                                    "op " + op)
            return fn(lib)
    return run


def _data(lib):
    g = lib.Generator().manual_seed(0)
    a = lib.randn(2, 3, 3, generator=g, dtype=lib.float64) + 3 * lib.eye(3, dtype=lib.float64)
    v = lib.randn(2, 3, generator=g, dtype=lib.float64)
    im = lib.randn(2, 2, 2, 5, 5, generator=g)
    return a, v, im, g


def _case(lib, name):
    F = lib.nn.functional
    f = import_module(lib.__name__ + ".func")
    a, v, im, g = _data(lib)
    spd = a @ a.mT
    if name == "solve":
        return (f.vmap(lib.linalg.solve)(a, v), f.vmap(lib.linalg.solve, (None, 0))(a[0], v),
                f.vmap(lib.linalg.solve, (0, None))(a, v[0]),
                f.vmap(lambda m, b: lib.linalg.solve(m, b, left=False))(a, a.mT))
    if name == "solve_jacrev":
        return f.vmap(f.jacrev(lib.linalg.solve, argnums=(0, 1)))(a, v)
    if name == "solve_triangular":
        return (f.vmap(lambda m, b: lib.linalg.solve_triangular(m.triu(), b, upper=True))(a, a),
                f.vmap(lambda m, b: lib.linalg.solve_triangular(m.tril(), b, upper=False,
                                                                left=False))(a, a.mT),
                f.vmap(f.grad(lambda m: lib.linalg.solve_triangular(
                    m.tril(), m, upper=False, unitriangular=True).sum()))(a))
    if name == "cholesky_solve":
        return f.vmap(lambda m, b: lib.cholesky_solve(b[:, None], lib.linalg.cholesky(m)))(spd, v)
    if name == "unfold_fold":
        x = im
        cols = f.vmap(lambda t: F.unfold(t, 2, padding=1, stride=2))(x)
        back = f.vmap(lambda t: F.fold(t, (5, 5), 2, padding=1, stride=2))(cols)
        moved = f.vmap(lambda t: F.unfold(t, (2, 3)), in_dims=1, out_dims=1)(x.movedim(0, 1))
        gr = f.vmap(f.grad(lambda t: F.unfold(t, 2).pow(2).sum()))(x)
        return cols, back, moved, gr
    if name == "interpolate":
        x = im
        seq = x[:, :, 0]
        return (f.vmap(lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"))(x),
                f.vmap(lambda t: F.interpolate(t, size=(3, 7), mode="bilinear",
                                               align_corners=True))(x),
                f.vmap(lambda t: F.interpolate(t, scale_factor=1.5, mode="linear"))(seq),
                f.vmap(f.grad(lambda t: F.interpolate(t, scale_factor=2, mode="bilinear")
                              .pow(2).sum()))(x))
    if name == "conv_transpose":
        x = im
        w = lib.randn(2, 2, 3, 3, 2, generator=g)
        b = lib.randn(2, 6, generator=g)
        plain = f.vmap(lambda t: F.conv_transpose2d(t, w[0, :, :2], stride=2))(x)
        both = f.vmap(lambda t, ww, bb: F.conv_transpose2d(t, ww[:, :2], bb[:4], groups=2))(
            x, w, b)
        wonly = f.vmap(lambda ww: F.conv_transpose2d(x[0], ww[:, :3], padding=1), in_dims=4)(w)
        conv = f.vmap(lambda t, ww, bb: F.conv2d(t, ww[:, :2].reshape(4, 1, 3, 2), bb[:4],
                                                 groups=2))(x, w, b)
        return plain, both, wonly, conv
    if name == "adaptive_pool":
        x = im
        return (f.vmap(lambda t: F.adaptive_avg_pool2d(t, (2, 3)))(x),
                f.vmap(lambda t: F.adaptive_max_pool2d(t, 3))(x),
                f.vmap(lambda t: F.adaptive_max_pool2d(t, 2, return_indices=True)[1])(x),
                f.vmap(f.grad(lambda t: F.adaptive_avg_pool1d(t[0], 3).pow(2).sum()))(x),
                f.vmap(f.vmap(lambda t: F.adaptive_max_pool1d(t, 2)))(x))
    if name == "roll":
        return (f.vmap(lambda t: t.roll(2))(a), f.vmap(lambda t: t.roll((-4,)))(a),
                f.vmap(lambda t: lib.roll(t, 1), in_dims=2)(a),
                f.vmap(f.grad(lambda t: (t.roll(1) * t).sum()))(v))
    if name == "layer_norm_second_order":
        inner = f.grad(lambda t: F.layer_norm(t, (3,))[0].sin())
        return (f.vmap(f.grad(lambda t: inner(t).pow(2).sum()))(v),
                f.vmap(f.jacrev(f.grad(lambda t: F.layer_norm(t, (3,)).pow(3).sum())))(a))
    raise AssertionError(name)


_NAMES = ("solve", "solve_jacrev", "solve_triangular", "cholesky_solve", "unfold_fold",
          "interpolate", "conv_transpose", "adaptive_pool", "roll", "layer_norm_second_order")


@pytest.mark.parametrize("name", _NAMES)
def test_vmap_rules_for_linalg_fold_resize_conv_transpose_pool_roll(name):
    # (layer norm's second order also runs NormalizeAffineBackward, still per sample)
    op = "NormalizeBackward," if name == "layer_norm_second_order" else ""
    check(_silent(lambda lib: _case(lib, name), op), rtol=1e-4, atol=1e-5)


# -- Jacobians and Hessians through max pooling and embeddings: the backward ops' batched
# cotangents (jacrev's basis, jacfwd's tangents) have batching rules too -----------------------
def _pool_emb(lib, name):
    F = lib.nn.functional
    f = import_module(lib.__name__ + ".func")
    g = lib.Generator().manual_seed(1)
    x = lib.randn(2, 3, 6, generator=g, dtype=lib.float64)
    im = lib.randn(1, 2, 5, 5, generator=g, dtype=lib.float64)
    if name == "max_pool":
        fns = (lambda t: F.max_pool1d(t, 2), lambda t: F.max_pool1d(t, 3, 2, ceil_mode=True),
               lambda t: F.adaptive_max_pool1d(t, 4),
               lambda t: F.max_pool1d(t, 2, return_indices=True)[0].sin())
        out = [tr(fn)(x) for fn in fns for tr in (f.jacrev, f.jacfwd)]
        out.append(f.hessian(lambda t: F.max_pool1d(t, 2).pow(3).sum())(x))
        out.append(f.vmap(f.jacrev(lambda t: F.max_pool1d(t, 2)))(x.unsqueeze(1)))
        return out
    if name == "max_pool2d":
        return (f.jacrev(lambda t: F.max_pool2d(t, 2, padding=1))(im),
                f.jacfwd(lambda t: F.adaptive_max_pool2d(t, 3))(im),
                f.jacrev(lambda t: F.max_unpool2d(*F.max_pool2d(t, 2, return_indices=True),
                                                  2))(im))
    if name == "embedding":
        w = lib.randn(5, 3, generator=g, dtype=lib.float64)
        idx = lib.tensor([[0, 2, 2], [4, 1, 0]])
        return (f.jacrev(lambda t: F.embedding(idx, t))(w),
                f.jacrev(lambda t: F.embedding(idx, t, padding_idx=2))(w),
                f.jacrev(lambda t: F.embedding(idx, t, scale_grad_by_freq=True))(w),
                f.hessian(lambda t: F.embedding(idx, t).pow(3).sum())(w),
                f.jacfwd(lambda t: F.embedding(idx[0], t))(w),
                f.vmap(f.jacrev(lambda t: F.embedding(idx, t).sum(-1)))(w.unsqueeze(0)
                                                                        .expand(2, 5, 3)))
    raise AssertionError(name)


@pytest.mark.parametrize("name", ("max_pool", "max_pool2d", "embedding"))
def test_jacobians_through_max_pool_and_embedding_use_batching_rules(name):
    check(_silent(lambda lib: _pool_emb(lib, name)), rtol=1e-6, atol=1e-8)
