"""Session 51 (autograd2) parity tests: Jacobians and Hessians through the norms' and the
class losses' backward ops (numtorch must stay silent where torch has batching rules, with the
same values), run under real torch and numtorch at test time."""

import warnings
from importlib import import_module

import pytest

from tests._compare_user_code import check


def _silent(fn):
    def run(lib):
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message="vmap: there is no batching rule")
            return fn(lib)
    return run


def _norm_case(lib, name):
    F = lib.nn.functional
    f = import_module(lib.__name__ + ".func")
    g = lib.Generator().manual_seed(0)
    x = lib.randn(3, 4, 5, generator=g)
    w, b = lib.randn(4, 5, generator=g), lib.randn(4, 5, generator=g)
    c = lib.randn(4, generator=g)
    if name == "layer_norm_jacrev":
        return f.jacrev(lambda a, ww, bb: F.layer_norm(a, (4, 5), ww, bb), argnums=(0, 1, 2))(
            x, w, b)
    if name == "layer_norm_last_dim_no_affine":
        return f.jacrev(lambda a: F.layer_norm(a, (5,)))(x)
    if name == "layer_norm_hessian":
        return (f.hessian(lambda a: F.layer_norm(a, (5,), w[0], b[0]).pow(3).sum())(x[0]),
                f.hessian(lambda ww: F.layer_norm(x, (4, 5), ww, b).sin().sum())(w))
    if name == "layer_norm_jacfwd_of_grad":
        return f.jacfwd(f.grad(lambda a: F.layer_norm(a, (5,), w[1]).pow(3).sum()))(x[1])
    if name == "group_norm_jacrev":
        return f.jacrev(lambda a, cc: F.group_norm(a, 2, cc, -cc), argnums=(0, 1))(x, c)
    if name == "batch_norm_train_jacrev":
        return f.jacrev(lambda a, cc: F.batch_norm(a, None, None, cc, cc.cos(), training=True),
                        argnums=(0, 1))(x, c)
    if name == "instance_norm_jacrev":
        return f.jacrev(lambda a: F.instance_norm(a))(x)
    if name == "per_sample_layer_norm_param_grads":  # vmap of grad of a jacobian-free model
        return f.vmap(f.jacrev(lambda a, ww: F.layer_norm(a, (5,), ww).sum(0), argnums=1),
                      (0, None))(x, w[0])
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["layer_norm_jacrev", "layer_norm_last_dim_no_affine",
                                  "layer_norm_hessian", "layer_norm_jacfwd_of_grad",
                                  "group_norm_jacrev", "batch_norm_train_jacrev",
                                  "instance_norm_jacrev", "per_sample_layer_norm_param_grads"])
def test_norm_jacobians_use_batching_rules(name):
    check(_silent(lambda lib: _norm_case(lib, name)), rtol=1e-4, atol=1e-5)


