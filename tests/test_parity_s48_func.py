"""Session 48 parity tests of torch.func (vmap and the autodiff transforms): each case runs the
same user code under real torch and under numtorch and compares values, dtypes, shapes and
exceptions at test time."""

import pytest

import numtorch
from tests._compare_user_code import check


def _check(fn, rtol=1e-5, atol=1e-6, msg=True):
    check(fn, rtol, atol, msg, same_container=True)


def _x(lib):
    return lib.arange(12.0).reshape(3, 4)


def _xi(lib):
    return lib.tensor([[1, 2, 2, 0], [3, 3, 1, 0], [0, 0, 0, 4]])


# -- functions that read values on the host: torch's per-sample fallback ----------------------
FALLBACK = {
    "ri_batched_repeats": lambda L: L.func.vmap(L.repeat_interleave)(
        _x(L), L.tensor([[1, 2, 0, 1], [1, 1, 1, 1], [2, 0, 1, 1]])),
    "ri_repeats_only": lambda L: L.func.vmap(lambda r: L.repeat_interleave(_x(L)[0], r))(
        L.tensor([[1, 2, 0, 1], [1, 1, 1, 1], [2, 0, 1, 1]])),
    "ri_output_size": lambda L: L.func.vmap(
        lambda a, r: L.repeat_interleave(a, r, output_size=4))(_x(L), L.ones(3, 4).long()),
    "ri_method_dim": lambda L: L.func.vmap(lambda a, r: a.repeat_interleave(r, dim=0))(
        _x(L).reshape(3, 2, 2), L.tensor([[1, 2], [2, 1], [0, 3]])),
    "ri_in_dims": lambda L: L.func.vmap(L.repeat_interleave, in_dims=(1, 0))(
        _x(L).T, L.ones(3, 4).long() * 2),
    "ri_unequal": lambda L: L.func.vmap(L.repeat_interleave)(_xi(L)),
    "quantile": lambda L: L.func.vmap(lambda a: L.quantile(a, 0.3))(_x(L)),
    "quantile_tensor_q": lambda L: L.func.vmap(
        lambda a: L.quantile(a, L.tensor([0.3, 0.7]), dim=0, keepdim=True))(_x(L)),
    "quantile_batched_q": lambda L: L.func.vmap(L.quantile)(_x(L), L.tensor([0.1, 0.5, 0.9])),
    "quantile_method": lambda L: L.func.vmap(
        lambda a: a.reshape(2, 2).quantile(0.25, dim=1, interpolation="midpoint"))(_x(L)),
    "nanquantile": lambda L: L.func.vmap(lambda a: L.nanquantile(a, 0.5, interpolation="lower"))(
        L.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, 6.0]])),
    "bincount_unequal": lambda L: L.func.vmap(L.bincount)(_xi(L)),
    "bincount_minlength": lambda L: L.func.vmap(lambda a: L.bincount(a, minlength=6))(_xi(L)),
    "bincount_weights": lambda L: L.func.vmap(lambda a, w: a.bincount(w, minlength=6))(
        _xi(L), _x(L)),
    "histc": lambda L: L.func.vmap(lambda a: L.histc(a, bins=4, min=0, max=12))(_x(L)),
    "histc_auto_range": lambda L: L.func.vmap(lambda a: a.histc(3))(_x(L)),
    "histogram": lambda L: L.func.vmap(lambda a: L.histogram(a, bins=3))(_x(L)),
    "histogram_edges": lambda L: L.func.vmap(lambda a: L.histogram(a, L.tensor([0.0, 5, 12])))(
        _x(L)),
    "histogram_weight": lambda L: L.func.vmap(lambda a, w: L.histogram(a, 2, weight=w))(
        _x(L), _x(L)),
    "mode": lambda L: L.func.vmap(L.mode)(_xi(L)),
    "mode_keepdim": lambda L: L.func.vmap(lambda a: L.mode(a.reshape(2, 2), 1, keepdim=True))(
        _xi(L)),
    "mode_method": lambda L: L.func.vmap(lambda a: a.mode())(_xi(L)),
    "isin": lambda L: L.func.vmap(lambda a: L.isin(a, L.tensor([1.0, 5.0])))(_x(L)),
    "isin_batched_test": lambda L: L.func.vmap(lambda a: L.isin(L.tensor([1.0, 5.0]), a))(_x(L)),
    "isin_both": lambda L: L.func.vmap(L.isin)(_x(L), _x(L)[:, :2]),
    "isin_scalar": lambda L: L.func.vmap(lambda a: L.isin(a, 5.0))(_x(L)),
    "argwhere_unequal": lambda L: L.func.vmap(L.argwhere)(_xi(L)),
    "argwhere_equal": lambda L: L.func.vmap(L.argwhere)(L.eye(3)),
    "nested_quantile": lambda L: L.func.vmap(L.func.vmap(lambda a: L.quantile(a, 0.5)))(
        L.arange(24.0).reshape(2, 3, 4)),
    "nested_outer_q": lambda L: L.func.vmap(
        lambda q: L.func.vmap(lambda a: L.quantile(a, q))(_x(L)))(L.tensor([0.2, 0.8])),
    "grad_of_quantile": lambda L: L.func.vmap(L.func.grad(lambda a: L.quantile(a, 0.3)))(
        _x(L)),
    "chunked_bincount": lambda L: L.func.vmap(lambda a: L.bincount(a, minlength=5),
                                              chunk_size=2)(_xi(L)),
    # torch raises for results whose size depends on each sample's values
    "unique": lambda L: L.func.vmap(L.unique)(_xi(L)),
    "unique_dim": lambda L: L.func.vmap(lambda a: L.unique(a, dim=0))(_xi(L)),
    "unique_method": lambda L: L.func.vmap(lambda a: a.unique(return_inverse=True))(_xi(L)),
    "unique_consecutive": lambda L: L.func.vmap(L.unique_consecutive)(_xi(L)),
    "nonzero": lambda L: L.func.vmap(L.nonzero)(_xi(L)),
    "nonzero_as_tuple": lambda L: L.func.vmap(lambda a: L.nonzero(a, as_tuple=True))(_xi(L)),
    "where_condition_only": lambda L: L.func.vmap(L.where)(_xi(L)),
    "where_three": lambda L: L.func.vmap(lambda a: L.where(a > 4, a, -a))(_x(L)),
    "masked_select_batched_mask": lambda L: L.func.vmap(lambda a: L.masked_select(a, a > 2))(
        _x(L)),
    "masked_select_plain_mask": lambda L: L.func.vmap(
        lambda a: L.masked_select(a, L.tensor([False, False, True, False])))(_x(L)),
    "histogramdd": lambda L: L.func.vmap(lambda a: L.histogramdd(a[:, None], bins=[2]).hist)(
        _x(L)),
}


@pytest.mark.parametrize("case", sorted(FALLBACK))
def test_vmap_host_value_functions(case):
    _check(FALLBACK[case])


