"""Parity fixes of probe 51 (tensor2): beginners' argument mistakes on tensor methods and torch
functions raise torch's exception class and message (oracle: real torch at test time)."""

import pytest

from tests.oracle import same

_ENV = "x = t.arange(6.).view(2, 3) - 2.5; i = t.tensor([0, 1]); ii = t.zeros(2, 3, dtype=t.long)"


def _run(code):
    def fn(t):
        env = {"t": t, "torch": t}
        exec(_ENV, env)  # noqa: S102 - fixed test strings
        return eval(code, env)
    return fn


# -- 1. missing required arguments of tensor methods: torch's parser words -------------------

_MISSING = [
    "x.transpose()", "x.transpose(0)", "x.clone().transpose_(0)", "x.transpose(dim1=1)",
    "x.unsqueeze()", "x.clone().unsqueeze_()", "x.gather()", "x.gather(0)",
    "x.gather(index=ii)", "x.index_select(0)", "x.index_select()", "x.index_add(0, i)",
    "x.clone().index_add_(0)", "x.topk()", "x.topk(dim=0)", "x.chunk()", "x.roll()",
    "x.roll(dims=0)", "x.select(0)", "x.select()", "x.kthvalue()", "x.index_copy(0, i)",
    "x.clone().index_copy_(0)", "x.take()", "x.masked_select()", "x.unfold(0, 1)",
    "x.unfold()", "x.scatter_add(0, ii)", "x.clone().scatter_add_(0)", "x.view_as()",
    "x.expand_as()", "x.reshape_as()", "x.take_along_dim()", "x.split()", "x.unflatten(0)",
]


@pytest.mark.parametrize("code", _MISSING)
def test_missing_method_arguments(code):
    same(_run(code))


# the same methods still work (positional and keyword forms) and keep their other errors
_WORKING = [
    "x.transpose(0, 1)", "x.transpose(dim0=1, dim1=0)", "x.clone().transpose_(0, 1)",
    "x.unsqueeze(dim=1)", "x.gather(1, ii)", "x.gather(dim=1, index=ii)", "x.index_select(1, i)",
    "x.index_add(0, i, x)", "x.topk(2)", "x.topk(k=1, dim=0)", "x.chunk(2, 1)",
    "x.roll(1)", "x.roll(shifts=1, dims=0)", "x.select(1, 2)", "x.kthvalue(2)",
    "x.index_copy(0, i, x)", "x.take(i)", "x.masked_select(x > 0)", "x.unfold(1, 2, 1)",
    "x.scatter_add(0, ii, x)", "x.view_as(x.t())", "x.expand_as(t.ones(4, 2, 3))",
    "x.reshape_as(x.t())", "x.take_along_dim(ii, 1)", "x.split(1)", "x.unflatten(1, (3, 1))",
    "x.transpose(0, 5)", "x.unsqueeze('a')", "x.gather(0, i)", "x.topk(7)", "x.select(0, 9)",
    "x.view_as(3)", "x.expand_as(None)", "x.reshape_as([2, 3])", "x.index_add(0, source=x)", "x.roll(1.5)", "x.index_select(0, 1)", "x.chunk(0)",
]


@pytest.mark.parametrize("code", _WORKING)
def test_methods_still_work(code):
    same(_run(code))


# -- 2. new_* factories and type_as: missing size / fill_value / other ------------------------

_NEW = [
    "x.new_zeros()", "x.new_ones()", "x.new_empty()", "x.new_full()", "x.new_full((2,))",
    "x.new_full(fill_value=1)", "x.new_full((2,), 'a')", "x.type_as()", "x.type_as(3)",
    "x.new_zeros(2)", "x.new_zeros(())", "x.new_ones(size=(1, 2))", "x.new_full([2], 3)",
    "x.type_as(i)", "x.new_empty(0).shape",
]


@pytest.mark.parametrize("code", _NEW)
def test_new_factories_and_type_as(code):
    same(_run(code))


# -- 3. argmax/argmin dim of a wrong type: position as written (none for a keyword) ----------

_ARGDIM = [
    "x.argmax((0, 1))", "x.argmax(dim=(0, 1))", "x.argmin(dim='a')", "x.argmin([0])",
    "torch.argmax(x, (0,))", "torch.argmax(x, dim=1.5)", "torch.argmin(x, 'a', True)",
    "x.argmax(1)", "torch.argmin(x, dim=0, keepdim=True)",
]