def _loss_case(lib, name):
    F = lib.nn.functional
    f = import_module(lib.__name__ + ".func")
    g = lib.Generator().manual_seed(0)
    x = lib.randn(4, 5, generator=g)
    t = lib.tensor([1, 0, 4, 2])
    ti = lib.tensor([1, -100, 4, 2])
    w = lib.rand(5, generator=g) + 0.5
    w0 = lib.tensor([1.0, 0.0, 1.0, 1.0, 1.0])
    img = lib.randn(2, 3, 2, 2, generator=g, dtype=lib.float64)
    timg = lib.tensor([[[0, 2], [1, 1]], [[2, 2], [0, 1]]])

    def signs(j):  # torch's signed zeros off the targets, compared too
        return j, lib.signbit(j)

    if name == "ce_mean_sum_none":
        return (tuple(signs(f.jacrev(lambda a, r=r: F.cross_entropy(a, t, reduction=r))(x))
                      for r in ("mean", "sum")),
                f.jacrev(lambda a: F.cross_entropy(a, t, reduction="none"))(x))
    if name == "ce_weight_ignore_smoothing":
        return (f.jacrev(lambda a: F.cross_entropy(a, ti, weight=w))(x),
                f.jacrev(lambda a: F.cross_entropy(a, ti, reduction="none",
                                                   label_smoothing=0.2))(x),
                signs(f.jacrev(lambda a: F.cross_entropy(a, t, weight=w,
                                                         label_smoothing=0.1))(x)))
    if name == "ce_zero_weights":  # 0/0 means: NaN gradients
        return (f.jacrev(lambda a: F.cross_entropy(a, lib.tensor([1, 1, 1, 1]), weight=w0))(x),
                signs(f.jacrev(lambda a: F.cross_entropy(a, t, weight=w0, reduction="sum"))(x)))
    if name == "ce_spatial_float64":
        return (f.jacrev(lambda a: F.cross_entropy(a, timg))(img),
                f.jacrev(lambda a: F.cross_entropy(a, timg, reduction="none"))(img))
    if name == "ce_hessian":
        return (f.hessian(lambda a: F.cross_entropy(a, t))(x),
                f.hessian(lambda a: F.cross_entropy(a, ti, weight=w, label_smoothing=0.1))(x))
    if name == "ce_jacrev_chunked_and_vmapped":
        return (f.jacrev(lambda a: F.cross_entropy(a, t, reduction="none"), chunk_size=3)(x),
                f.vmap(f.jacrev(lambda a: F.cross_entropy(a, t)))(x.expand(2, 4, 5) * 2))
    if name == "nll_jacrev":
        lp = x.log_softmax(1)
        return (signs(f.jacrev(lambda a: F.nll_loss(a, t))(lp)),
                f.jacrev(lambda a: F.nll_loss(a, ti, weight=w, reduction="none"))(lp),
                f.jacrev(lambda a: F.nll_loss(a, ti, weight=w0, reduction="sum"))(lp),
                f.jacrev(lambda a: F.nll_loss(a, timg))(img.log_softmax(1)))
    if name == "nll_hessian":
        return (f.hessian(lambda a: F.nll_loss(a.log_softmax(1), t))(x),
                f.hessian(lambda a: F.nll_loss(a.log_softmax(1), ti, weight=w))(x))
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["ce_mean_sum_none", "ce_weight_ignore_smoothing",
                                  "ce_zero_weights", "ce_spatial_float64", "ce_hessian",
                                  "ce_jacrev_chunked_and_vmapped", "nll_jacrev", "nll_hessian"])
def test_class_loss_jacobians_use_batching_rules(name):
    check(_silent(lambda lib: _loss_case(lib, name)), rtol=1e-4, atol=1e-6)


def _more_case(lib, name):
    F = lib.nn.functional
    f = import_module(lib.__name__ + ".func")
    g = lib.Generator().manual_seed(0)
    im = lib.randn(2, 3, 4, 5, generator=g)
    grid = lib.rand(2, 3, 2, 2, generator=g) * 2.2 - 1.1
    if name == "grid_sample_jacrev":
        return tuple(f.jacrev(lambda a, m=m, p=p, c=c: F.grid_sample(a, grid, mode=m, padding_mode=p,
                                                                 align_corners=c))(im)
                     for m, p, c in (("bilinear", "zeros", False), ("nearest", "border", True),
                                     ("bilinear", "reflection", True)))
    if name == "grid_sample_3d_and_vmap_of_vjp":
        vol = lib.randn(1, 2, 3, 3, 3, generator=g)
        g3 = lib.rand(1, 2, 2, 2, 3, generator=g) * 2 - 1
        _, vjp = f.vjp(lambda a: F.grid_sample(a, grid), im)
        cot = lib.randn(4, 2, 3, 3, 2, generator=g)
        return (f.jacrev(lambda a: F.grid_sample(a, g3, align_corners=False))(vol),
                f.vmap(vjp)(cot))
    if name == "pinv_vmap":
        a = lib.randn(4, 3, 2, generator=g, dtype=lib.float64)
        s = a[:, :2, :]
        return (f.vmap(lib.linalg.pinv)(a), f.vmap(lib.linalg.pinv, in_dims=1)(a),
                f.vmap(lambda m: lib.linalg.pinv(m @ m.mT, hermitian=True))(s),
                f.vmap(lambda m: lib.linalg.pinv(m, rtol=0.5))(a),
                f.vmap(f.jacrev(lib.linalg.pinv))(a))
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["grid_sample_jacrev", "grid_sample_3d_and_vmap_of_vjp",
                                  "pinv_vmap"])
def test_grid_sample_jacobian_and_pinv_vmap_use_batching_rules(name):
    check(_silent(lambda lib: _more_case(lib, name)), rtol=1e-4, atol=1e-5)


_JVP_DTYPE_CASES = [("f", "i"), ("f", "b"), ("i", "f"), ("i", "i"), ("fi", "if"), ("if", "fi"),
                    ("fi", "sf"), ("ff", "si")]