def test_fallback_functions_restored_after_vmap():
    before = (numtorch.quantile, numtorch.ops.bincount)
    numtorch.func.vmap(lambda a: numtorch.quantile(a, 0.5))(numtorch.ones(2, 3))
    assert (numtorch.quantile, numtorch.ops.bincount) == before


# -- as_strided / as_strided_ under vmap --------------------------------------------------------
def _restrided_(a, size, stride, offset=None):
    b = a.clone()
    r = b.as_strided_(size, stride) if offset is None else b.as_strided_(size, stride, offset)
    return r, b * 1


def _meta(L, a):
    b = a[1:]
    return L.tensor([b.storage_offset(), *b.stride(), a.storage_offset()])


STRIDED = {
    "as_strided": lambda L: L.func.vmap(lambda a: a.as_strided((2, 2), (1, 2)))(_x(L)),
    "as_strided_fn": lambda L: L.func.vmap(lambda a: L.as_strided(a, (3,), (1,)))(_x(L)),
    "as_strided_in_dims1": lambda L: L.func.vmap(lambda a: a.as_strided((2,), (1,)), in_dims=1)(
        _x(L)),
    "as_strided_offset_ok": lambda L: L.func.vmap(lambda a: a.as_strided((2,), (1,), 3),
                                                  in_dims=1)(L.arange(24.0).reshape(3, 8)),
    "as_strided_of_slice": lambda L: L.func.vmap(lambda a: a[1:].as_strided((2,), (2,)))(
        L.arange(24.0).reshape(3, 8)),
    "as_strided_sliced_input": lambda L: L.func.vmap(lambda a: a.as_strided((2,), (2,), 3))(
        L.arange(24.0).reshape(3, 8)[:, 2:]),
    "as_strided_outside_offset": lambda L: L.func.vmap(
        lambda a: a.as_strided((2, 2), (1, 2), 1))(_x(L)),
    "as_strided_outside_size": lambda L: L.func.vmap(lambda a: a.as_strided((5,), (1,)))(_x(L)),
    "as_strided_outside_in_dims1": lambda L: L.func.vmap(
        lambda a: a[1:].as_strided((2,), (2,), 3), in_dims=1)(L.arange(24.0).reshape(3, 8)),
    "as_strided_nested": lambda L: L.func.vmap(L.func.vmap(lambda a: a.as_strided((2,), (2,))))(
        L.arange(24.0).reshape(2, 3, 4)),
    "as_strided_grad": lambda L: L.func.vmap(L.func.grad(
        lambda a: (a.as_strided((2, 2), (1, 1)) ** 2).sum()))(_x(L)),
    "as_strided__keeps_geometry": lambda L: L.func.vmap(
        lambda a: _restrided_(a, (2,), (2,), 1))(_x(L)),
    "as_strided__default_offset": lambda L: L.func.vmap(lambda a: _restrided_(a, (2, 2), (2, 1)))(
        _x(L)),
    "as_strided__out_of_storage": lambda L: L.func.vmap(lambda a: _restrided_(a, (5,), (1,)))(
        _x(L)),
    "as_strided__on_input": lambda L: L.func.vmap(lambda a: a.as_strided_((2,), (2,), 1) * 1)(
        _x(L).clone()),
    "as_strided__plain_inside": lambda L: L.func.vmap(
        lambda a: L.zeros(4).as_strided_((2,), (2,)) + a[:2])(_x(L)),
    "as_strided_scatter": lambda L: L.func.vmap(
        lambda a, s: L.as_strided_scatter(a, s, (2,), (2,)))(_x(L), L.ones(3, 2)),
    "storage_offset_and_stride": lambda L: L.func.vmap(lambda a: _meta(L, a), in_dims=1)(
        L.arange(24.0).reshape(3, 8)),
}


@pytest.mark.parametrize("case", sorted(STRIDED))
def test_vmap_as_strided(case):
    _check(STRIDED[case])


# -- the autodiff transforms: arguments, outputs, errors ----------------------------------------
def _v(L):
    return L.arange(1.0, 5.0) / 4


def _m(L):
    return L.arange(1.0, 7.0).reshape(2, 3) / 6


def _f(a, b):
    return (a.sin() * b.sum()).sum() + (a ** 2).sum() * b[0, 0]


def _fv(a, b):
    return a.sin() * b.sum()


def _called(result, *cotangents):
    """``(output, fn(c) for each c, aux...)`` of a ``vjp``/``linearize`` result."""
    out, fn, *rest = result
    return (out, *[fn(c) for c in cotangents], *rest)


def _linearized(L, *tangents):
    return L.func.linearize(lambda a, b: a.sin() * b, _v(L), _v(L))[1](*tangents)


TRANSFORMS = {
    "grad_argnums_tuple": lambda L: L.func.grad(_f, argnums=(0, 1))(_v(L), _m(L)),
    "grad_argnums_dup": lambda L: L.func.grad(_f, argnums=(0, 0))(_v(L), _m(L)),
    "grad_nonscalar": lambda L: L.func.grad(lambda a: a * 2)(_v(L)),
    "grad_has_aux_dict": lambda L: L.func.grad(lambda a: (a.sum(), {"v": a * 2}),
                                               has_aux=True)(_v(L)),
    "jacrev_has_aux": lambda L: L.func.jacrev(lambda a: (a.sin(), a.cos().sum()),
                                              has_aux=True)(_v(L)),
    "jacfwd_argnums": lambda L: L.func.jacfwd(_fv, argnums=(0, 1))(_v(L), _m(L)),
    "hessian_argnums": lambda L: L.func.hessian(_f, argnums=(0, 1))(_v(L), _m(L)),
    "vjp_has_aux": lambda L: _called(L.func.vjp(lambda a: (a.sin(), a.sum()), _v(L),
                                                has_aux=True), L.ones(4)),
    "vjp_integer_output": lambda L: L.func.vjp(lambda a: (a > 0).long(), _v(L))[0],
    "vjp_integer_in_tuple": lambda L: L.func.vjp(lambda a: (a, a > 0), _v(L))[0],
    "jacrev_integer_output": lambda L: L.func.jacrev(lambda a: (a > 0).long())(_v(L)),
    "jvp_integer_primal": lambda L: L.func.jvp(lambda a: a * 2, (L.arange(3),), (L.ones(3),)),
    "jacfwd_integer_primal": lambda L: L.func.jacfwd(lambda a: a * 2)(L.arange(3)),
    "jvp_bool_output": lambda L: L.func.jvp(lambda a: (a > 0, a * 2), (_v(L),), (L.ones(4),)),
    "jvp_long_output": lambda L: L.func.jvp(lambda a: (a > 0).long(), (_v(L),), (L.ones(4),)),
    "vmap_jvp_bool_output": lambda L: L.func.vmap(
        lambda r: L.func.jvp(lambda a: (a > 0, a.sin()), (r,), (L.ones(4),)))(L.ones(2, 4)),
    "linearize": lambda L: _called(L.func.linearize(lambda a: a.sin() * a, _v(L)), L.ones(4),
                                   _v(L)),
    "linearize_ok": lambda L: _linearized(L, L.ones(4), L.ones(4) * 2),
    "linearize_too_few": lambda L: _linearized(L, L.ones(4)),
    "linearize_too_many": lambda L: _linearized(L, L.ones(4), L.ones(4), L.ones(4)),
    "linearize_nested": lambda L: _linearized(L, (L.ones(4), L.ones(4))),
    "linearize_shape": lambda L: _linearized(L, L.ones(4), L.ones(2)),
    "linearize_dtype": lambda L: _linearized(L, L.ones(4), L.ones(4, dtype=L.float64)),
    "vmap_grad_item": lambda L: L.func.vmap(L.func.grad(lambda a: a.sum() * a.sum().item()))(
        _v(L).reshape(2, 2)),
    "vmap_grad_float": lambda L: L.func.vmap(L.func.grad(lambda a: a.sum() * float(a.sum())))(
        _v(L).reshape(2, 2)),
    "vmap_grad_control_flow": lambda L: L.func.vmap(L.func.grad(
        lambda a: a.sum() if a.sum() > 0 else -a.sum()))(_v(L).reshape(2, 2)),
    "vmap_jacfwd_float": lambda L: L.func.vmap(L.func.jacfwd(
        lambda a: a.sum() * float(a.sum())))(_v(L).reshape(2, 2)),
    "vmap_control_flow": lambda L: L.func.vmap(lambda a: a.sum() if a.sum() > 0 else -a.sum())(
        _v(L).reshape(2, 2)),
    "vmap_item": lambda L: L.func.vmap(lambda a: a.sum() * a.sum().item())(_v(L).reshape(2, 2)),
    "backward_in_vmap": lambda L: L.func.vmap(lambda a: a.sum().backward())(
        _v(L).reshape(2, 2).requires_grad_()),
    "backward_in_grad": lambda L: L.func.grad(lambda a: a.sum().backward())(_v(L)),
    "autograd_backward_in_grad": lambda L: L.func.grad(
        lambda a: L.autograd.backward([a.sum()]))(_v(L)),
    "backward_in_jvp": lambda L: L.func.jvp(lambda a: a.sum().backward(),
                                            (_v(L).requires_grad_(),), (_v(L),)),
}


