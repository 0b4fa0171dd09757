"""Shape ops against torch: values, dtypes, shapes, gradients and second-order gradients."""

import numpy as np
import pytest

from tests.oracle import check_op, check_raises

DTYPES = ("float32", "float64")

# (id, lambda, input shapes): every case runs in float32 and float64 through check_op
CASES = [
    # view / reshape
    ("view", lambda t, x: x.view(4, 3), [(3, 4)]),
    ("view-neg1", lambda t, x: x.view(-1, 2), [(3, 4)]),
    ("view-size", lambda t, x: x.view(t.Size([2, 6])), [(3, 4)]),
    ("view-tuple", lambda t, x: x.view((2, 2, 3)), [(3, 4)]),
    ("view-scalar", lambda t, x: x.view(1, 1), [()]),
    ("view-to-scalar", lambda t, x: x.view(()), [(1,)]),
    ("view-empty", lambda t, x: x.view(3, 0), [(0, 3)]),
    ("view-after-slice", lambda t, x: x[1:].view(-1), [(3, 4)]),
    ("view-as", lambda t, x, y: x.view_as(y) * y, [(3, 4), (2, 6)]),
    ("reshape", lambda t, x: x.reshape(2, 6), [(3, 4)]),
    ("reshape-neg1", lambda t, x: x.reshape(-1), [(2, 3, 4)]),
    ("reshape-neg1-mid", lambda t, x: t.reshape(x, (2, -1, 2)), [(2, 3, 4)]),
    ("reshape-noncontig", lambda t, x: x.t().reshape(-1), [(3, 4)]),
    ("reshape-noncontig-3d", lambda t, x: x.permute(2, 0, 1).reshape(4, 6), [(2, 3, 4)]),
    ("reshape-step", lambda t, x: x[:, ::2].reshape(-1), [(3, 4)]),
    ("reshape-as", lambda t, x, y: x.reshape_as(y) + y, [(3, 4), (6, 2)]),
    ("reshape-scalar", lambda t, x: x.reshape(1, 1, 1), [()]),
    # permutations
    ("permute", lambda t, x: x.permute(2, 0, 1), [(2, 3, 4)]),
    ("permute-neg", lambda t, x: x.permute(-1, -3, -2), [(2, 3, 4)]),
    ("permute-tuple", lambda t, x: t.permute(x, (1, 0)), [(3, 4)]),
    ("transpose", lambda t, x: x.transpose(0, 2), [(2, 3, 4)]),
    ("transpose-neg", lambda t, x: t.transpose(x, -1, -2), [(2, 3, 4)]),
    ("transpose-same", lambda t, x: x.transpose(1, 1), [(2, 3)]),
    ("swapaxes", lambda t, x: x.swapaxes(0, 1), [(2, 3)]),
    ("swapdims", lambda t, x: t.swapdims(x, 0, 1), [(2, 3)]),
    ("t-2d", lambda t, x: x.t(), [(3, 4)]),
    ("t-1d", lambda t, x: x.t(), [(4,)]),
    ("t-0d", lambda t, x: t.t(x), [()]),
    ("T", lambda t, x: x.T, [(3, 4)]),
    ("mT", lambda t, x: x.mT, [(2, 3, 4)]),
    ("movedim", lambda t, x: x.movedim(0, 2), [(2, 3, 4)]),
    ("movedim-multi", lambda t, x: t.movedim(x, (0, 1), (2, 0)), [(2, 3, 4)]),
    ("moveaxis", lambda t, x: t.moveaxis(x, -1, 0), [(2, 3, 4)]),
    # expand
    ("expand", lambda t, x: x.expand(3, 4), [(3, 1)]),
    ("expand-neg1", lambda t, x: x.expand(-1, 5), [(3, 1)]),
    ("expand-lead", lambda t, x: x.expand(2, 3, 4), [(3, 1)]),
    ("expand-lead-neg1", lambda t, x: x.expand(2, -1, -1), [(3, 1)]),
    ("expand-scalar", lambda t, x: x.expand(2, 3), [()]),
    ("expand-same", lambda t, x: x.expand(3, 4), [(3, 4)]),
    ("expand-as", lambda t, x, y: x.expand_as(y) * y, [(1, 4), (3, 4)]),
    ("broadcast-to", lambda t, x: t.broadcast_to(x, (2, 3, 4)), [(4,)]),
    ("broadcast-to-method", lambda t, x: x.broadcast_to((3, 2)), [(3, 1)]),
    ("expand-then-reduce", lambda t, x: x.expand(4, 3, 2).sum(0), [(3, 2)]),
    # squeeze / unsqueeze / flatten
    ("squeeze", lambda t, x: x.squeeze(), [(1, 3, 1, 2)]),
    ("squeeze-dim", lambda t, x: x.squeeze(2), [(1, 3, 1, 2)]),
    ("squeeze-dim-noop", lambda t, x: x.squeeze(1), [(1, 3, 1, 2)]),
    ("squeeze-neg", lambda t, x: t.squeeze(x, -2), [(1, 3, 1, 2)]),
    ("squeeze-tuple", lambda t, x: x.squeeze((0, 2)), [(1, 3, 1, 2)]),
    ("squeeze-tuple-mixed", lambda t, x: x.squeeze((0, 1)), [(1, 3, 1, 2)]),
    ("squeeze-scalar", lambda t, x: x.squeeze(), [()]),
    ("squeeze-all-ones", lambda t, x: x.squeeze(), [(1, 1)]),
    ("unsqueeze", lambda t, x: x.unsqueeze(0), [(3, 4)]),
    ("unsqueeze-end", lambda t, x: x.unsqueeze(2), [(3, 4)]),
    ("unsqueeze-neg", lambda t, x: x.unsqueeze(-1), [(3, 4)]),
    ("unsqueeze-neg-mid", lambda t, x: t.unsqueeze(x, -2), [(3, 4)]),
    ("unsqueeze-scalar", lambda t, x: x.unsqueeze(-1), [()]),
    ("flatten", lambda t, x: x.flatten(), [(2, 3, 4)]),
    ("flatten-range", lambda t, x: x.flatten(1, 2), [(2, 3, 4, 2)]),
    ("flatten-neg", lambda t, x: t.flatten(x, start_dim=-2), [(2, 3, 4)]),
    ("flatten-scalar", lambda t, x: x.flatten(), [()]),
    ("flatten-noncontig", lambda t, x: x.transpose(0, 1).flatten(), [(2, 3, 4)]),
    ("unflatten", lambda t, x: x.unflatten(1, (2, 3)), [(4, 6)]),
    ("unflatten-neg1", lambda t, x: t.unflatten(x, -1, (3, -1)), [(4, 6)]),
    # joining
    ("cat", lambda t, x, y: t.cat([x, y]), [(2, 3), (4, 3)]),
    ("cat-dim1", lambda t, x, y, z: t.cat((x, y, z), dim=1), [(2, 3), (2, 1), (2, 2)]),
    ("cat-neg", lambda t, x, y: t.cat([x, y], -1), [(2, 3), (2, 2)]),
    ("cat-one", lambda t, x: t.cat([x], 0), [(2, 3)]),
    ("cat-same-tensor", lambda t, x: t.cat([x, x * 2, x], 1), [(2, 3)]),
    ("cat-empty-part", lambda t, x, y: t.cat([x, y]), [(0, 3), (2, 3)]),
    ("concat", lambda t, x, y: t.concat([x, y], 1), [(2, 3), (2, 2)]),
    ("concatenate", lambda t, x, y: t.concatenate([x, y], 0), [(2, 3), (1, 3)]),
    ("stack", lambda t, x, y: t.stack([x, y]), [(2, 3), (2, 3)]),
    ("stack-dim", lambda t, x, y: t.stack((x, y), 1), [(2, 3), (2, 3)]),
    ("stack-neg", lambda t, x, y, z: t.stack([x, y, z], -1), [(2, 3), (2, 3), (2, 3)]),
    ("stack-scalars", lambda t, x, y: t.stack([x, y]), [(), ()]),
    ("hstack", lambda t, x, y: t.hstack([x, y]), [(2, 3), (2, 2)]),
    ("hstack-1d", lambda t, x, y: t.hstack((x, y)), [(3,), (2,)]),
    ("hstack-0d", lambda t, x, y: t.hstack([x, y]), [(), ()]),
    ("vstack", lambda t, x, y: t.vstack([x, y]), [(2, 3), (1, 3)]),
    ("vstack-1d", lambda t, x, y: t.vstack((x, y)), [(3,), (3,)]),
    # splitting
    ("split-int", lambda t, x: x.split(2), [(5, 3)]),
    ("split-int-dim", lambda t, x: t.split(x, 2, dim=1), [(2, 5)]),
    ("split-list", lambda t, x: x.split([1, 3, 1], 1), [(2, 5)]),
    ("split-big", lambda t, x: x.split(10), [(5, 3)]),
    ("chunk", lambda t, x: x.chunk(2), [(4, 3)]),
    ("chunk-uneven", lambda t, x: x.chunk(3, 1), [(2, 5)]),
    ("chunk-fewer", lambda t, x: t.chunk(x, 4, 0), [(6, 2)]),
    ("chunk-more-than-size", lambda t, x: x.chunk(5), [(3, 2)]),
    ("unbind", lambda t, x: x.unbind(), [(3, 2)]),
    ("unbind-dim", lambda t, x: t.unbind(x, 1), [(3, 2)]),
    ("iter", lambda t, x: list(x), [(3, 2)]),
    ("narrow", lambda t, x: x.narrow(1, 1, 2), [(3, 4)]),
    ("narrow-neg-start", lambda t, x: t.narrow(x, 0, -2, 2), [(3, 4)]),
    ("narrow-empty", lambda t, x: x.narrow(0, 1, 0), [(3, 4)]),
    ("select", lambda t, x: x.select(1, 2), [(3, 4)]),
    ("select-neg", lambda t, x: t.select(x, -1, -1), [(3, 4)]),
    ("select-1d", lambda t, x: x.select(0, 1), [(3,)]),
    # windows and tiling
    ("unfold-overlap", lambda t, x: x.unfold(1, 3, 1), [(2, 6)]),
    ("unfold-step2", lambda t, x: x.unfold(0, 3, 2), [(7, 2)]),
    ("unfold-gap", lambda t, x: x.unfold(1, 2, 3), [(2, 8)]),
    ("unfold-one-window", lambda t, x: x.unfold(0, 4, 1), [(4,)]),
    ("unfold-scalar", lambda t, x: x.unfold(0, 1, 1), [()]),
    ("unfold-twice", lambda t, x: x.unfold(0, 2, 1).unfold(1, 2, 2), [(4, 5)]),
    ("repeat", lambda t, x: x.repeat(2, 3), [(2, 3)]),
    ("repeat-lead", lambda t, x: x.repeat(2, 1, 2), [(2, 3)]),
    ("repeat-1d", lambda t, x: x.repeat(3), [(2,)]),
    ("repeat-scalar", lambda t, x: x.repeat(2, 2), [()]),
    ("repeat-ones", lambda t, x: x.repeat(1, 1), [(2, 3)]),
    ("repeat-zero", lambda t, x: x.repeat(0, 2), [(2, 3)]),
    ("flip", lambda t, x: x.flip(0), [(3, 4)]),
    ("flip-multi", lambda t, x: t.flip(x, (0, 2)), [(2, 3, 4)]),
    ("flip-neg", lambda t, x: x.flip(-1), [(2, 3)]),
    ("flip-list", lambda t, x: x.flip([0, 1]), [(2, 3)]),
    ("fliplr", lambda t, x: t.fliplr(x), [(2, 3)]),
    ("flipud", lambda t, x: t.flipud(x), [(2, 3)]),
    ("roll-flat", lambda t, x: x.roll(2), [(3, 4)]),
    ("roll-flat-neg", lambda t, x: t.roll(x, -5), [(3, 4)]),
    ("roll-dim", lambda t, x: x.roll(1, 1), [(3, 4)]),
    ("roll-dims", lambda t, x: x.roll((1, -2), (0, 1)), [(3, 4)]),
    ("roll-big-shift", lambda t, x: x.roll(7, 0), [(3, 4)]),
    ("roll-noncontig", lambda t, x: x.t().roll(1, 0), [(3, 4)]),
    # copies
    ("contiguous", lambda t, x: x.contiguous(), [(3, 4)]),
    ("contiguous-t", lambda t, x: x.t().contiguous(), [(3, 4)]),
    ("clone", lambda t, x: x.clone(), [(3, 4)]),
    ("clone-fn", lambda t, x: t.clone(x.t()), [(3, 4)]),
    ("clone-scalar", lambda t, x: x.clone() * 2, [()]),
    # chains: views of views, gradients through several view ops
    ("chain", lambda t, x: x.t().unsqueeze(0).expand(2, 4, 3).reshape(8, 3)[1:, ::2],
     [(3, 4)]),
    ("chain-square", lambda t, x: (x.reshape(2, 6).t() ** 2).flatten().split(5), [(3, 4)]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_shape_op_matches_torch(name, fn, shapes, dtype):
    check_op(fn, shapes, dtype=dtype)


# Fortran-ordered inputs: strides differ, so reshape must copy where view would raise
_F_CASES = [c for c in CASES if len(c[2][0]) >= 2 and not c[0].startswith("view")]


@pytest.mark.parametrize("name,fn,shapes", _F_CASES, ids=[c[0] for c in _F_CASES])
def test_shape_op_on_fortran_input_matches_torch(name, fn, shapes):
    check_op(fn, shapes, non_contiguous=True, second_order=False)


def test_view_of_fortran_input_raises_like_torch():
    check_raises(lambda t, x: x.view(12), [np.asfortranarray(np.zeros((3, 4)))],
                 match="view size is not compatible with input tensor's size and stride")


# -- casts -----------------------------------------------------------------------------------

CASTS = ["float", "double", "half", "long", "int", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", CASTS)
def test_cast_method_matches_torch(method, dtype):
    check_op(lambda t, x: getattr(x * 3, method)(), [(3, 4)], dtype=dtype,
             atol=1e-2 if method == "half" else None, rtol=1e-2 if method == "half" else None)


@pytest.mark.parametrize("target", ["float32", "float64", "int64", "int32", "bool", "float16"])
def test_to_dtype_matches_torch(target):
    check_op(lambda t, x: (x * 3).to(getattr(t, target)), [(2, 3)],
             atol=1e-2 if target == "float16" else None,
             rtol=1e-2 if target == "float16" else None)


def test_gradient_flows_through_float32_to_float64_cast():
    check_op(lambda t, x: (x.double() ** 2) * t.ones(3, dtype=t.float64), [(2, 3)],
             dtype="float32")


def test_gradient_flows_through_float64_to_float32_cast():
    check_op(lambda t, x: x.to(t.float32).exp(), [(2, 3)], dtype="float64", atol=1e-5,
             rtol=1e-5)


def test_cast_to_same_dtype_returns_self():
    import numtorch
    import torch

    for lib in (numtorch, torch):
        x = lib.ones(2, 3)
        assert x.float() is x
        assert x.to(lib.float32) is x
        assert x.to(lib.float32, copy=True) is not x


# -- dtype promotion and integer inputs --------------------------------------------------------


@pytest.mark.parametrize("other", ["float64", "int64", "int32", "bool", "float16"])
def test_cat_promotes_dtypes_like_torch(other):
    a = np.arange(6, dtype="float32").reshape(2, 3)
    b = (np.arange(3).reshape(1, 3) % 2).astype(other)
    check_op(lambda t, x, y: t.cat([x, y]), [a, b])
    check_op(lambda t, x, y: t.cat([y, x], 0), [a, b])


def test_cat_int_and_bool_promotes_to_int():
    a = np.arange(6).reshape(2, 3)
    b = np.array([[True, False, True]])
    check_op(lambda t, x, y: t.cat([y, x]), [a, b], grad=False)


def test_cat_zero_dim_value_promotes_like_dimensioned():
    a = np.arange(3, dtype="float32")
    b = np.arange(2, dtype="float64")
    check_op(lambda t, x, y: t.cat([x, y]), [a, b])


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_skips_legacy_empty_1d_tensors(dim):
    check_op(lambda t, x, e, y: t.cat([x, e, y], dim), [(2, 3), (0,), (2, 3)])
    check_op(lambda t, e, x: t.cat([e, x], dim), [(0,), (2, 3)])


def test_cat_of_only_empty_1d_tensors():
    check_op(lambda t, x, y: t.cat([x, y]), [(0,), (0,)])


@pytest.mark.parametrize("fn", [
    lambda t, x: x.reshape(2, 3).t(),
    lambda t, x: x.flip(0),
    lambda t, x: x.roll(1),
    lambda t, x: x.repeat(2),
    lambda t, x: x.unfold(0, 2, 2),
    lambda t, x: t.stack([x, x]),
    lambda t, x: x.expand(2, 6),
    lambda t, x: x[::2].chunk(2),
], ids=["t", "flip", "roll", "repeat", "unfold", "stack", "expand", "chunk"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
def test_shape_ops_keep_integer_and_bool_dtypes(fn, dtype):
    a = (np.arange(6) % 3).astype(dtype)
    check_op(fn, [a], grad=False)


@pytest.mark.parametrize("fn", [
    lambda t, x: x.view(t.int64),
    lambda t, x: x.view(t.int32),
    lambda t, x: x.view(t.uint8),
    lambda t, x: x.float().view(t.int16),
    lambda t, x: x.float().view(t.float64),
    lambda t, x: x[:, 1:3].view(t.int32),
    lambda t, x: x.t()[:1].t().view(t.int32),
], ids=["same-size", "smaller", "bytes", "float-to-short", "float-to-double", "slice",
        "size1-last"])
def test_view_dtype_reinterprets_bytes_like_torch(fn):
    check_op(fn, [np.arange(8, dtype="float64").reshape(2, 4) - 3.5], grad=False)


def test_outputs_of_ops_on_no_grad_input_do_not_require_grad():
    check_op(lambda t, x: x.t().reshape(-1).flip(0), [(2, 3)], grad=False)


# -- errors ------------------------------------------------------------------------------------

A = np.zeros((2, 3))
ERRORS = [
    ("view-noncontig", lambda t, x: x.t().view(6), [A],
     "view size is not compatible with input tensor's size and stride"),
    ("view-bad-size", lambda t, x: x.view(4), [A], "shape '[4]' is invalid for input of size 6"),
    ("reshape-bad-size", lambda t, x: x.reshape(4), [A],
     "shape '[4]' is invalid for input of size 6"),
    ("reshape-two-neg1", lambda t, x: x.reshape(-1, -1), [A],
     "only one dimension can be inferred"),
    ("reshape-neg1-no-fit", lambda t, x: x.reshape(-1, 4), [A],
     "shape '[-1, 4]' is invalid for input of size 6"),
    ("reshape-neg-size", lambda t, x: x.reshape(-2, 3), [A], "invalid shape dimension -2"),
    ("expand-mismatch", lambda t, x: x.expand(2, 4), [A],
     "must match the existing size (3) at non-singleton dimension 1"),
    ("expand-too-few", lambda t, x: x.expand(3), [A], "must be greater or equal"),
    ("expand-neg1-lead", lambda t, x: x.expand(-1, 2, 3), [A], "leading, non-existing"),
    ("permute-wrong-count", lambda t, x: x.permute(0), [A], "number of dimensions"),
    ("permute-dup", lambda t, x: x.permute(0, 0), [A], "duplicate dims"),
    ("permute-out-of-range", lambda t, x: x.permute(0, 2), [A], "Dimension out of range"),
    ("cat-mismatch", lambda t, x: t.cat([x, t.zeros(2, 2)]), [A],
     "Sizes of tensors must match except in dimension 0"),
    ("cat-ndim-mismatch", lambda t, x: t.cat([x, t.zeros(3)]), [A],
     "Tensors must have same number of dimensions"),
    ("cat-empty-list", lambda t: t.cat([]), [], "expected a non-empty list of Tensors"),
    ("cat-zero-dim", lambda t: t.cat([t.tensor(1.0), t.tensor(2.0)]), [],
     "zero-dimensional tensor (at position 0) cannot be concatenated"),
    ("cat-dim-out-of-range", lambda t, x: t.cat([x, x], 2), [A], "Dimension out of range"),
    ("cat-tensor-arg", lambda t, x: t.cat(x), [A], None),
    ("stack-shapes", lambda t, x: t.stack([x, t.zeros(3, 2)]), [A],
     "stack expects each tensor to be equal size"),
    ("stack-empty", lambda t: t.stack([]), [], None),
    ("stack-dim-out-of-range", lambda t, x: t.stack([x, x], 3), [A], "Dimension out of range"),
    ("transpose-out-of-range", lambda t, x: x.transpose(0, 2), [A],
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("squeeze-out-of-range", lambda t, x: x.squeeze(3), [A], "Dimension out of range"),
    ("unsqueeze-out-of-range", lambda t, x: x.unsqueeze(4), [A],
     "Dimension out of range (expected to be in range of [-3, 2], but got 4)"),
    ("flatten-out-of-range", lambda t, x: x.flatten(0, 5), [A], "Dimension out of range"),
    ("flatten-order", lambda t, x: x.flatten(1, 0), [A], "start_dim cannot come after end_dim"),
    ("select-out-of-range", lambda t, x: x.select(1, 3), [A], "out of range"),
    ("select-dim-out-of-range", lambda t, x: x.select(2, 0), [A], "Dimension out of range"),
    ("narrow-out-of-range", lambda t, x: x.narrow(1, 2, 2), [A], "exceeds dimension size"),
    ("narrow-dim-out-of-range", lambda t, x: x.narrow(2, 0, 1), [A], "Dimension out of range"),
    ("unfold-too-big", lambda t, x: x.unfold(1, 4, 1), [A],
     "maximum size for tensor at dimension 1 is 3 but size is 4"),
    ("unfold-bad-step", lambda t, x: x.unfold(1, 2, 0), [A], "step is 0 but must be > 0"),
    ("split-bad-sum", lambda t, x: x.split([1, 1], 1), [A], "split_with_sizes expects"),
    ("chunk-zero", lambda t, x: x.chunk(0), [A], "chunk expects `chunks` to be greater than 0"),
    ("repeat-too-few", lambda t, x: x.repeat(2), [A],
     "Number of dimensions of repeat dims can not be smaller"),
    ("flip-out-of-range", lambda t, x: x.flip(2), [A], "Dimension out of range"),
    ("roll-mismatch", lambda t, x: x.roll((1, 2), 0), [A], "shifts and dimensions must align"),
    ("t-3d", lambda t: t.zeros(2, 2, 2).t(), [], "t() expects a tensor with <= 2 dimensions"),
    ("unflatten-bad", lambda t, x: x.unflatten(1, (2, 2)), [A],
     "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3)"),
    ("unflatten-empty", lambda t, x: x.unflatten(1, ()), [A], "sizes must be non-empty"),
    ("reshape-ambiguous", lambda t: t.zeros(0).reshape(0, -1), [],
     "cannot reshape tensor of 0 elements into shape [0, -1]"),
    ("reshape-zero-known", lambda t, x: x.reshape(0, -1), [A],
     "shape '[0, -1]' is invalid for input of size 6"),
    ("movedim-types", lambda t, x: x.movedim((0, 1), 0), [A], None),
    ("movedim-lengths", lambda t, x: x.movedim((0, 1), (0,)), [A], "movedim: Invalid source"),
    ("view-dtype-size", lambda t, x: x.float().view(t.float64), [A],
     "self.size(-1) must be divisible by 2 to view Float as Double"),
    ("view-dtype-stride", lambda t, x: x.t().float().view(t.float16), [A],
     "self.stride(-1) must be 1 to view Float as Half"),
    ("view-dtype-0d", lambda t: t.zeros(()).view(t.int16), [],
     "self.dim() cannot be 0 to view Float as Short"),
    ("view-dtype-offset", lambda t: t.zeros(2, 5)[:, 1:].view(t.float64), [],
     "self.storage_offset() must be divisible by 2"),
]


@pytest.mark.parametrize("name,fn,arrays,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_shape_op_errors_match_torch(name, fn, arrays, match):
    check_raises(fn, arrays, match=match)