@pytest.mark.parametrize("code", _ARGDIM)
def test_argmax_dim_type_errors(code):
    same(_run(code))


# -- 4. torch.cat() / torch.stack() and friends without their tensors ------------------------

_JOIN = [
    "torch.cat()", "torch.stack()", "torch.concat()", "torch.concatenate()", "torch.hstack()",
    "torch.vstack()", "torch.cat(dim=0)", "torch.stack(dim=1)", "torch.cat(x, x)",
    "torch.stack(x)", "torch.cat([x, x], 1)", "torch.stack((x, x), dim=2)", "torch.hstack([x, x])",
    "torch.vstack((x, x))", "torch.cat(tensors=[x])",
]


@pytest.mark.parametrize("code", _JOIN)
def test_join_missing_tensors(code):
    same(_run(code))


# -- 5. the torch functions behind those methods: missing arguments, still working -----------

_FUNCS = [
    "torch.transpose(x, 0)", "torch.transpose(x)", "torch.transpose()", "torch.unsqueeze()",
    "torch.unsqueeze(x)", "torch.gather(x, 0)", "torch.gather(x, index=ii)",
    "torch.index_select(x, 0)", "torch.topk(x)", "torch.chunk(x)", "torch.roll(x)",
    "torch.select(x, 0)", "torch.roll(x, dims=0)", "torch.topk(x, dim=0)",
    "torch.transpose(x, 0, 1)", "torch.transpose(x, dim0=1, dim1=0)", "torch.unsqueeze(x, 5)",
    "torch.unsqueeze(x, -1)", "torch.roll(x, 1, 0)", "torch.chunk(x, 2)", "torch.topk(x, 2)",
    "torch.select(x, 0, 1)", "torch.gather(x, 1, ii)", "torch.index_select(x, 1, i)",
    "torch.topk(x, 9)", "torch.gather(x, 'a', ii)", "torch.transpose(x, 0, 'a')",
    "x.to_sparse().transpose(0, 1).to_dense()", "x.to_sparse().unsqueeze(0).to_dense()",
    "torch.select(x, 1, -1)", "x.clone().transpose_(0)", "x.clone().unsqueeze_()",
]


@pytest.mark.parametrize("code", _FUNCS)
def test_functions_missing_arguments(code):
    same(_run(code))


# -- 6. methods with several overloads: a missing argument gets torch's overload listing ------

_OVERLOADED = [
    "x.narrow(0)", "x.narrow(0, 0)", "x.narrow()", "x.narrow(0, length=1)", "x.movedim(0)",
    "x.index_fill(0, i)", "x.clone().index_fill_(0)", "x.masked_fill(x > 0)",
    "x.clone().masked_fill_(x > 0)", "x.clone().fill_()", "x.masked_fill(value=1)",
    "x.narrow(1, 1, 2)", "x.narrow(0, t.tensor(1), 1)", "x.movedim(0, 1)", "x.movedim((0,), (1,))",
    "x.index_fill(1, i, -1.)", "x.clone().index_fill_(1, i, t.tensor(2.))",
    "x.masked_fill(x > 0, 0.5)", "x.clone().masked_fill_(x > 0, t.tensor(7.))",
    "x.clone().fill_(3)", "x.clone().fill_(t.tensor(2.))", "x.clone().fill_('a')",
    "x.narrow(0, 5, 1)", "x.masked_fill(x, 0)", "x.int().fill_(2.5)",
]


@pytest.mark.parametrize("code", _OVERLOADED)
def test_overloaded_methods_missing_arguments(code):
    same(_run(code))


# -- 7. factories without their data / size / fill value --------------------------------------

_FACTORIES = [
    "torch.tensor()", "torch.tensor(dtype=torch.float32)", "torch.full((2,))", "torch.full()",
    "torch.full(fill_value=1)", "torch.full((2,), 'a')", "torch.full(2, 1)", "torch.full((2,), 7)",
    "torch.tensor([1., 2.])", "torch.tensor(object())", "x.new_full((2,))",
]


@pytest.mark.parametrize("code", _FACTORIES)
def test_factories_missing_arguments(code):
    same(_run(code))


# -- 8. torch.arange: the three forms of torch's parser ----------------------------------------

