"""Gap (s36): in-place ops and ``out=`` whose written-to tensor shares memory with an input.

Torch refuses a write when the output and an input are dense blocks of memory that overlap
without being the same elements in the same order ("some elements of the input tensor and the
written-to tensor refer to a single memory location"), and a write into a tensor whose own
elements repeat (an expanded tensor). Inputs with gaps (a column, every other element) are not
judged and go through. Each case runs on both libraries; outcomes (values, or exception class
and message) must agree.
"""

import numpy as np
import pytest

from tests.oracle import same


def _base(T, shape=(3, 3)):
    n = int(np.prod(shape))
    return T.arange(n, dtype=T.float32).reshape(shape) / 7 + 1


def _tensor_index(T, *v):
    return T.tensor(list(v))


CASES = {
    # in-place binary ops
    "add_t": lambda T: _base(T).add_(_base(T).t()),  # separate memory: fine
    "iadd_self_t": lambda T: (lambda h: h.__iadd__(h.t()))(_base(T)),
    "add_self": lambda T: (lambda h: h.add_(h))(_base(T)),
    "mul_self_t": lambda T: (lambda h: h.mul_(h.t()))(_base(T)),
    "sub_self_t": lambda T: (lambda h: h.sub_(h.t(), alpha=2))(_base(T)),
    "div_self_t": lambda T: (lambda h: h.div_(h.t()))(_base(T)),
    "pow_self_t": lambda T: (lambda h: h.pow_(h.t()))(_base(T)),
    "atan2_self_t": lambda T: (lambda h: h.atan2_(h.t()))(_base(T)),
    "copysign_self_t": lambda T: (lambda h: h.copysign_(h.t()))(_base(T)),
    "t_add_self": lambda T: (lambda h: h.t().add_(h))(_base(T)),
    "shifted_rows": lambda T: (lambda h: h[1:].add_(h[:-1]))(_base(T)),
    "shifted_1d": lambda T: (lambda x: x[1:].add_(x[:-1]))(_base(T, (6,))),
    "shifted_1d_back": lambda T: (lambda x: x[0:3].add_(x[1:4]))(_base(T, (6,))),
    "disjoint_halves": lambda T: (lambda x: x[:3].add_(x[3:]))(_base(T, (6,))),
    "interleaved": lambda T: (lambda x: x[::2].add_(x[1::2]))(_base(T, (6,))),
    "column_row": lambda T: (lambda h: h[:, 0].add_(h[0]))(_base(T)),
    "broadcast_row": lambda T: (lambda h: h.add_(h[0]))(_base(T)),
    "broadcast_last_row": lambda T: (lambda h: h.add_(h[2:3]))(_base(T)),
    # a column has gaps: torch does not judge it, and the result is then the order its kernel
    # happens to read and write in; only "no error" is compared
    "broadcast_column": lambda T: (lambda h: (h.add_(h[:, 0:1]), None)[1])(_base(T)),
    "same_geometry_view": lambda T: (lambda h: h.add_(h.view(9).view(3, 3)))(_base(T)),
    "same_elements_reindexed": lambda T: (lambda h: h[0].add_(h[0:1][0]))(_base(T)),
    "size1_dim_other_stride": lambda T: (lambda w: w.add_(
        w.as_strided((2, 1, 3), (3, 7, 1))))(_base(T, (2, 1, 3))),
    "reinterpreted_dtype": lambda T: (lambda h: h.view(T.int32).add_(h.view(T.int32).t()))(
        _base(T)),
    "int_operand": lambda T: (lambda h: h.add_(h.t().int()))(_base(T)),
    "scalar_tensor_operand": lambda T: (lambda h: h.add_(h[0, 0]))(_base(T)),
    # ternary and keyword tensor operands
    "addcmul_self_t": lambda T: (lambda z: z.addcmul_(z.t(), z))(_base(T)),
    "addcdiv_self_t": lambda T: (lambda z: z.addcdiv_(z, z.t()))(_base(T)),
    "lerp_end": lambda T: (lambda z: z.lerp_(z.t(), 0.5))(_base(T)),
    "lerp_weight": lambda T: (lambda z: z.lerp_(_base(T) * 2, z.t()))(_base(T)),
    "clamp_min_tensor": lambda T: (lambda z: z.clamp_(min=z.t()))(_base(T)),
    "fmod_self_t": lambda T: (lambda z: z.fmod_(z.t()))(_base(T)),
    "eq_self_t": lambda T: (lambda z: z.eq_(z.t()))(_base(T)),
    "clamp_both_t": lambda T: (lambda z: z.clamp_(z.t(), z.t() + 1))(_base(T)),
    "addr_rows": lambda T: (lambda z: z.addr_(z[0], z[1]))(_base(T)),
    "index_add_rows": lambda T: (lambda a: a.index_add_(0, T.tensor([0, 1]), a[1:]))(_base(T)),
    "index_copy_rows": lambda T: (lambda a: a.index_copy_(0, T.tensor([0, 1]), a[1:]))(
        _base(T)),
    "scatter_row": lambda T: (lambda a: a.scatter_(0, T.tensor([[0, 1, 2]]), a[1:2]))(
        _base(T)),
    "scatter_add_row": lambda T: (lambda a: a.scatter_add_(0, T.tensor([[0, 1, 2]]), a[1:2]))(
        _base(T)),
    "put_row": lambda T: (lambda a: a.put_(T.tensor([0, 1]), a[1, :2]))(_base(T)),
    "gcd_int_t": lambda T: (lambda i: i.gcd_(i.t()))(_base(T).mul(10).long()),
    "ldexp_self_t": lambda T: (lambda z: (z.ldexp_(z.t()), None)[1])(_base(T)),  # unchecked
    "mul_zero_dim_self": lambda T: (lambda z: z[0, 0].mul_(z[0, 0]))(_base(T)),
    "add_zero_dim_vs_1d": lambda T: (lambda z: z[0, 0].add_(z[0, :1]))(_base(T)),
    # copies
    "copy_self_t": lambda T: (lambda h: h.copy_(h.t()))(_base(T)),
    "copy_self": lambda T: (lambda h: h.copy_(h))(_base(T)),
    "copy_flip": lambda T: (lambda h: h.copy_(h.flip(0)))(_base(T)),
    "copy_shifted": lambda T: (lambda h: h[1:].copy_(h[:2]))(_base(T)),
    "copy_broadcast_row": lambda T: (lambda h: h.copy_(h[0]))(_base(T)),
    "setitem_shifted": lambda T: (lambda h: h.__setitem__(slice(0, 2), h[1:]))(_base(T)),
    # out=
    "out_add_t": lambda T: (lambda a: T.add(a, _base(T), out=a.t()))(_base(T)),
    "out_add_same": lambda T: (lambda a: T.add(a, _base(T), out=a))(_base(T)),
    "out_add_shifted": lambda T: (lambda a: T.add(a[:2], a[:2], out=a[1:]))(_base(T)),
    "out_mul_other_t": lambda T: (lambda a: T.mul(_base(T), a, out=a.t()))(_base(T)),
    "out_exp_t": lambda T: (lambda a: T.exp(a, out=a.t()))(_base(T)),
    "out_neg_same": lambda T: (lambda a: T.neg(a, out=a))(_base(T)),
    "out_neg_t": lambda T: (lambda a: T.neg(a, out=a.t()))(_base(T)),
    "out_sin_shifted": lambda T: (lambda x: T.sin(x[:3], out=x[1:4]))(_base(T, (6,))),
    "out_maximum_t": lambda T: (lambda z: T.maximum(z, z.t(), out=z))(_base(T)),
    "out_where_t": lambda T: (lambda z: T.where(z > 2, z, z.t(), out=z))(_base(T)),
    # matrix products and reductions do not check (their result is then kernel-dependent)
    "out_mm_same": lambda T: (lambda z: (T.mm(z, z, out=z), None)[1])(_base(T)),
    "out_sum_row": lambda T: (lambda z: (T.sum(z, 0, out=z[0]), None)[1])(_base(T)),
    "addmm_self_t": lambda T: (lambda z: (z.addmm_(z.t(), z), None)[1])(_base(T)),
    "masked_scatter_self_t": lambda T: (lambda z: z.masked_scatter_(z > 1.5, z.t()))(_base(T)),
    "out_lerp_weight_t": lambda T: (lambda z: T.lerp(_base(T), _base(T) * 2, z.t(), out=z))(
        _base(T)),
    "out_addcmul_t": lambda T: (lambda z: T.addcmul(_base(T), z.t(), _base(T), out=z))(
        _base(T)),
    "out_div_floor_t": lambda T: (lambda z: T.div(z.t(), 2.0, rounding_mode="floor", out=z))(
        _base(T)),
    "out_lt_t": lambda T: (lambda z: T.lt(z, z.t(), out=z))(_base(T)),
    "out_pow_scalar_t": lambda T: (lambda z: T.pow(z.t(), 2, out=z))(_base(T)),
    "out_copysign_shifted": lambda T: (lambda x: T.copysign(x[:3], -1.0, out=x[2:5]))(
        _base(T, (6,))),
    "out_sigmoid_t": lambda T: (lambda z: T.sigmoid(z, out=z.t()))(_base(T)),
    "out_abs_t": lambda T: (lambda z: T.abs(z, out=z.t()))(_base(T)),
    "out_add_number_t": lambda T: (lambda z: T.add(z, 1, out=z.t()))(_base(T)),
    "out_add_other_t": lambda T: (lambda z: T.add(T.ones(3, 3), z, out=z.t()))(_base(T)),
    "out_stack_rows": lambda T: (lambda z: T.stack([z[0], z[1]], out=z[1:]))(_base(T)),
    "out_cat_disjoint": lambda T: (lambda z: T.cat([z[:1], z[:1]], out=z[1:]))(_base(T)),
    "out_index_select_rows": lambda T: (lambda z: T.index_select(z, 0, T.tensor([0, 1]),
                                                                 out=z[1:]))(_base(T)),
    "out_cumsum_t": lambda T: (lambda z: T.cumsum(z, 0, out=z.t()))(_base(T)),
    "out_cat_t": lambda T: (lambda z: T.cat([z.t()], out=z))(_base(T)),
    "out_cat_shifted": lambda T: (lambda z: T.cat([z[:1], z[1:2]], out=z[1:]))(_base(T)),
    "out_clamp_t": lambda T: (lambda z: T.clamp(z.t(), 0, 5, out=z))(_base(T)),
    "out_clamp_min_tensor_t": lambda T: (lambda z: T.clamp_min(z, z.t(), out=z))(_base(T)),
    "out_bitwise_and_t": lambda T: (lambda i: T.bitwise_and(i, i.t(), out=i))(
        _base(T).mul(10).long()),
    "out_logical_and_t": lambda T: (lambda b: T.logical_and(b, b.t(), out=b))(_base(T) > 2),
    "out_logaddexp_t": lambda T: (lambda z: T.logaddexp(z, z.t(), out=z))(_base(T)),
    "out_xlogy_t": lambda T: (lambda z: T.xlogy(z, z.t(), out=z))(_base(T)),
    "out_gather_t": lambda T: (lambda z: T.gather(z, 0, T.zeros(3, 3, dtype=T.long),
                                                  out=z.t()))(_base(T)),
    "out_logit_t": lambda T: (lambda z: T.logit(z / 10, out=z.t()))(_base(T)),
    # self-overlapping written-to tensors
    "expanded_mul_": lambda T: _base(T, (3, 1)).expand(3, 3).mul_(2),
    "expanded_add_": lambda T: _base(T, (1, 3)).expand(3, 3).add_(1),
    "expanded_copy_": lambda T: _base(T, (3, 1)).expand(3, 3).copy_(_base(T)),
    "expanded_relu_": lambda T: _base(T, (3, 1)).expand(3, 3).relu_(),
    "expanded_fill_": lambda T: _base(T, (3, 1)).expand(3, 3).fill_(1),
    "out_exp_expanded": lambda T: T.exp(_base(T), out=_base(T, (3, 1)).expand(3, 3)),
    "expanded_operand": lambda T: _base(T).add_(_base(T, (1, 3)).expand(3, 3)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_overlap_outcome(name):
    same(CASES[name])


@pytest.mark.parametrize("name", ["iadd_self_t", "shifted_rows", "copy_self_t"])
def test_refused_write_leaves_memory_alone(name):
    # torch checks before writing: the tensor keeps its values after the refusal
    import numtorch

    h = _base(numtorch)
    keep = h.clone()
    fn = {"iadd_self_t": lambda: h.__iadd__(h.t()), "shifted_rows": lambda: h[1:].add_(h[:-1]),
          "copy_self_t": lambda: h.copy_(h.t())}[name]
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        fn()
    assert numtorch.equal(h, keep)


def test_refusal_with_autograd():
    same(lambda T: (lambda h: h.add_(h.t()))(_base(T).requires_grad_(True) * 1))