@pytest.mark.parametrize("case", _JVP_DTYPE_CASES, ids=["-".join(c) for c in _JVP_DTYPE_CASES])
def test_func_jvp_refuses_integer_tangents_in_torch_order(case):
    def run(lib):
        f = import_module(lib.__name__ + ".func")
        make = {"f": lambda: lib.ones(3), "i": lambda: lib.ones(3, dtype=lib.int64),
                "b": lambda: lib.ones(3, dtype=lib.bool), "s": lambda: lib.ones(2)}
        primals = tuple(make[c]() for c in case[0])
        tangents = tuple(make[c]() for c in case[1])
        return f.jvp(lambda *a: a[0] * 2, primals, tangents)
    check(run)


_FALLBACK_CALLS = ["quantile_scalar", "quantile_tensor", "nanquantile", "histc", "bincount",
                   "isin_tensor", "isin_scalar", "isclose", "embedding_max_norm"]


@pytest.mark.parametrize("name", _FALLBACK_CALLS)
def test_vmap_fallback_warning_text_is_torchs(name):
    """Where torch itself runs a function once per sample under vmap, numtorch warns with
    torch's text (naming the aten overload), so message filters written for torch match."""
    def run(lib):
        f = import_module(lib.__name__ + ".func")
        g = lib.Generator().manual_seed(0)
        x = lib.rand(3, 6, generator=g)
        ii = lib.randint(0, 4, (3, 6), generator=g)
        call = {
            "quantile_scalar": lambda: f.vmap(lambda a: lib.quantile(a, 0.5))(x),
            "quantile_tensor": lambda: f.vmap(lambda a: lib.quantile(
                a, lib.tensor([0.2, 0.5]), dim=0))(x),
            "nanquantile": lambda: f.vmap(lambda a: a.nanquantile(0.5))(x),
            "histc": lambda: f.vmap(lambda a: lib.histc(a, 4))(x),
            "bincount": lambda: f.vmap(lambda a: lib.bincount(a, minlength=5))(ii),
            "isin_tensor": lambda: f.vmap(lambda a: lib.isin(a, lib.tensor([1, 2])))(ii),
            "isin_scalar": lambda: f.vmap(lambda a: lib.isin(a, 2))(ii),
            "isclose": lambda: f.vmap(lambda a: lib.isclose(a, a))(x),
            "embedding_max_norm": lambda: f.vmap(lambda w: lib.nn.functional.embedding(
                lib.tensor([1, 2]), w, max_norm=1.0))(lib.randn(3, 5, 4, generator=g)),
        }[name]
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            out = call()
        return out, [(w.category.__name__, str(w.message).split(" (Triggered")[0])
                     for w in seen]
    check(run)


def test_vmap_of_mode_is_silent_and_equal():
    def run(lib):
        f = import_module(lib.__name__ + ".func")
        x = lib.tensor([[1., 2, 2, 3, 3], [4, 4, 1, 1, 0], [5, 5, 5, 2, 2]])
        return (f.vmap(lib.mode)(x), f.vmap(lambda a: lib.mode(a, 0, keepdim=True))(x),
                f.vmap(lambda a: a.mode(dim=-1))(x.reshape(3, 5, 1)),
                f.vmap(lib.mode, in_dims=1)(x), f.vmap(f.vmap(lib.mode))(x.reshape(3, 5, 1)),
                f.vmap(lambda a: lib.mode(a, keepdim=True))(x[:, 0]),
                f.vmap(lambda a: lib.mode(a).values * 2)(x.long()))
    check(_silent_all(run))


def _silent_all(fn):
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return fn(lib)
    return run


def test_vmap_of_median_over_all_elements_is_silent():
    def run(lib):
        f = import_module(lib.__name__ + ".func")
        x = lib.tensor([[1., 2, 2, 3], [4, 4, 1, 1], [float("nan"), 1, 2, 3]])
        return (f.vmap(lambda a: a.median())(x), f.vmap(lambda a: a.nanmedian())(x),
                f.vmap(f.vmap(lambda a: a.median()))(x.reshape(3, 2, 2)),
                f.vmap(lambda a: a.nanmedian())(lib.tensor([[float("nan")] * 3 + [1.0],
                                                             [4.0, 1, 2, 3]])),
                f.vmap(f.grad(lambda a: a.median()))(x[:2]),
                f.vmap(f.grad(lambda a: a.nanmedian() * 3))(x),
                f.vmap(f.vmap(lambda a: a.median()))(x[:2].reshape(2, 2, 2)),
                f.vmap(lambda a: a.median(), in_dims=1)(x[:2]),
                f.vmap(f.grad(lambda a: a.median()))(lib.ones(2, 3, dtype=lib.float64)))
    check(_silent_all(run))