@pytest.mark.parametrize("case", sorted(TRANSFORMS))
def test_transforms(case):
    _check(TRANSFORMS[case])


def test_backward_after_transform_still_works():
    x = numtorch.ones(3, requires_grad=True)
    numtorch.func.grad(lambda a: (a ** 2).sum())(numtorch.ones(3))
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


# -- functional_call, stack_module_state and ensembling ----------------------------------------
def _init(m, L):
    with L.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(L.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (1 + 0.1 * i))
    return m


def _tied(L):
    class Tied(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = L.nn.Embedding(5, 3)
            self.out = L.nn.Linear(3, 5, bias=False)
            self.out.weight = self.emb.weight
            self.register_buffer("scale", L.tensor(2.0))

        def forward(self, idx):
            return self.out(self.emb(idx) * self.scale)

    return _init(Tied(), L)


def _fc(L, params, **kw):
    return L.func.functional_call(_tied(L), params, (L.tensor([0, 3, 4]),), **kw)


def _bn_ensemble(L, train, momentum=0.1, steps=1):
    import copy

    mods = [_init(L.nn.Sequential(L.nn.Linear(4, 4), L.nn.BatchNorm1d(4, momentum=momentum)),
                  L) for _ in range(2)]
    with L.no_grad():
        mods[1][0].weight.mul_(2)
    params, buffers = L.func.stack_module_state(mods)
    base = copy.deepcopy(mods[0]).to("meta")
    base.train(train)
    x = L.linspace(-1, 1, 20).reshape(5, 4)
    outs = [L.func.vmap(lambda p, b, x: L.func.functional_call(base, (p, b), (x,)),
                        in_dims=(0, 0, None))(params, buffers, x * (s + 1))
            for s in range(steps)]
    return outs, buffers


def _bn_functional(L, batched_input):
    rm, rv = L.zeros(2, 4), L.ones(2, 4)
    if batched_input:
        out = L.func.vmap(lambda x, m, v: L.nn.functional.batch_norm(
            x, m, v, training=True, momentum=0.3))(L.linspace(-1, 1, 24).reshape(2, 3, 4) ** 2,
                                                  rm, rv)
    else:
        out = L.func.vmap(lambda m, v: L.nn.functional.batch_norm(
            L.linspace(-1, 1, 12).reshape(3, 4), m, v, training=True))(rm, rv)
    return out, rm, rv


ENSEMBLE = {
    "fc_tied_one_key": lambda L: _fc(L, {"emb.weight": L.ones(5, 3)}),
    "fc_tied_other_key": lambda L: _fc(L, {"out.weight": L.ones(5, 3)}),
    "fc_tied_both_differ": lambda L: _fc(L, {"out.weight": L.ones(5, 3),
                                             "emb.weight": L.zeros(5, 3)}),
    "fc_untied": lambda L: _fc(L, {"emb.weight": L.ones(5, 3)}, tie_weights=False),
    "fc_buffer": lambda L: _fc(L, {"scale": L.tensor(3.0)}),
    "fc_dict_tuple": lambda L: _fc(L, ({"scale": L.tensor(3.0)}, {"emb.weight": L.ones(5, 3)})),
    "fc_dict_tuple_duplicate": lambda L: _fc(L, ({"scale": L.tensor(3.0)},
                                                 {"scale": L.tensor(1.0)})),
    "fc_strict": lambda L: _fc(L, {"emb.weight": L.ones(5, 3)}, strict=True),
    "fc_number_value": lambda L: _fc(L, {"scale": 3.0}),
    "fc_list_value": lambda L: _fc(L, {"emb.weight": [1.0]}),
    "fc_none_value": lambda L: L.func.functional_call(L.nn.Linear(3, 2), {"bias": None},
                                                      (L.ones(3),)).shape,
    "fc_duplicate_before_type": lambda L: _fc(L, ({"scale": 1}, {"scale": L.tensor(2.0)})),
    "fc_grad_tied": lambda L: L.func.grad(
        lambda p: L.func.functional_call(_tied(L), p, (L.tensor([0, 3, 4]),)).sum())(
        {k: v.detach() for k, v in _tied(L).named_parameters()}),
    "bn_ensemble_train": lambda L: _bn_ensemble(L, True, steps=2),
    "bn_ensemble_cumulative": lambda L: _bn_ensemble(L, True, momentum=None, steps=2),
    "bn_ensemble_eval": lambda L: _bn_ensemble(L, False),
    "bn_plain_module_train": lambda L: L.func.vmap(L.nn.BatchNorm1d(4))(
        L.linspace(-1, 1, 24).reshape(2, 3, 4)),
    "bn_no_running_stats": lambda L: L.func.vmap(L.nn.BatchNorm1d(4, track_running_stats=False))(
        L.linspace(-1, 1, 24).reshape(2, 3, 4)),
    "bn_functional_batched_stats": lambda L: _bn_functional(L, True),
    "bn_functional_stats_only_batched": lambda L: _bn_functional(L, False),
}


@pytest.mark.parametrize("case", sorted(ENSEMBLE))
def test_functional_call_and_ensembles(case):
    _check(ENSEMBLE[case])


# -- nn.functional under vmap ---------------------------------------------------------------------
def _lin(L, *shape, k=1.0):
    n = 1
    for s in shape:
        n *= s
    return (L.linspace(-1, 1, n) * k).reshape(shape)


def _ctc_targets(L):
    return L.tensor([[[1, 2]], [[2, 3]], [[1, 1]]])


def _grid_sample_grads(L):
    x = _lin(L, 3, 2, 5, 5).requires_grad_()
    g = _lin(L, 3, 4, 4, 2, k=0.9).requires_grad_()
    out = L.func.vmap(lambda a, b: L.nn.functional.grid_sample(a[None], b[None],
                                                                align_corners=False))(x, g)
    out.pow(2).sum().backward()
    return out, x.grad, g.grad


FUNCTIONAL = {
    "grid_sample": lambda L: L.func.vmap(lambda x, g: L.nn.functional.grid_sample(
        x[None], g[None], align_corners=False))(_lin(L, 3, 2, 5, 5), _lin(L, 3, 4, 4, 2, k=0.9)),
    "grid_sample_plain_grid": lambda L: L.func.vmap(lambda x: L.nn.functional.grid_sample(
        x[None], _lin(L, 1, 4, 4, 2, k=0.9), align_corners=True, mode="nearest"))(
        _lin(L, 3, 2, 5, 5)),
    "grid_sample_plain_input": lambda L: L.func.vmap(lambda g: L.nn.functional.grid_sample(
        _lin(L, 1, 2, 5, 5), g[None], padding_mode="border", align_corners=False))(
        _lin(L, 3, 4, 4, 2, k=1.2)),
    "grid_sample_3d": lambda L: L.func.vmap(lambda x, g: L.nn.functional.grid_sample(
        x[None], g[None], align_corners=False))(_lin(L, 3, 2, 3, 3, 3),
                                                _lin(L, 3, 2, 2, 2, 3, k=0.9)),
    "grid_sample_nested": lambda L: L.func.vmap(L.func.vmap(
        lambda x, g: L.nn.functional.grid_sample(x, g, align_corners=False)))(
        _lin(L, 2, 3, 1, 2, 5, 5), _lin(L, 2, 3, 1, 4, 4, 2, k=0.9)),
    "grid_sample_grads": _grid_sample_grads,
    "ctc_loss": lambda L: L.func.vmap(lambda lp, t: L.nn.functional.ctc_loss(
        lp, t, L.tensor([6]), L.tensor([2])))(_lin(L, 3, 6, 1, 4).log_softmax(-1),
                                              _ctc_targets(L)),
    "ctc_loss_batched_lengths": lambda L: L.func.vmap(lambda lp, t, il: L.nn.functional.ctc_loss(
        lp, t, il, L.tensor([2]), reduction="sum"))(_lin(L, 3, 6, 1, 4).log_softmax(-1),
                                                    _ctc_targets(L), L.tensor([[6], [5], [4]])),
    "one_hot_no_classes": lambda L: L.func.vmap(L.nn.functional.one_hot)(_xi(L)),
    "one_hot_zero_classes": lambda L: L.func.vmap(lambda i: L.nn.functional.one_hot(i, 0))(
        _xi(L)),
    "one_hot": lambda L: L.func.vmap(lambda i: L.nn.functional.one_hot(i, 6))(_xi(L)),
    "one_hot_float_input": lambda L: L.func.vmap(L.nn.functional.one_hot)(_x(L)),
    "embedding_max_norm_plain_table": lambda L: L.func.vmap(
        lambda i: L.nn.functional.embedding(i, _lin(L, 10, 3), max_norm=0.5))(_xi(L)),
    "embedding_max_norm_batched_table": lambda L: L.func.vmap(
        lambda i, e: L.nn.functional.embedding(i, e, max_norm=0.5))(_xi(L),
                                                                    _lin(L, 3, 10, 3)),
    "cross_entropy_label_smoothing": lambda L: L.func.vmap(
        lambda a, t: L.nn.functional.cross_entropy(a, t, label_smoothing=0.1))(
        _lin(L, 3, 4, 6, k=2), _xi(L)),
    "sdpa_causal": lambda L: L.func.vmap(lambda q, k, v: L.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=True))(_lin(L, 3, 2, 4, 8), _lin(L, 3, 2, 5, 8, k=0.5),
                                  _lin(L, 3, 2, 5, 8, k=2)),
    "conv2d_batched_weight": lambda L: L.func.vmap(
        lambda x, w: L.nn.functional.conv2d(x[None], w, padding=1))(
        _lin(L, 3, 2, 5, 5), _lin(L, 3, 4, 2, 3, 3, k=0.3)),
}