_ARANGE = [
    "torch.arange()", "torch.arange(5, None)", "torch.arange(end=3)", "torch.arange('3')",
    "torch.arange(0, '3')", "torch.arange(0, 3, '1')", "torch.arange(None)",
    "torch.arange(start=1, end=3)", "torch.arange(1, end=3)", "torch.arange(step=2)",
    "torch.arange(end=5, step=2)", "torch.arange(3, step=2)", "torch.arange(dtype=torch.float32)",
    "torch.arange([3])", "torch.arange(t.tensor(3))", "torch.arange(0, 5, None)",
    "torch.arange(5)", "torch.arange(1, 4)", "torch.arange(1, 2.5, 0.5)",
    "torch.arange(0, 10, step=3)", "torch.arange(start=0, end=6, step=2)",
    "torch.arange(4, dtype=torch.float64)", "torch.arange(2, 5, 0)", "torch.arange(3.5)",
    "torch.arange(requires_grad=True)", "torch.arange(0, 1, 0.25, dtype=torch.float16)",
]


@pytest.mark.parametrize("code", _ARANGE)
def test_arange_forms(code):
    same(_run(code))


# -- 9. torch.where / Tensor.where with an argument left out ---------------------------------

_WHERE = [
    "torch.where()", "torch.where(x > 0, x)", "torch.where(x > 0, 1)", "x.where(x > 0)",
    "x.where()", "torch.where(condition=x > 0, input=x)", "torch.where(x > 0, other=x)",
    "torch.where(x > 0)", "torch.where(x > 0, x, 0.)", "x.where(x > 0, 0.)",
    "torch.where(x > 0, x, -x)", "torch.where(x > 0, 1, 0)", "x.where(x > 0, other=x * 2)",
    "torch.where(x, x, x)", "torch.where(condition=x > 1)",
]


@pytest.mark.parametrize("code", _WHERE)
def test_where_missing_arguments(code):
    same(_run(code))


# -- 10. an int index out of range names its place in the index, as torch does ---------------

_OUT_OF_RANGE = [
    "y[0, 5]", "y[None, 5]", "y[:, 5]", "y[None, :, 5]", "y[..., 5]", "y[0, 0, 9]",
    "y[None, None, 0, 7]", "y[0, None, 5]", "y[1, :, 9]", "y[:, None, 4]", "y[..., None, 4]",
    "y[0][5]", "y[0, -9]", "y[5]", "y[None, 1, 2, 3]", "y[..., 1, None, 3]",
]


@pytest.mark.parametrize("code", _OUT_OF_RANGE)
def test_basic_index_out_of_range_dimension(code):
    def fn(t):
        y = t.arange(24.).view(2, 3, 4)
        return eval(code, {"y": y})  # (fixed test strings)
    same(fn)


def _set_out_of_range(t):
    y = t.zeros(2, 3)
    y[None, 5] = 1.


def _set_out_of_range_2(t):
    y = t.zeros(2, 3)
    y[0, None, 7] = 1.


@pytest.mark.parametrize("fn", [_set_out_of_range, _set_out_of_range_2])
def test_setitem_out_of_range(fn):
    same(fn)


# -- 11. torch.randint without its size -------------------------------------------------------

_RANDINT = [
    "torch.randint(5)", "torch.randint()", "torch.randint(high=5)", "torch.randint(0, 5)",
    "torch.randint(0, 5, 3)", "torch.randint(5, (0,))", "torch.randint(2, 3, (2,)).shape",
    "torch.randint(1, (3,)).tolist()", "torch.randint(5, (2.5,))", "torch.randint(0, 5, (2.5,))",
    "torch.randint(5, size=(2.5,))", "torch.randint(5, ('a',))", "torch.randint(0, 5, size=(2,)).shape",
    "torch.randint(5, size=[1, 2]).shape", "torch.randint(0, 5, size=(2.5,))",
    "torch.randint(high=5, size=(2.5,))",
]


@pytest.mark.parametrize("code", _RANDINT)
def test_randint_missing_size(code):
    same(_run(code))


# -- 12. scatter without src / value: torch's overload listing --------------------------------

_SCATTER = [
    "x.scatter(0, ii)", "x.clone().scatter_(0, ii)", "torch.scatter(x, 0, ii)", "x.scatter(0)",
    "x.scatter()", "x.scatter(0, ii, x)", "x.scatter(0, ii, value=2.)",
    "x.clone().scatter_(1, ii, 5.)", "torch.scatter(x, 0, ii, x)",
]


@pytest.mark.parametrize("code", _SCATTER)
def test_scatter_missing_source(code):
    same(_run(code))