@pytest.mark.parametrize("case", sorted(FUNCTIONAL))
def test_nn_functional_under_vmap(case):
    _check(FUNCTIONAL[case])


# -- per-sample gradients (the torch tutorial pattern) and nested vmap ----------------------------
def _cnn(L):
    F = L.nn.functional

    class SimpleCNN(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = L.nn.Conv2d(1, 4, 3, 1)
            self.conv2 = L.nn.Conv2d(4, 6, 3, 1)
            self.fc1 = L.nn.Linear(6 * 2 * 2, 16)
            self.fc2 = L.nn.Linear(16, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
            return F.log_softmax(self.fc2(F.relu(self.fc1(L.flatten(x, 1)))), dim=1)

    model = SimpleCNN()
    with L.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(L.sin(L.arange(p.numel(), dtype=L.float32) * (0.37 + 0.11 * i)).reshape(
                p.shape) * 0.3)
    return model


def _per_sample_grads(L, chunk_size=None, argnums=0):
    model = _cnn(L)
    data = L.sin(L.arange(8 * 64, dtype=L.float32) * 0.13).reshape(8, 1, 8, 8)
    targets = L.arange(8) % 10
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        pred = L.func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return L.nn.functional.nll_loss(pred, target.unsqueeze(0))

    return L.func.vmap(L.func.grad(compute_loss, argnums=argnums), in_dims=(None, None, 0, 0),
                       chunk_size=chunk_size)(params, buffers, data, targets)


def _x3(L):
    return L.sin(L.arange(24, dtype=L.float32)).reshape(2, 3, 4)


def _y3(L):
    return L.cos(L.arange(24, dtype=L.float32)).reshape(2, 3, 4)


NESTED = {
    "per_sample_grads": _per_sample_grads,
    "per_sample_grads_chunked": lambda L: _per_sample_grads(L, chunk_size=3),
    "per_sample_input_grads": lambda L: _per_sample_grads(L, argnums=2),
    "vv_dot": lambda L: L.func.vmap(L.func.vmap(L.dot))(_x3(L), _y3(L)),
    "vv_crossed_in_dims": lambda L: L.func.vmap(L.func.vmap(L.dot, in_dims=(0, None)),
                                                in_dims=(None, 0))(_x3(L)[0], _y3(L)[0]),
    "vv_in_dims_1_2": lambda L: L.func.vmap(L.func.vmap(lambda a, b: a * b, in_dims=(1, 1)),
                                            in_dims=(2, 2))(_x3(L), _y3(L)),
    "vv_out_dims": lambda L: L.func.vmap(L.func.vmap(lambda a: a.cumsum(0), out_dims=1),
                                         out_dims=1)(_x3(L)),
    "vv_grad": lambda L: L.func.vmap(L.func.vmap(L.func.grad(lambda a: (a ** 3).sum())))(
        _x3(L)),
    "vv_index": lambda L: L.func.vmap(L.func.vmap(lambda a, i: a[i]))(
        _x3(L), L.tensor([[0, 1, 2], [3, 2, 1]])),
    "vv_inplace_outer_into_inner": lambda L: L.func.vmap(
        lambda a: L.func.vmap(lambda b: a.clone().add_(b))(_x3(L)[0]))(_y3(L)[:, 0]),
    "vv_inplace_unbatched_into_batched": lambda L: L.func.vmap(
        lambda a: L.func.vmap(lambda b: b.clone().mul_(a))(_x3(L)[0]))(_y3(L)[:, 0]),
    "vv_random_inner_error": lambda L: L.func.vmap(L.func.vmap(lambda a: L.rand(()) + a),
                                                   randomness="different")(_x3(L)),
    "vv_stack_levels": lambda L: L.func.vmap(
        lambda a: L.func.vmap(lambda b: L.stack([a, b]))(_y3(L)[0]))(_x3(L)[0]),
    "vv_quantile": lambda L: L.func.vmap(L.func.vmap(lambda a: a.quantile(0.3)))(_x3(L)),
}


@pytest.mark.parametrize("case", sorted(NESTED))
def test_per_sample_grads_and_nested_vmap(case):
    _check(NESTED[case], rtol=1e-4, atol=1e-6)


# -- matrix functions whose results are post-processed on the host ------------------------------
def _mats(L):
    return L.linspace(-1, 1, 27).reshape(3, 3, 3) + L.eye(3)


LINALG = {
    "lu_method": lambda L: L.func.vmap(lambda a: a.lu())(_mats(L)),
    "lu_infos": lambda L: L.func.vmap(lambda a: L.lu(a, get_infos=True))(_mats(L)),
    "lu_factor": lambda L: L.func.vmap(L.linalg.lu_factor)(_mats(L)),
    "lu_factor_ex": lambda L: L.func.vmap(L.linalg.lu_factor_ex)(_mats(L)),
    "linalg_lu": lambda L: L.func.vmap(L.linalg.lu)(_mats(L)),
    "linalg_lu_solve": lambda L: L.func.vmap(
        lambda a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b))(_mats(L), _mats(L)),
    "linalg_lu_solve_plain_rhs": lambda L: L.func.vmap(
        lambda a: L.linalg.lu_solve(*L.linalg.lu_factor(a), L.eye(3)[:, :2]))(_mats(L)),
    "lu_solve_method": lambda L: L.func.vmap(
        lambda a, b: b.lu_solve(*L.linalg.lu_factor(a)))(_mats(L), _mats(L)),
    "lu_unpack": lambda L: L.func.vmap(lambda a: L.lu_unpack(*L.linalg.lu_factor(a)))(_mats(L)),
    "lu_factor_of_stack": lambda L: L.func.vmap(L.linalg.lu_factor)(
        _mats(L).reshape(3, 1, 3, 3).expand(3, 2, 3, 3) * L.tensor([1.0, 2.0])[:, None, None]),
    "lu_factor_grad": lambda L: L.func.vmap(L.func.grad(
        lambda a: L.linalg.lu_factor(a)[0].sum()))(_mats(L)),
    "matrix_rank": lambda L: L.func.vmap(L.linalg.matrix_rank)(_mats(L)),
    "matrix_rank_atol": lambda L: L.func.vmap(
        lambda a, t: L.linalg.matrix_rank(a, atol=t))(_mats(L), L.tensor([0.1, 5.0, 0.5])),
    "ldl_factor": lambda L: L.func.vmap(lambda a: L.linalg.ldl_factor(a + a.mT))(_mats(L)),
    "lstsq": lambda L: L.func.vmap(L.linalg.lstsq)(_mats(L), _mats(L)),
    "linalg_lu_vector_sample": lambda L: L.func.vmap(L.linalg.lu)(_mats(L)[:, 0]),
    "matrix_rank_vector_sample": lambda L: L.func.vmap(L.linalg.matrix_rank)(_mats(L)[:, 0]),
    "lstsq_gelsd": lambda L: L.func.vmap(lambda a, b: L.linalg.lstsq(a, b, driver="gelsd"))(
        _mats(L), _mats(L)),
}


@pytest.mark.parametrize("case", sorted(LINALG))
def test_vmap_matrix_functions(case):
    _check(LINALG[case], rtol=1e-4, atol=1e-5)


# -- out= under vmap: torch's fallback refuses out= writes of batched values --------------------
OUT = {
    "add_batched_out": lambda L: L.func.vmap(lambda t, o: L.add(t, 1, out=o))(_x(L), _x(L) * 0),
    "add_plain_out": lambda L: L.func.vmap(lambda t: L.add(t, 1, out=L.empty(4)))(_x(L)),
    "mul": lambda L: L.func.vmap(lambda t: L.mul(t, 2, out=L.empty(4)))(_x(L)),
    "sum": lambda L: L.func.vmap(lambda t: L.sum(t, 0, out=L.empty(())))(_x(L)),
    "exp": lambda L: L.func.vmap(lambda t: L.exp(t, out=L.empty(4)))(_x(L)),
    "cat": lambda L: L.func.vmap(lambda t: L.cat([t, t], out=L.empty(8)))(_x(L)),
    "stack": lambda L: L.func.vmap(lambda t: L.stack([t, t], out=L.empty(2, 4)))(_x(L)),
    "mm": lambda L: L.func.vmap(lambda t: L.mm(t[None], t[:, None], out=L.empty(1, 1)))(_x(L)),
    "cumsum": lambda L: L.func.vmap(lambda t: L.cumsum(t, 0, out=L.empty(4)))(_x(L)),
    "unbatched_inside": lambda L: L.func.vmap(
        lambda t: (L.add(L.ones(2), 1, out=L.empty(2)), t * 2)[1])(_x(L)),
}


@pytest.mark.parametrize("case", sorted(OUT))
def test_vmap_out_argument(case):
    _check(OUT[case])


@pytest.mark.parametrize("chunk", [1, 2, 3, 10])
def test_vmap_chunked_none_out_dim(chunk):
    _check(lambda L: L.func.vmap(lambda t: (t, L.ones(1)), chunk_size=chunk, out_dims=(0, None))(
        _x(L)))


def test_jacrev_chunked_has_aux():
    _check(lambda L: L.func.jacrev(lambda a: (a.sin(), a.sum()), has_aux=True, chunk_size=1)(
        _v(L)))


# -- empty batches and per-sample scalar indices --------------------------------------------------
EMPTY_AND_INDEX = {
    "empty_quantile_scalar_q": lambda L: L.func.vmap(lambda a: a.quantile(0.5))(L.ones(0, 3)),
    "empty_quantile_tensor_q": lambda L: L.func.vmap(lambda a: a.quantile(L.tensor([0.5])))(
        L.ones(0, 3)),
    "empty_bincount": lambda L: L.func.vmap(lambda a: a.bincount(minlength=3))(
        L.ones(0, 3, dtype=L.long)),
    "empty_histc": lambda L: L.func.vmap(lambda a: a.histc(3))(L.ones(0, 3)),
    "empty_isin": lambda L: L.func.vmap(lambda a: L.isin(a, L.tensor([1.0])))(L.ones(0, 3)),
    "empty_argwhere": lambda L: L.func.vmap(L.argwhere)(L.ones(0, 3)),
    "empty_repeat_interleave_int": lambda L: L.func.vmap(lambda a: a.repeat_interleave(2))(
        L.ones(0, 3)),
    "index_put_scalar_index": lambda L: L.func.vmap(
        lambda a, i: a.index_put((i,), L.tensor(9.0)))(_x(L), L.tensor([0, 1, 3])),
    "index_put__accumulate": lambda L: L.func.vmap(
        lambda a, i: a.clone().index_put_((i,), L.tensor(9.0), accumulate=True))(
        _x(L), L.tensor([0, 1, 3])),
    "torch_index_put": lambda L: L.func.vmap(lambda a, i: L.index_put(a, (i,), L.tensor(9.0)))(
        _x(L), L.tensor([0, 1, 3])),
    "index_put_two_scalar_indices": lambda L: L.func.vmap(
        lambda a, i: a.index_put((i, i), L.tensor(9.0)))(_x(L).reshape(3, 2, 2),
                                                         L.tensor([0, 1, 1])),
    "index_put_batched_values": lambda L: L.func.vmap(lambda a, i, v: a.index_put((i,), v))(
        _x(L), L.tensor([0, 1, 3]), L.tensor([5.0, 6.0, 7.0])),
}


@pytest.mark.parametrize("case", sorted(EMPTY_AND_INDEX))
def test_vmap_empty_batches_and_scalar_indices(case):
    _check(EMPTY_AND_INDEX[case])


# -- grad modes and complex values in the autodiff transforms -----------------------------------
def _grad_in_mode(L, mode):
    ctx = L.inference_mode() if mode == "inference" else L.no_grad()
    with ctx:
        return L.func.grad(lambda a: (a ** 2).sum())(_v(L))


def _in_inference_mode(L, which):
    with L.inference_mode():
        x = _v(L)
        if which == "vmap_grad":
            return L.func.vmap(L.func.grad(lambda a: (a ** 3).sum()))(x.reshape(2, 2))
        if which == "jacrev":
            return L.func.jacrev(L.sin)(x)
        if which == "jacfwd":
            return L.func.jacfwd(L.sin)(x)
        if which == "jvp":
            return L.func.jvp(L.sin, (x,), (L.ones(4),))
        return L.func.vjp(L.sin, x)[1](L.ones(4))


def _scaled(a, scale=1.0):
    return a * scale


def _inner_no_grad(L, a):
    with L.no_grad():
        b = a * 2
    return (a * b).sum()


MODES = {
    "grad_in_inference_mode": lambda L: _grad_in_mode(L, "inference"),
    "grad_under_no_grad": lambda L: _grad_in_mode(L, "no_grad"),
    "inference_vmap_grad": lambda L: _in_inference_mode(L, "vmap_grad"),
    "inference_jacrev": lambda L: _in_inference_mode(L, "jacrev"),
    "inference_jacfwd": lambda L: _in_inference_mode(L, "jacfwd"),
    "inference_jvp": lambda L: _in_inference_mode(L, "jvp"),
    "inference_vjp": lambda L: _in_inference_mode(L, "vjp"),
    "grad_inner_no_grad": lambda L: L.func.grad(lambda a: _inner_no_grad(L, a))(_v(L)),
    "grad_complex_output": lambda L: L.func.grad(lambda a: (a * 1j).sum())(_v(L)),
    "grad_complex_input": lambda L: L.func.grad(lambda a: (a * 1j).sum().real)(
        L.complex(_v(L), _v(L))),
    "jacrev_complex_input": lambda L: L.func.jacrev(lambda a, b: a * b, argnums=(0, 1))(
        _v(L), L.complex(_v(L), _v(L))),
    "jacrev_complex_output": lambda L: L.func.jacrev(lambda a: (a, a * 1j))(_v(L)),
    "jacfwd_complex_input": lambda L: L.func.jacfwd(lambda a: a)(L.complex(_v(L), _v(L))),
    "jacfwd_complex_output": lambda L: L.func.jacfwd(lambda a, b: (a, b * 1j), argnums=(0, 1))(
        _v(L), _v(L)),
    "hessian_complex_input": lambda L: L.func.hessian(lambda a: a.sum())(
        L.complex(_v(L), _v(L))),
    "jvp_number_tangent": lambda L: L.func.jvp(lambda a: a, (_v(L),), (1.0,)),
    "jacrev_keyword_argument": lambda L: L.func.jacrev(_scaled)(_v(L), scale=3.0),
    "jacfwd_keyword_argument": lambda L: L.func.jacfwd(_scaled)(_v(L), scale=3.0),
    "hessian_keyword_argument": lambda L: L.func.hessian(_scaled)(_v(L), scale=3.0),
}


@pytest.mark.parametrize("case", sorted(MODES))
def test_transform_grad_modes_and_complex(case):
    _check(MODES[case])


@pytest.mark.parametrize("name", ["where", "unique", "quantile", "bincount", "histc"])
def test_vmap_aware_functions_pickle(name):
    import pickle

    fn = getattr(numtorch, name)
    assert pickle.loads(pickle.dumps(fn)) is fn
    assert pickle.loads(pickle.dumps(numtorch.nn.functional.embedding)) is \
        numtorch.nn.functional.embedding


# -- *_like of a batched tensor is batched --------------------------------------------------------
def _accumulate(L, make):
    def f(t):
        out = make(t)
        out += t
        return out

    return f


def _set_first(L, t):
    out = L.zeros_like(t)
    out[0] = t[1]
    return out


LIKE = {
    "zeros_like_accumulate": lambda L: L.func.vmap(_accumulate(L, L.zeros_like))(_x(L)),
    "ones_like_accumulate": lambda L: L.func.vmap(_accumulate(L, L.ones_like))(_x(L)),
    "full_like_accumulate": lambda L: L.func.vmap(
        _accumulate(L, lambda t: L.full_like(t, 2.0)))(_x(L)),
    "empty_like_copy": lambda L: L.func.vmap(lambda t: L.empty_like(t).copy_(t))(_x(L)),
    "zeros_like_setitem": lambda L: L.func.vmap(lambda t: _set_first(L, t))(_x(L)),
    "zeros_like_index_add_": lambda L: L.func.vmap(
        lambda t: L.zeros_like(t).index_add_(0, L.tensor([0, 0]), t[:2]))(_x(L)),
    "zeros_like_scatter_": lambda L: L.func.vmap(
        lambda t: L.zeros_like(t).scatter_(0, L.tensor([3, 2]), t[:2]))(_x(L)),
    "zeros_like_grad": lambda L: L.func.vmap(L.func.grad(
        lambda t: (L.zeros_like(t).add_(t) ** 2).sum()))(_x(L)),
    "zeros_like_in_dims1": lambda L: L.func.vmap(_accumulate(L, L.zeros_like), in_dims=1)(
        _x(L)),
    "zeros_like_dtype": lambda L: L.func.vmap(lambda t: L.zeros_like(t, dtype=L.int64))(_x(L)),
    "empty_like_fill_": lambda L: L.func.vmap(lambda t: L.empty_like(t).fill_(3.0))(_x(L)),
}


@pytest.mark.parametrize("case", sorted(LIKE))
def test_vmap_like_factories(case):
    _check(LIKE[case])


RRELU = {
    "functional": lambda L: L.nn.functional.rrelu(_x_or_sample(L)),
    "functional_training": lambda L: L.nn.functional.rrelu(_x_or_sample(L), training=True),
    "functional_inplace": lambda L: L.nn.functional.rrelu(_x_or_sample(L).clone(), inplace=True),
    "functional_": lambda L: L.nn.functional.rrelu_(_x_or_sample(L).clone()),
    "torch_rrelu_": lambda L: L.rrelu_(_x_or_sample(L).clone()),
    "module_eval": lambda L: L.nn.RReLU().eval()(_x_or_sample(L)),
    "plain_tensor_inside": lambda L: L.nn.functional.rrelu(L.ones(4)) + _x_or_sample(L),
}


@pytest.mark.parametrize("mode", ["error", "different"])
@pytest.mark.parametrize("case", sorted(RRELU))
def test_vmap_rrelu_refused(case, mode):
    _check(lambda L: L.func.vmap(lambda t: RRELU[case](_RreluLib(L, t)), randomness=mode)(_x(L)))


class _RreluLib:
    """The library with ``_x`` standing for the vmapped sample (so the cases read as above)."""

    def __init__(self, lib, sample):
        self._lib, self._sample = lib, sample

    def __getattr__(self, name):
        return getattr(self._lib, name)


def _x_or_sample(L):
    return L._sample if isinstance(L, _RreluLib) else L.arange(12.0).reshape(3, 4)


# -- tutorial programs: neural tangent kernels, Hessian-vector products, DP-SGD, MAML ------------
def _mlp(L):
    net = L.nn.Sequential(L.nn.Linear(3, 8), L.nn.Tanh(), L.nn.Linear(8, 2))
    with L.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(L.sin(L.arange(p.numel(), dtype=L.float32) * (0.37 + 0.11 * i)).reshape(
                p.shape) * 0.5)
    return net, {k: v.detach() for k, v in net.named_parameters()}


def _x1(L):
    return L.sin(L.arange(12.0)).reshape(4, 3)


def _x2(L):
    return L.cos(L.arange(9.0)).reshape(3, 3)


def _ntk(L, method):
    f = L.func
    net, params = _mlp(L)

    def single(p, x):
        return f.functional_call(net, p, (x.unsqueeze(0),)).squeeze(0)

    if method == "jacobian":
        j1 = [j.flatten(2) for j in f.vmap(f.jacrev(single), (None, 0))(params, _x1(L)).values()]
        j2 = [j.flatten(2) for j in f.vmap(f.jacrev(single), (None, 0))(params, _x2(L)).values()]
        return L.stack([L.einsum("Naf,Mbf->NMab", a, b) for a, b in zip(j1, j2)]).sum(0)

    def get_ntk(a, b):
        def one(vec):
            (vjps,) = f.vjp(lambda p: single(p, b), params)[1](vec)
            return f.jvp(lambda p: single(p, a), (params,), (vjps,))[1]

        return f.vmap(one)(L.eye(2))

    return f.vmap(f.vmap(get_ntk, (None, 0)), (0, None))(_x1(L), _x2(L))


def _hvp(L, mode):
    f = L.func
    net, params = _mlp(L)

    def loss(p):
        return f.functional_call(net, p, (_x1(L),)).pow(2).sum()

    v = {k: L.ones_like(t) for k, t in params.items()}
    if mode == "forward":
        return f.jvp(f.grad(loss), (params,), (v,))[1]
    return f.vjp(f.grad(loss), params)[1](v)


def _dp_sgd(L):
    f = L.func
    net, params = _mlp(L)

    def loss(p, x, t):
        return L.nn.functional.cross_entropy(f.functional_call(net, p, (x[None],)), t[None])

    g = f.vmap(f.grad(loss), (None, 0, 0))(params, _x1(L), L.tensor([0, 1, 1, 0]))
    norms = L.stack([v.flatten(1).norm(dim=1) for v in g.values()]).norm(dim=0)
    scale = (1.0 / (norms + 1e-6)).clamp(max=1.0)
    return {k: (v * scale.view(-1, *[1] * (v.dim() - 1))).sum(0) for k, v in g.items()}


def _maml(L):
    f = L.func
    net, params = _mlp(L)

    def inner(p):
        g = f.grad(lambda q: f.functional_call(net, q, (_x1(L),)).pow(2).mean())(p)
        return {k: p[k] - 0.1 * g[k] for k in p}

    return f.grad(lambda p: f.functional_call(net, inner(p), (_x2(L),)).pow(2).mean())(params)


def _fw(p, a):
    return (p * a).sin() * a.sum()


def _w3(L):
    return L.cos(L.arange(3.0))


TUTORIALS = {
    "ntk_jacobian_contraction": lambda L: _ntk(L, "jacobian"),
    "ntk_vjp_jvp": lambda L: _ntk(L, "vp"),
    "hvp_forward_over_reverse": lambda L: _hvp(L, "forward"),
    "hvp_reverse_over_reverse": lambda L: _hvp(L, "reverse"),
    "dp_sgd_clipped_grads": _dp_sgd,
    "maml_second_order": _maml,
    "vjp_cotangent_same_level": lambda L: L.func.vmap(
        lambda a: L.func.vjp(lambda p: _fw(p, a), _w3(L))[1](a.cos()))(_x1(L)),
    "vjp_nested_cotangents": lambda L: L.func.vmap(lambda a: L.func.vmap(
        lambda c: L.func.vjp(lambda p: _fw(p, a), _w3(L))[1](c * a))(L.eye(3)))(_x1(L)),
    "jvp_tangent_same_level": lambda L: L.func.vmap(
        lambda a: L.func.jvp(lambda p: _fw(p, a), (_w3(L),), (a,))[1])(_x1(L)),
    "jvp_nested_tangents": lambda L: L.func.vmap(lambda a: L.func.vmap(
        lambda c: L.func.jvp(lambda p: _fw(p, a), (_w3(L),), (c * a,))[1])(L.eye(3)))(_x1(L)),
}


@pytest.mark.parametrize("case", sorted(TUTORIALS))
def test_tutorial_programs(case):
    _check(TUTORIALS[case], rtol=1e-4, atol=1e-5)


def _set_requires_grad(t):
    t.requires_grad = True
    return t * 1


REQUIRES_GRAD = {
    "requires_grad_": lambda L: L.func.vmap(lambda a: a.clone().requires_grad_())(_x(L)),
    "requires_grad_false": lambda L: L.func.vmap(lambda a: a.clone().requires_grad_(False))(
        _x(L)),
    "requires_grad_attribute": lambda L: L.func.vmap(_set_requires_grad)(_x(L).clone()),
    "autograd_functional_jacobian": lambda L: L.func.vmap(
        lambda a: L.autograd.functional.jacobian(L.sin, a))(_x(L)),
    "autograd_functional_hessian": lambda L: L.func.vmap(
        lambda a: L.autograd.functional.hessian(lambda t: t.pow(3).sum(), a))(_x(L)),
}


@pytest.mark.parametrize("case", sorted(REQUIRES_GRAD))
def test_vmap_requires_grad_refused(case):
    _check(REQUIRES_GRAD[case])


def _returns_input(L):
    x = _x(L)
    return L.func.vmap(lambda a: a)(x) is x


def _write_through(L, in_dim):
    x = _x(L)
    r = L.func.vmap(lambda a: a[1:], in_dims=in_dim)(x)
    r[0, 0] = 100.0
    return x


def _masked_write(a, mask, value):
    c = a.clone()
    c[mask] = value
    return c


MISC = {
    "out_dims_string": lambda L: L.func.vmap(lambda a: a, out_dims="0")(_x(L)),
    "out_dims_list_for_tuple": lambda L: L.func.vmap(lambda a: (a, a), out_dims=[0, 1])(_x(L)),
    "out_dims_nested_list_for_tuple": lambda L: L.func.vmap(
        lambda a: [a, (a, a)], out_dims=[0, [0, 0]])(_x(L)),
    "out_dims_nested_ok": lambda L: L.func.vmap(lambda a: [a, (a, a)], out_dims=[0, (1, 0)])(
        _x(L)),
    "out_dims_tuple_for_namedtuple": lambda L: L.func.vmap(lambda a: L.max(a, 0),
                                                           out_dims=(0, 0))(_x(L)),
    "out_dims_dict_list": lambda L: L.func.vmap(lambda a: {"k": (a,)}, out_dims={"k": [0]})(
        _x(L)),
    "equal": lambda L: L.func.vmap(lambda a: L.equal(a, a) * a)(_x(L)),
    "allclose": lambda L: L.func.vmap(lambda a: L.allclose(a, a) * a)(_x(L)),
    "data_ptr": lambda L: L.func.vmap(lambda a: a * (a.data_ptr() > 0))(_x(L)),
    "setitem_batched_bool_mask": lambda L: L.func.vmap(lambda a: _masked_write(a, a > 5, 0.0))(
        _x(L)),
    "setitem_batched_bool_mask_tensor": lambda L: L.func.vmap(
        lambda a: _masked_write(a, a > 5, L.tensor(5.0)))(_x(L)),
    "setitem_plain_bool_mask": lambda L: L.func.vmap(
        lambda a: _masked_write(a, L.tensor([True, False, True, False]), 7.0))(_x(L)),
    "masked_fill__plain_self": lambda L: L.func.vmap(
        lambda m: L.zeros(4).masked_fill_(m, 1.0))(_x(L) > 5),
    "masked_fill__plain_self_batched_value": lambda L: L.func.vmap(
        lambda t: L.zeros(4).masked_fill_(L.tensor([True, False, True, False]), t[0]))(_x(L)),
    "masked_fill__plain_self_both": lambda L: L.func.vmap(
        lambda t: L.zeros(4).masked_fill_(t > 5, t[0]))(_x(L)),
    "identity_returns_input": lambda L: _returns_input(L),
    "identity_in_dims1_view": lambda L: _write_through(L, 1),
    "slice_view_writes_input": lambda L: _write_through(L, 0),
    "equal_method": lambda L: L.func.vmap(lambda a: a.equal(a) * a)(_x(L)),
    "allclose_method": lambda L: L.func.vmap(lambda a: a.allclose(a) * a)(_x(L)),
    "isclose": lambda L: L.func.vmap(lambda a, b: L.isclose(a, b, rtol=0.1))(_x(L), _x(L) * 1.05),
    "is_nonzero_method": lambda L: L.func.vmap(lambda a: a.is_nonzero())(_x(L)[:, :1]),
    "torch_is_nonzero": lambda L: L.func.vmap(L.is_nonzero)(_x(L)[:, 0]),
    "is_nonzero_in_grad": lambda L: L.func.vmap(L.func.grad(
        lambda a: a.sum() * a.is_nonzero()))(_x(L)[:, 0]),
}


@pytest.mark.parametrize("case", sorted(MISC))
def test_vmap_misc(case):
    _check(MISC[case])


# in-place ops writing a batched value into an unbatched tensor: torch's error for each
_INTO_PLAIN = {
    "add_": lambda s, t: s.add_(t), "mul_": lambda s, t: s.mul_(t), "div_": lambda s, t: s.div_(t),
    "pow_": lambda s, t: s.pow_(t), "clamp_min": lambda s, t: s.clamp_(min=t),
    "copy_": lambda s, t: s.copy_(t), "addcmul_": lambda s, t: s.addcmul_(t, t),
    "lerp_": lambda s, t: s.lerp_(t, 0.5), "atan2_": lambda s, t: s.atan2_(t),
    "fmod_": lambda s, t: s.fmod_(t), "iadd": lambda s, t: s.__iadd__(t),
    "index_copy_": lambda s, t: s.index_copy_(0, s.new_tensor([0, 1, 2, 3]).long(), t),
    "scatter_add_": lambda s, t: s.scatter_add_(0, s.new_tensor([0, 1, 2, 3]).long(), t),
    "index_put_": lambda s, t: s.index_put_((s.new_tensor([0, 1, 2, 3]).long(),), t),
    "put_": lambda s, t: s.put_(s.new_tensor([0, 1, 2, 3]).long(), t),
    "setitem": lambda s, t: s.__setitem__(slice(None), t),
    "addmm_": lambda s, t: s.reshape(2, 2).addmm_(t.reshape(2, 2), t.reshape(2, 2)),
}


@pytest.mark.parametrize("case", sorted(_INTO_PLAIN))
def test_vmap_inplace_into_unbatched(case):
    _check(lambda L: L.func.vmap(lambda t: _INTO_PLAIN[case](L.ones(4), t))(_x(L) + 1))
