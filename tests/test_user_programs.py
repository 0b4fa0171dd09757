"""Small user programs run on numtorch and on torch, compared by :func:`tests.oracle.same`.

Each entry is a short function of the library module written as a PyTorch user writes it:
tensor creation, indexing, views and in-place writes, broadcasting and promotion with Python
scalars, reductions, sorting and selection with ties, einsum, complex and reduced-precision
dtypes, NaN/inf handling and the errors of common mistakes. Values, dtypes, shapes, exception
classes and messages must agree.
"""

import io

import numpy as np
import pytest

from tests.oracle import same

P = {}


# float results may differ in the last bit (NumPy's and torch's vectorised exp, sigmoid, ...)
DEFAULT = {"rtol": 1e-6, "atol": 1e-7}


def program(fn=None, _table=None, **opts):
    """Register ``fn`` (a function of the library) in ``_table`` (default: this file's),
    with options for :func:`tests.oracle.same`."""
    table = P if _table is None else _table

    def add(f):
        table[f.__name__] = (f, {**DEFAULT, **opts})
        return f
    return add(fn) if fn is not None else add


def table():
    """A program table for another file and its registering decorator:
    ``P, program = table()``."""
    own = {}
    return own, lambda fn=None, **opts: program(fn, _table=own, **opts)


def _err(f):
    """``f()``, or the exception it raised (the error is what gets compared)."""
    try:
        return f()
    except Exception as e:  # noqa: BLE001
        return e


def outcomes(*fns):
    """What each of ``fns`` returns or raises, in order."""
    return [_err(f) for f in fns]


# -- creation ---------------------------------------------------------------------------------
@program
def creation_dtypes(t):
    return [t.tensor([1, 2]), t.tensor([1., 2]), t.tensor([True, False]), t.tensor(3),
            t.tensor(2.5), t.tensor([1, 2.5]), t.tensor([[1], [2]], dtype=t.float64),
            t.tensor([1 + 2j]), t.tensor([]), t.tensor([[]]).shape]


@program
def creation_factories(t):
    return [t.zeros(2, 3), t.ones((2,), dtype=t.int32), t.full((2, 2), 7),
            t.full((2,), 1.5), t.full((1,), True), t.empty(0, 3).shape, t.eye(2, 3),
            t.arange(5), t.arange(0, 1, 0.25), t.arange(1, 10, 3, dtype=t.float32),
            t.linspace(0, 1, 5), t.logspace(0, 2, 3), t.zeros_like(t.ones(2, dtype=t.int8)),
            t.full_like(t.ones(3), 2, dtype=t.int64), t.ones_like(t.tensor([1, 2]))]


@program
def creation_from_numpy_shares(t):
    a = np.arange(6.0).reshape(2, 3)
    x = t.from_numpy(a)
    a[0, 0] = 100
    y = t.as_tensor(a)
    z = t.tensor(a)
    a[1, 1] = -1
    return [x, y, z, x.dtype, t.from_numpy(np.array([1, 2], dtype=np.int32)).dtype]


@program
def creation_arange_float_steps(t):
    return [t.arange(0, 1, 0.1).shape, t.arange(-1, 1, 0.3), t.arange(10, 0, -3),
            t.arange(0.5, 3), t.linspace(-1, 1, 1), t.linspace(0, 10, steps=4, dtype=t.int64)]


@program
def creation_errors(t):
    out = []
    for f in (lambda: t.tensor([[1, 2], [3]]), lambda: t.zeros(-1),
              lambda: t.arange(0, 10, 0), lambda: t.tensor([1, "a"]),
              lambda: t.ones(2, 3).view(4), lambda: t.linspace(0, 1, -1)):
        try:
            f()
            out.append("no error")
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            out.append(e)
    return out


# -- indexing ---------------------------------------------------------------------------------
@program
def index_basic(t):
    x = t.arange(24).reshape(2, 3, 4)
    return [x[0], x[:, 1], x[..., -1], x[1, ::2, 1:3], x[None, 0, :, None].shape,
            x[:, [0, 2]], x[x > 20], x[[0, 1], [1, 2]], x[[1, 0], :, [3, 0]],
            x[:, t.tensor([True, False, True])], x[0, 0, 0].item(), x[-1, -1, -1]]


@program
def index_advanced_mixed(t):
    x = t.arange(60).reshape(3, 4, 5)
    i = t.tensor([[0, 1], [2, 1]])
    return [x[i].shape, x[:, i].shape, x[:, :, i].shape, x[i, :, i].shape, x[:, i, i].shape,
            x[0, :, [1, 2]], x[[0], :, [1, 2]].shape, x[..., None, [0]].shape]


@program
def index_setitem(t):
    x = t.zeros(3, 4)
    x[0] = 1
    x[:, 1] = t.tensor([5., 6, 7])
    x[x > 5] = -1
    x[[0, 2], [3, 3]] = t.tensor([8., 9])
    x[1, 1:3] += 10
    y = t.arange(5)
    y[y % 2 == 0] *= 10
    return [x, y]


@program
def index_put_accumulate(t):
    x = t.zeros(5)
    x.index_put_((t.tensor([0, 0, 2]),), t.tensor([1., 2, 3]), accumulate=True)
    y = t.zeros(5)
    y[t.tensor([1, 1, 3])] += 1
    z = t.zeros(3, 3).index_add_(0, t.tensor([0, 2, 0]), t.ones(3, 3))
    return [x, y, z]


@program
def index_errors(t):
    x = t.arange(6).reshape(2, 3)
    out = []
    for f in (lambda: x[2], lambda: x[:, 3], lambda: x[t.tensor([0.0])],
              lambda: x[t.tensor([True, False, True])], lambda: x[0, 0, 0],
              lambda: x.index_select(0, t.tensor([2])), lambda: x[t.tensor([5])],
              lambda: x.gather(1, t.tensor([[0, 1]], dtype=t.int32))):
        try:
            f()
            out.append("no error")
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


@program
def index_gather_scatter(t):
    x = t.arange(12.).reshape(3, 4)
    idx = t.tensor([[0, 3], [1, 1], [2, 0]])
    src = t.ones(3, 2)
    return [x.gather(1, idx), t.zeros(3, 4).scatter(1, idx, src),
            t.zeros(3, 4).scatter_(1, idx, 5.0), t.zeros(3, 4).scatter_add(1, idx, src),
            t.zeros(3, 4).scatter_reduce(1, idx, src * 2, reduce="amax", include_self=False),
            t.take(x, t.tensor([0, 5, 11])), x.masked_fill(x > 5, -1.),
            x.masked_select(x < 3), t.where(x > 5, x, t.zeros(()))]


@program
def index_nonzero_where(t):
    x = t.tensor([[0, 1, 0], [2, 0, 3]])
    return [x.nonzero(), t.nonzero(x, as_tuple=True), t.where(x), t.argwhere(x),
            t.count_nonzero(x, dim=0), x.nonzero().dtype]


# -- views and in-place ------------------------------------------------------------------------
@program
def views_share_storage(t):
    x = t.arange(12.)
    v = x.view(3, 4)
    v[0, 0] = 100
    tr = v.t()
    tr[1, 0] = -5
    s = x[2:5]
    s.mul_(2)
    u = v.unsqueeze(0)
    u.squeeze_(0)
    return [x, v.is_contiguous(), tr.is_contiguous(), tr.stride(), s.storage_offset(),
            v.data_ptr() == x.data_ptr(), u.shape]


@program
def views_noncontiguous_view_error(t):
    x = t.arange(6.).reshape(2, 3).t()
    out = []
    try:
        x.view(6)
    except Exception as e:  # noqa: BLE001
        out.append(e)
    out += [x.reshape(6), x.contiguous().view(6), x.flatten(), x.view(3, 2).shape]
    return out


@program
def views_expand_and_inplace(t):
    b = t.ones(3, 1)
    e = b.expand(3, 4)
    out = [e.stride(), e.shape]
    try:
        e.add_(1)
    except Exception as exc:  # noqa: BLE001
        out.append(exc)
    c = t.zeros(2, 3)
    c += t.tensor([1., 2, 3])
    out.append(c)
    try:
        d = t.zeros(3)
        d += t.ones(2, 3)
    except Exception as exc:  # noqa: BLE001
        out.append(exc)
    return out


@program
def inplace_dtype_rules(t):
    x = t.tensor([1, 2, 3])
    out = []
    try:
        x += 1.5
    except Exception as e:  # noqa: BLE001
        out.append(e)
    try:
        x.div_(2)
    except Exception as e:  # noqa: BLE001
        out.append(e)
    y = t.tensor([1., 2.])
    y += t.tensor([1, 1])
    y.mul_(2)
    z = t.tensor([1, 2], dtype=t.int8)
    z += 200
    out += [x, y, z]
    return out


@program
def inplace_methods(t):
    x = t.arange(6.).reshape(2, 3)
    x.clamp_(1, 4).sub_(1).pow_(2)
    y = t.ones(2, 3)
    y.copy_(t.tensor([1., 2, 3]))
    y.fill_(t.tensor(7.)) if False else y.zero_().add_(2, alpha=3)
    z = t.zeros(4)
    z[1::2] = t.tensor([1., 2])
    w = t.tensor([3., -1, 2])
    w.abs_().neg_().exp_()
    return [x, y, z, w, x.add(1, alpha=2) if False else x.add(t.ones(3), alpha=2)]


@program
def views_transpose_permute(t):
    x = t.arange(24).reshape(2, 3, 4)
    return [x.permute(2, 0, 1).shape, x.transpose(0, 2).stride(), x.mT.shape,
            x.movedim(0, -1).shape, x.unflatten(2, (2, 2)).shape, x.flatten(1).shape,
            x.narrow(2, 1, 2), x.unbind(1)[1], x.chunk(3, dim=2)[-1].shape,
            [c.shape for c in x.split([1, 3], dim=2)], x.swapaxes(0, 1).shape,
            x.select(1, 2), x.T.shape if False else x.permute(2, 1, 0).shape]


# -- broadcasting and type promotion ----------------------------------------------------------
@program
def promotion_python_scalars(t):
    i = t.tensor([1, 2, 3])
    f = t.tensor([1., 2, 3])
    h = t.tensor([1., 2], dtype=t.float16)
    b = t.tensor([True, False])
    u = t.tensor([1, 2], dtype=t.uint8)
    return [i + 1, i + 1.5, i * True, i / 2, i // 2, f + 1, h * 2.5, h + 1, b + 1, b + 1.5,
            b & True, u + 1, u - 2, u * 1.5, i ** 2, i ** -1.0, 2 ** i, 2.0 ** i,
            i + t.tensor(1.5), f + t.tensor(1, dtype=t.float64), h + t.tensor(1.),
            u + t.tensor(300), i.float() + 1j, (i == 1.0)]


@program
def promotion_tensors(t):
    a = t.ones(2, dtype=t.int8)
    b = t.ones(2, dtype=t.uint8)
    c = t.ones(2, dtype=t.int32)
    d = t.ones(2, dtype=t.float16)
    e = t.ones(2, dtype=t.bfloat16)
    return [(a + b).dtype, (a + c).dtype, (c + d).dtype, (d + e).dtype,
            t.result_type(a, 1.0), t.promote_types(t.uint8, t.int8), t.can_cast(t.float, t.int),
            (t.ones(2, dtype=t.bool) + t.ones(2, dtype=t.bool)).dtype,
            (a * t.tensor(1000)).dtype, t.ones(1, dtype=t.complex64).add(t.ones(1, dtype=t.float64))
            .dtype]


@program
def broadcasting(t):
    a = t.arange(3.).reshape(3, 1)
    b = t.arange(4.)
    out = [a + b, (a * b).shape, t.broadcast_shapes((3, 1), (1, 4), (4,)),
           t.broadcast_tensors(a, b)[0].shape, (t.ones(2, 1, 3) - t.ones(4, 1)).shape]
    try:
        t.ones(3) + t.ones(4)
    except Exception as e:  # noqa: BLE001
        out.append(e)
    try:
        t.ones(2, 3).expand(3, 3)
    except Exception as e:  # noqa: BLE001
        out.append(e)
    return out


@program
def integer_division_semantics(t):
    a = t.tensor([-7, 7, -8, 5])
    b = t.tensor([2, -2, 3, 5])
    return [a / b, a // b, a % b, t.fmod(a, b), t.remainder(a, b), t.div(a, b, rounding_mode="floor"),
            t.div(a, b, rounding_mode="trunc"), t.tensor([-7.5, 7.5]) // 2,
            t.tensor([-7.5, 7.5]) % 2, a.float() / 0, t.tensor([5]) % -3]


@program
def integer_division_by_zero(t):
    return outcomes(lambda: t.tensor([1]) // 0, lambda: t.tensor([1]) % 0,
                    lambda: t.tensor([1]) // t.tensor([0]))


# -- reductions -------------------------------------------------------------------------------
@program
def reductions_dim_keepdim(t):
    x = t.arange(24.).reshape(2, 3, 4)
    return [x.sum(), x.sum(1), x.sum((0, 2), keepdim=True), x.mean(-1), x.prod(0),
            x.max(), x.max(1), x.min(2, keepdim=True), x.amax((0, 1)), x.argmax(),
            x.argmin(1, keepdim=True), x.std(1), x.var(2, unbiased=False),
            x.var(1, correction=0), x.std_mean(0), x.var_mean(1, keepdim=True),
            x.norm(), x.norm(dim=1), x.logsumexp(2), x.cumsum(1), x.cumprod(2)[..., -1],
            x.all(), x.any(1), (x > 5).sum(), (x > 5).float().mean(), x.aminmax(dim=0),
            x.median(1), x.nansum(), x.count_nonzero()]


@program
def reductions_int_and_bool_dtypes(t):
    i = t.tensor([[1, 2], [3, 4]], dtype=t.int32)
    b = t.tensor([True, True, False])
    u = t.tensor([200, 100], dtype=t.uint8)
    out = [i.sum().dtype, i.sum(0, dtype=t.float32), i.prod().dtype, b.sum(), b.sum().dtype,
           u.sum(), i.cumsum(0).dtype, b.cumsum(0), i.max().dtype, i.float().mean()]
    try:
        i.mean()
    except Exception as e:  # noqa: BLE001
        out.append(e)
    try:
        i.std()
    except Exception as e:  # noqa: BLE001
        out.append(e)
    return out


@program
def reductions_empty(t):
    e = t.zeros(0, 3)
    out = [e.sum(), e.sum(0), e.prod(0), e.mean(0), e.amax(1), e.logsumexp(0)]
    for f in (lambda: e.max(), lambda: e.argmax(), lambda: e.amax(0), lambda: e.max(0)):
        try:
            out.append(f())
        except Exception as e2:  # noqa: BLE001
            out.append(e2)
    return out


@program
def reductions_dim_errors(t):
    x = t.ones(2, 3)
    return outcomes(lambda: x.sum(2), lambda: x.mean(-3), lambda: x.max(dim=5),
                    lambda: x.sum(dim=(0, 0)), lambda: x.softmax(2), lambda: t.cat([x, x], 2))


# -- sorting and selection with ties -----------------------------------------------------------
@program
def sort_ties(t):
    x = t.tensor([3., 1, 2, 1, 3, 2, 1])
    return [x.sort(), x.sort(descending=True), x.sort(stable=True, descending=True),
            x.argsort(), t.tensor([2, 1, 2, 1]).sort(dim=0), x.msort()]


@program
def sort_nan_inf(t):
    x = t.tensor([float("nan"), 1., float("inf"), -float("inf"), 0., float("nan")])
    return [x.sort(), x.sort(descending=True), x.max(), x.argmax(), x.min(), x.argmin(),
            x.topk(2), x.nan_to_num(), t.nanmean(x), x.nansum(), x.isfinite(), x.unique()]


@program
def topk_ties(t):
    x = t.tensor([1., 3, 3, 2, 3])
    y = t.tensor([[5., 5, 5, 5, 5, 5, 5, 5], [1, 2, 2, 1, 0, 2, 2, 1]])
    return [x.topk(2), x.topk(3, largest=False), t.ones(5).topk(3), y.topk(3), y.topk(4, dim=1,
            largest=False), t.zeros(3, 2).topk(2, dim=0), x.topk(5, sorted=True)]


@program
def topk_ties_long_rows(t):
    # long rows take torch's partial-sort path (k * 64 <= n)
    x = t.arange(200).remainder(7).float().reshape(2, 100)
    return [x.topk(1), x.topk(1, largest=False), t.tensor([2, 2, 2, 0] * 40).topk(2)]


@program
def topk_unsorted_order(t):
    x = t.tensor([[1., 5, 3, 4, 2, 9, 0, 7], [2, 2, 8, 1, 8, 0, 3, 3]])
    return [x.topk(4, sorted=False), x.topk(3, dim=1, largest=False, sorted=False),
            x.t().topk(2, dim=0, sorted=False)]


@program
def selection_dtype_errors(t):
    z = t.tensor([1j, 2])
    b = t.tensor([True, False])
    return outcomes(lambda: z.kthvalue(1), lambda: z.median(), lambda: z.median(0), lambda: z.mode(),
                    lambda: z.max(0), lambda: z.amax(), lambda: z.argmax(), lambda: z.min(),
                    lambda: z.msort(), lambda: z.argsort(), lambda: z.topk(1), lambda: z.cummax(0),
                    lambda: z.aminmax(), lambda: b.median(), lambda: b.median(0), lambda: b.sort(),
                    lambda: b.max(), lambda: b.kthvalue(1), lambda: b.topk(1), lambda: b.argmax(),
                    lambda: z.nanmedian(), lambda: z.min(0), lambda: z.cummin(0), lambda: z.amin(1 - 1),
                    lambda: t.tensor([1., 2], dtype=t.float16).kthvalue(1), lambda: b.amax())


@program
def kthvalue_ties(t):
    x = t.tensor([3., 1, 1, 2, 1, 3])
    m = t.tensor([[1., 2, 2, 2, 3], [0, 0, 0, 0, 0], [4, 4, 1, 1, 2]])
    return [x.kthvalue(2), x.kthvalue(5), x.kthvalue(1), m.kthvalue(3, dim=1), m.kthvalue(2, 0),
            m.median(1), m.median(0), t.tensor([1., 1, 1, 1]).median(0)]


@program
def mode_ties(t):
    x = t.tensor([[2, 1, 2, 1, 3], [4, 4, 4, 0, 0]])
    return [x.mode(), x.mode(0), t.tensor([1., 1, 2, 2]).mode()]


@program
def max_dim_ties(t):
    x = t.tensor([[1., 3, 3], [2, 2, 0]])
    return [x.max(1), x.min(1), x.argmax(1), x.argmin(0), x.max(0), t.tensor([1, 1]).argmax()]


@program
def unique_variants(t):
    x = t.tensor([3, 1, 2, 1, 3, 3])
    return [x.unique(), x.unique(return_inverse=True, return_counts=True),
            x.unique(sorted=True, return_counts=True), x.unique_consecutive(),
            t.tensor([[1, 2], [1, 2], [0, 1]]).unique(dim=0),
            t.unique_consecutive(t.tensor([1, 1, 2, 2, 1]), return_counts=True)]


@program
def searchsorted_bucketize(t):
    s = t.tensor([1., 3, 5, 7])
    v = t.tensor([0., 3, 6, 9])
    return [t.searchsorted(s, v), t.searchsorted(s, v, right=True), t.bucketize(v, s),
            t.bucketize(v, s, right=True), t.searchsorted(s, 3.0), t.histc(v, 4, 0, 8),
            t.bincount(t.tensor([0, 1, 1, 4]))]


# -- einsum and matmul ------------------------------------------------------------------------
@program
def einsum_values(t):
    a = t.arange(6.).reshape(2, 3)
    b = t.arange(12.).reshape(3, 4)
    v = t.arange(3.)
    return [t.einsum("ij,jk->ik", a, b), t.einsum("ij->ji", a), t.einsum("ii->i", b[:, :3]),
            t.einsum("i,i->", v, v), t.einsum("i,j->ij", v, v), t.einsum("bij->b", a[None]),
            t.einsum("...j,jk", a, b), t.einsum("ij,ij->i", a, a), t.einsum(a, [0, 1], [1]),
            t.einsum("ij,jk,kl->il", a, b, b.t())]


@program
def einsum_errors(t):
    out = []
    for f in (lambda: t.einsum("ij,jk->ik", t.ones(2, 3), t.ones(4, 2)),
              lambda: t.einsum("ij->ij", t.ones(2)),
              lambda: t.einsum("ij,jk", t.ones(2, 3))):
        try:
            out.append(f())
        except Exception as e:  # noqa: BLE001
            out.append(type(e).__name__)
    return out


@program
def matmul_shapes(t):
    out = [(t.ones(3) @ t.ones(3)).shape, (t.ones(2, 3) @ t.ones(3)).shape,
           (t.ones(3) @ t.ones(3, 4)).shape, (t.ones(5, 2, 3) @ t.ones(3, 4)).shape,
           (t.ones(5, 1, 2, 3) @ t.ones(6, 3, 4)).shape, t.mm(t.ones(2, 3), t.ones(3, 1)),
           t.bmm(t.ones(2, 1, 3), t.ones(2, 3, 1)), t.mv(t.ones(2, 3), t.ones(3)),
           t.dot(t.ones(3), t.ones(3)), t.outer(t.arange(2.), t.arange(3.)),
           t.tensor([1, 2]) @ t.tensor([3, 4])]
    return out


@program
def matmul_errors(t):
    return outcomes(lambda: t.ones(2, 3) @ t.ones(2, 3), lambda: t.mm(t.ones(2, 3), t.ones(3)),
                    lambda: t.ones(3) @ t.ones(4), lambda: t.bmm(t.ones(2, 2, 3), t.ones(3, 3, 2)),
                    lambda: t.ones(2, 3) @ t.ones(3, 2, dtype=t.float64),
                    lambda: t.ones(2, 3, dtype=t.int64) @ t.ones(3, 2),
                    lambda: t.dot(t.ones(3), t.ones(3, dtype=t.int64)),
                    lambda: t.ones(()) @ t.ones(3),
                    lambda: t.cat([t.ones(2, 3), t.ones(2, 4)]), lambda: t.stack([t.ones(2), t.ones(3)]),
                    lambda: t.cat([]), lambda: t.ones(2, 3).view(-1, -1))


# -- complex, half, bfloat16, nan/inf ---------------------------------------------------------
@program
def complex_numbers(t):
    z = t.tensor([1 + 2j, -3 + 0.5j])
    return [z.real, z.imag, z.abs(), z.angle(), z.conj(), z * 1j, z.dtype, (z * 2).dtype,
            t.view_as_real(z), t.complex(t.tensor([1.]), t.tensor([2.])), z.exp(), z.sqrt(),
            t.polar(t.tensor([2.]), t.tensor([0.5])), z.conj().resolve_conj(), z @ z,
            t.view_as_complex(t.tensor([[1., 2], [3, 4]])), z.sum(), z.mean(), z.reciprocal()]


@program
def complex_errors(t):
    z = t.tensor([1 + 2j])
    return outcomes(lambda: z > 0, lambda: z.max(), lambda: z.sort(), lambda: t.tensor([1j]).clamp(0, 1),
                    lambda: z.item() + 0)


@program(rtol=1e-3)
def half_precision(t):
    h = t.tensor([1., 2, 65504, 1e-8], dtype=t.float16)
    return [h * 2, h + h, h.sum(), h.mean(), h.float(), h.dtype, (h / 3).dtype, h.max(),
            t.arange(100, dtype=t.float16).var(), t.full((4096,), 0.1, dtype=t.float16).sum(),
            h.exp(), t.tensor(0.1, dtype=t.float16).item(), h.cumsum(0)]


@program(rtol=0.02, atol=0)
def half_types_rounded_once(t):
    # torch computes half types in float32 and rounds the result once: the share of results
    # equal to the float32 result rounded (about 1; two roundings in half give about 0.75)
    out = []
    for d in (t.float16, t.bfloat16):
        x = t.linspace(0.05, 3, 300).to(d)
        for f in (t.rsqrt, lambda a: t.sinc(a - 1.5)):
            out.append((f(x) == f(x.float()).to(d)).float().mean().item())
    return out


@program(rtol=1e-2)
def bfloat16_values(t):
    b = t.tensor([1., 2.5, 3e38, -1e-3], dtype=t.bfloat16)
    r = [b * 2, b.sum(), b + 1, b.mean(), t.full((1000,), 0.1, dtype=t.bfloat16).sum(),
         (b.float() / 3).bfloat16(), b.max(), b.cumsum(0)]
    return [x.float() for x in r] + [x.dtype for x in r] + [b.item() if False else b[1].item()]


@program
def nan_inf_handling(t):
    x = t.tensor([0., -1, 1, float("nan"), float("inf")])
    return [x / 0, t.log(x), t.sqrt(x), x.clamp(0, 1), t.maximum(x, t.zeros(5)), t.fmax(x, t.zeros(5)),
            x.isnan(), x.isinf(), x.isposinf(), x.nan_to_num(nan=0., posinf=9.), x.sign(),
            x.max(), x.sum(), t.nanmean(x), x.nanmedian(), x.eq(x), x.relu(), x.sigmoid(),
            x.round(), t.tensor([0.5, 1.5, 2.5, -0.5]).round(), x.floor(), t.isclose(x, x),
            t.isclose(x, x, equal_nan=True), t.allclose(t.ones(2), t.ones(2) + 1e-9),
            t.exp(t.tensor([1000.])), t.tensor([1e308]).float()]


@program
def nan_inf_int_conversion(t):
    return [t.tensor([1.7, -1.7, 2.5]).int(), t.tensor([1.7, -1.7]).long(), t.tensor([300.]).byte(),
            t.tensor([-1]).to(t.uint8), t.tensor([3.9]).to(t.bool), t.tensor([0.0, 0.1]).bool()]


@program
def barebones_unsigned_dtypes(t):
    out = []
    for d in (t.uint16, t.uint32, t.uint64):
        x = t.tensor([1, 2, 3], dtype=d)
        out += [x, repr(x), x * 2, x.sum(), x.float() / 2, x == 2, x[1:], t.cat([x, x]),
                x.to(t.int64), x.numpy().dtype, t.from_numpy(np.array([5], dtype=str(d)[6:])),
                x.tolist(), x.item() if False else x[0].item(), d.is_signed, d.itemsize,
                t.iinfo(d).max, t.promote_types(d, t.float16), t.zeros(2, dtype=d),
                t.full((2,), 7, dtype=d), x.type()]
        for f in (lambda d=d: t.promote_types(d, t.int64),
                  lambda d=d: t.promote_types(t.uint8, d), lambda x=x: x + t.tensor([1]),
                  lambda d=d: t.promote_types(d, t.complex64),
                  lambda d=d: t.tensor([70000, 1 << 40][d.itemsize // 4:][:1], dtype=d)
                  if d is not t.uint64 else "skip",
                  lambda d=d: t.tensor([-1, 1], dtype=d) if d is not t.uint64 else "skip"):
            try:
                out.append(f())
            except Exception as e:  # noqa: BLE001
                out.append(e)
    buf = io.BytesIO()
    t.save({"u": t.tensor([[1, 2], [3, 4]], dtype=t.uint16)[:, 1]}, buf)
    buf.seek(0)
    out.append(t.load(buf))
    return out


# -- printing ---------------------------------------------------------------------------------
@program
def print_basic(t):
    return [str(t.tensor([1., 2, 3])), repr(t.tensor([1, 2])), str(t.tensor(3.5)),
            repr(t.tensor([True, False])), repr(t.zeros(2, 3)), repr(t.tensor([])),
            repr(t.zeros(0, 3)), repr(t.tensor([1.5], dtype=t.float64)),
            repr(t.tensor([1, 2], dtype=t.int32)), repr(t.tensor([1.], dtype=t.float16)),
            repr(t.tensor([1.], dtype=t.bfloat16)), repr(t.tensor([1 + 2j, 3j])),
            repr(t.ones(2, requires_grad=True)), repr(t.ones(2, requires_grad=True) * 2),
            repr(t.tensor(1, dtype=t.int8)), repr(t.arange(3.).reshape(3, 1))]


@program
def print_sci_and_widths(t):
    return [repr(t.tensor([1e-5, 1.])), repr(t.tensor([1e10, 1.])), repr(t.tensor([123456789.])),
            repr(t.tensor([0.1, 100.])), repr(t.tensor([float("nan"), float("inf"), -1.])),
            repr(t.tensor([1e-10, 1e10])), repr(t.tensor([-0.0, 0.0])), repr(t.tensor([1., 2.])),
            repr(t.tensor([1.25, 100.5])), repr(t.tensor([1e20], dtype=t.float64)),
            repr(t.tensor([2 ** 40, -5])), repr(t.tensor([0.00012345, 0.5])),
            repr(t.tensor([[1.5, -2e-3], [300., 4.]]))]


@program
def print_large_summarised(t):
    return [repr(t.arange(2000)), repr(t.arange(1200.).reshape(40, 30)),
            str(t.arange(10.).reshape(2, 5) / 3), repr(t.zeros(3, 2, 2))]


@program
def print_options(t):
    out = []
    try:
        t.set_printoptions(precision=2)
        out.append(repr(t.tensor([1.23456, 2.0])))
        t.set_printoptions(sci_mode=True)
        out.append(repr(t.tensor([1.5, 2.0])))
        t.set_printoptions(sci_mode=False)
        out.append(repr(t.tensor([1e-8, 1e8])))
        t.set_printoptions(threshold=5, edgeitems=1)
        out.append(repr(t.arange(10)))
        t.set_printoptions(linewidth=20)
        out.append(repr(t.arange(12.)))
        t.set_printoptions(profile="short")
        out.append(repr(t.tensor([1.23456, 2.0])))
    finally:
        t.set_printoptions(profile="default")
        t.set_printoptions(sci_mode=None)
    out.append(repr(t.tensor([1.23456, 2.0])))
    return out


@program
def print_misc_objects(t):
    x = t.ones(2, 3)
    return [str(x.shape), repr(x.shape), str(x.dtype), repr(t.int64), str(x.device),
            repr(t.device("cpu")), repr(t.Size([2, 3])), f"{t.tensor(2.5):.2f}" if False else
            format(t.tensor(2.5).item(), ".2f"), str(t.finfo(t.float32)), repr(t.iinfo(t.int8))]


@program
def format_and_python_scalars(t):
    x = t.tensor(2.5)
    out = [f"{x}", f"{x:.3f}", int(x), float(x), bool(x), f"{t.tensor(3)}", x.tolist(),
           t.tensor([[1, 2]]).tolist(), round(float(t.tensor(1 / 3)), 4), str(t.tensor(1.0) + 1)]
    try:
        f"{t.tensor([1., 2.]):.2f}"
    except Exception as e:  # noqa: BLE001
        out.append(e)
    try:
        bool(t.tensor([1, 2]))
    except Exception as e:  # noqa: BLE001
        out.append(e)
    try:
        t.tensor([1, 2]).item()
    except Exception as e:  # noqa: BLE001
        out.append(e)
    return out


# -- generators -------------------------------------------------------------------------------
@program
def generator_semantics(t):
    g = t.Generator().manual_seed(3)
    s = g.get_state()
    a = t.rand(3, generator=g)
    g.set_state(s)
    b = t.rand(3, generator=g)
    t.manual_seed(5)
    c = t.randn(2)
    t.manual_seed(5)
    d = t.randn(2)
    g2 = t.Generator()
    g2.manual_seed(3)
    return [bool((a == b).all()), bool((c == d).all()), g.initial_seed(), g2.initial_seed(),
            t.initial_seed(), s.dtype, a.shape, t.randint(0, 5, (3,), generator=g).dtype,
            t.randperm(4, generator=g).sort().values, t.rand(2, dtype=t.float64).dtype,
            type(t.seed()).__name__]


# -- more tensor methods ---------------------------------------------------------------------
@program
def shape_methods_misc(t):
    x = t.arange(6.).reshape(2, 3)
    return [x.repeat(2, 1), x.tile((2,)), x.roll(1), x.roll(1, 0), x.roll((1, 1), (0, 1)),
            x.diff(), x.diff(dim=0), x.flip(1), x.fliplr(), x.rot90(), x.triu(), x.tril(-1),
            x.diag(), t.diag(t.tensor([1, 2])), x.repeat_interleave(2, dim=0),
            t.repeat_interleave(t.tensor([1, 2]), t.tensor([2, 1])), x.expand_as(t.ones(4, 2, 3))
            .shape, x.new_zeros(2), x.new_tensor([1, 2]), x.new_full((1,), 3), x.new_ones(1, 2),
            x.numel(), x.dim(), x.size(1), x.size(-1), x.element_size(), x.nelement(),
            x.type(), t.tensor([1]).type(), x.type(t.int32), x.is_floating_point(),
            x.is_complex(), t.atleast_2d(t.tensor(1.)).shape, t.meshgrid(t.arange(2),
            t.arange(3), indexing="ij")[1], t.cartesian_prod(t.arange(2), t.arange(2)),
            t.combinations(t.arange(3)), t.block_diag(t.ones(1, 1), t.ones(2, 2) * 2)]


@program
def shape_errors_misc(t):
    x = t.arange(6.).reshape(2, 3)
    return outcomes(lambda: x.view(-1, 4), lambda: x.reshape(4, -1), lambda: x.expand(-1, 2),
                    lambda: x.unsqueeze(3), lambda: x.squeeze(2), lambda: x.permute(0),
                    lambda: x.transpose(0, 2), lambda: x.narrow(1, 2, 2), lambda: x.repeat(2),
                    lambda: x.flatten(1, 0), lambda: x.split(0), lambda: x.chunk(0),
                    lambda: x[::-1], lambda: x.t().view(6), lambda: t.ones(0).item(),
                    lambda: x.unflatten(1, (2, 2)), lambda: x.movedim(0, 2), lambda: x.roll(1, 2),
                    lambda: t.stack([x, x.double()]), lambda: x.index_fill(0, t.tensor([2]), 1.))


@program
def cat_stack_promotion(t):
    i = t.tensor([1, 2])
    f = t.tensor([1.5])
    h = t.tensor([1.], dtype=t.float16)
    return [t.cat([i, f]), t.cat([h, f]), t.cat([i, t.tensor([True])]), t.stack([i, i], 1),
            t.hstack([i, i]), t.vstack([i, i]), t.dstack([i, i]).shape, t.column_stack([i, i]),
            t.cat([t.zeros(0), i.float()]), t.cat([t.ones(2, 0), t.ones(2, 1)], 1),
            t.cat((i,)), t.concat([i, i]), t.concatenate([i, i], dim=0)]


@program
def pointwise_misc(t):
    x = t.tensor([-2.5, -0.5, 0.0, 0.5, 1.5, 3.0])
    y = t.tensor([1.0, 2.0, -1.0, 0.5, 0.0, 2.0])
    return [t.lerp(x, y, 0.3), t.addcmul(x, x, y, value=2), t.addcdiv(x, x, y.abs() + 1),
            x.clamp(min=t.tensor(0.), max=y.abs()), x.clip(-1, 1), t.hypot(x, y),
            t.atan2(x, y), t.copysign(x, y), t.logaddexp(x, y), x.frac(), x.trunc(), x.ceil(),
            x.floor_divide(2), x.fmod(-1.5), x.remainder(-1.5), x.square(), x.rsqrt(),
            t.sign(x), x.sgn(), x.exp2(), x.log1p(), x.expm1(), x.deg2rad(), x.heaviside(y),
            t.xlogy(x.abs(), y.abs()), x.erf(), x.erfinv() if False else x.tanh().erfinv(),
            t.float_power(x.abs(), 2), t.true_divide(x, 2), t.bitwise_xor(t.tensor([5]), 3),
            t.tensor([5]) >> 1, ~t.tensor([True, False]), ~t.tensor([5]), t.gcd(t.tensor([12]),
            t.tensor([8])), t.lcm(t.tensor([4]), t.tensor([6])), t.logical_and(x, y),
            t.isin(t.tensor([1, 2, 3]), t.tensor([2])), x.round(decimals=1), t.signbit(x),
            t.nextafter(t.tensor([1.]), t.tensor([2.])), t.ldexp(t.tensor([1.]), t.tensor([3]))]


@program
def scalar_int_tensor_ops(t):
    i = t.tensor([3, -4, 5])
    return [i * 1.5, i / i, i.float().mean(), i.abs(), i.sum(dtype=t.float32), i.pow(2),
            i ** 0.5, i.clamp(0, 4), i.sqrt(), i.exp(), i.sigmoid(), i.sin().dtype, i.neg(),
            i.sign(), t.tensor(5) // 2, t.tensor(-5) // 2, i.max(0), i.cumsum(0), i.prod(),
            i.to(t.float16), i.bool(), i * t.tensor(2.5, dtype=t.float64),
            i.div(2, rounding_mode="floor").dtype, t.tensor([2]) ** t.tensor([-1])
            if False else t.tensor([2.]) ** t.tensor([-1])]


@program
def integer_pow_negative_error(t):
    return outcomes(lambda: t.tensor([2]) ** -1, lambda: t.tensor([2]) ** t.tensor([-1]),
                    lambda: t.tensor([2]).pow_(-2), lambda: 2 ** t.tensor([-1]))


@program
def inplace_promotion_errors(t):
    return outcomes(lambda: t.tensor([1, 2]).add_(t.tensor([1.5, 1])),
                    lambda: t.tensor([1, 2]).mul_(1.5), lambda: t.tensor([True]).add_(1),
                    lambda: t.tensor([1., 2]).add_(t.tensor([1j, 1j])),
                    lambda: t.tensor([1, 2], dtype=t.int32).add_(t.tensor([1])),
                    lambda: t.tensor([1., 2], dtype=t.float16).add_(t.tensor([1.], dtype=t.float64)),
                    lambda: t.tensor([1, 2]).sqrt_(), lambda: t.tensor([1, 2]).clamp_(0.5, 1.5),
                    lambda: t.tensor([1, 2]).copy_(t.tensor([1.7, 2.2])),
                    lambda: t.tensor([1, 2]).masked_fill_(t.tensor([True, False]), 2.7),
                    lambda: t.tensor([1, 2]).fill_(3.9), lambda: t.ones(2, 2).add_(t.ones(2, 2, 2)))


@program
def where_and_scalars(t):
    c = t.tensor([True, False, True])
    i = t.tensor([1, 2, 3])
    return [t.where(c, i, 0), t.where(c, i, 0.5), t.where(c, 1, 0), t.where(c, 1.0, 0),
            t.where(c, i.float(), t.tensor(2, dtype=t.float64)), t.where(c, i, t.tensor([7])),
            i.masked_fill(c, 9), t.where(c, t.tensor([1.], dtype=t.float16), 2.5)]


@program
def print_more_dtypes(t):
    return [repr(t.tensor([1, -200], dtype=t.int16)), repr(t.tensor([255], dtype=t.uint8)),
            repr(t.tensor([[1, 2], [3, 4]], dtype=t.int8)), repr(t.tensor([1e-3, 1e3],
            dtype=t.float64)), repr(t.tensor([1.5 + 2j, 1e5 - 1j])), repr(t.tensor([1e-6j])),
            repr(t.tensor([0.1, 0.25], dtype=t.float16)), repr(t.tensor([3.14159],
            dtype=t.bfloat16)), repr(t.tensor(float("nan"))), repr(t.tensor(-0.0)),
            repr(t.tensor([1e-20])), repr(t.tensor([100000.])), repr(t.tensor([1000000.])),
            repr(t.tensor([123.456, 0.001])), repr(t.tensor([[1e-8, 1.], [2., 3.]])),
            repr(t.zeros(2, 0, 3)), repr(t.tensor([], dtype=t.int64)), repr(t.empty(0, dtype=
            t.bool)), repr(t.tensor([True] * 3).reshape(3, 1)), repr(t.arange(8).reshape(2, 2, 2)
            .float()), repr(t.tensor([float("inf"), 1.5])), repr(t.tensor([-float("inf")])),
            str(t.tensor([1., 2.], requires_grad=True).sum()), repr(t.nn.Parameter(t.zeros(2)))]


@program
def print_grad_fn_and_names(t):
    x = t.ones(2, requires_grad=True)
    return [repr(x * 2), repr(x.sum()), repr(x[0]), repr(x.mean()), repr(x.view(2, 1)),
            repr(x @ x), repr(x.t()), repr(x.exp()), repr(x.detach()),
            repr(t.ones(2, dtype=t.float64, requires_grad=True) + 1)]


@program
def common_mistake_errors(t):
    x = t.ones(2, 3, requires_grad=True)
    return outcomes(lambda: x.numpy(), lambda: t.ones(2.5),
                    lambda: t.randn(2, "3"), lambda: t.ones(2, 3)[t.tensor([0.5])],
                    lambda: t.cat([t.ones(2)], dim=1), lambda: t.tensor([1, 2]).view(t.float32)
                    .shape, lambda: t.nn.Module()(t.ones(1)), lambda: t.ones(2).to("cuda:0"),
                    lambda: t.arange(5)[5],
                    lambda: t.ones(3) @ 2, lambda: t.ones(2).reshape(3),
                    lambda: t.ones(2, 2).masked_fill(t.tensor([1, 0]), 0.),
                    lambda: t.ones(2, 2)[t.tensor([[True, False]])],
                    lambda: t.utils.data.DataLoader(range(3), batch_size=0),
                    lambda: t.nn.functional.relu(3.0),
                    lambda: t.tensor([[1, 2], [3, 4]]).float().mean(dim=2),
                    lambda: t.ones(2).expand(3), lambda: t.ones(2, 3).T.T.view(3, 2).shape,
                    lambda: t.zeros(2).index_select(0, t.tensor([1.])),
                    lambda: t.ones(2, 2).scatter_(1, t.tensor([[0], [1]]), t.ones(1, 1, 1)))


@program(messages=False)
def argument_parser_errors(t):
    # torch's argument parser lists every overload in its message; the class must agree
    return outcomes(lambda: t.zeros((2, 3), (4,)), lambda: t.ones(2, 3).sum(dim=1.0),
                    lambda: t.max(t.ones(2), 1, 2), lambda: t.ones(2).view("a"),
                    lambda: t.ones(2, 3).permute("x"), lambda: t.tensor([1.]).add(1, 2, 3),
                    lambda: t.ones(2, 3).view(True, 6), lambda: t.ones(2, 3).expand(2.0, 3),
                    lambda: t.ones(2, 3).sum(1, 1), lambda: t.ones(2, 3).max(1, 1),
                    lambda: t.ones(2, 3).mean(1, keepdim=1), lambda: t.ones(2, 3).argmax(1, 1),
                    lambda: t.ones(2, 3).amax(1, 1), lambda: t.ones(2, 3).prod(1, 1),
                    lambda: t.ones(2, 3).narrow(0, 0.0, 1), lambda: t.ones(2).repeat_interleave(2.0),
                    lambda: t.ones(2, 3).mean([0.0]))


@program
def float_sizes_refused(t):
    # n / 2 is a float in Python 3: torch refuses it as a size instead of truncating
    x = t.ones(2, 3)
    return outcomes(lambda: x.reshape(2, 6 / 2), lambda: x.view(-1, 3.0), lambda: x.expand(2, 3.0),
                    lambda: x.repeat(1, 2.0), lambda: x.flip(0.0), lambda: x.permute((0, 1.5)),
                    lambda: x.reshape([2, None]), lambda: x.reshape(6.0), lambda: x.reshape("ab"),
                    lambda: x.view(np.int64(3), 2).shape, lambda: x.view(t.tensor(3), 2).shape,
                    lambda: x.permute([1, 0]).shape, lambda: x.reshape((2, 3.0)),
                    lambda: x.select(0, 1.0), lambda: x.tril(1.0), lambda: x.kthvalue(1.0),
                    lambda: x.select(0.0, 1))


@program
def python_protocols(t):
    x = t.tensor([3., 1., 2.])
    out = [list(x), [float(v) for v in x], max(x), sum(x), len(x), 2.0 in x, t.tensor(1.) in x,
           x.__contains__(5), t.tensor([1., 2.]) in t.tensor([[1., 2.], [3., 4.]]),
           list(t.ones(2, 2)), list(zip(*t.arange(4).reshape(2, 2))), abs(t.tensor(-2)),
           t.tensor(7) // 2 == 3, bool(t.tensor([0.]).any()), sorted(t.tensor([2, 1]).tolist())]
    for f in (lambda: "a" in x, lambda: None in x, lambda: len(t.tensor(1.)),
              lambda: list(t.tensor(1.))):
        try:
            out.append(f())
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


@program
def numpy_interop(t):
    a = np.arange(4, dtype=np.float32)
    x = t.tensor([1., 2, 3, 4])
    out = [x * a, x + np.float64(2), (x + np.float64(2)).dtype, np.float32(2) * x,
           t.tensor(a) + x, np.asarray(x), x.numpy().dtype, t.as_tensor(a).dtype,
           t.tensor(np.int32(5)).dtype, t.tensor(np.bool_(True)), t.tensor([np.float16(1.5)]),
           t.from_numpy(a.reshape(2, 2).T).is_contiguous(), t.from_numpy(a[::2]).stride()]
    try:
        x[0:2] = np.array([7., 8.])
        out.append(x)
    except Exception as e:  # noqa: BLE001
        out.append(e)
    return out


@program
def print_options_more(t):
    out = []
    try:
        t.set_printoptions(precision=3, sci_mode=False)
        out += [repr(t.tensor([1.23456789, 1e-5])), repr(t.tensor([1e6, 2.5]))]
        t.set_printoptions(threshold=3)
        out += [repr(t.arange(5.)), repr(t.arange(20).reshape(4, 5))]
        t.set_printoptions(profile="full")
        out += [repr(t.arange(1500))[-40:]]
        t.set_printoptions(precision=10)
        out += [repr(t.tensor([1 / 3], dtype=t.float64)), repr(t.tensor([1 / 3]))]
    finally:
        t.set_printoptions(profile="default")
        t.set_printoptions(sci_mode=None)
    return out


PROGRAMS = sorted(P.items())


@pytest.mark.parametrize("name", [n for n, _ in PROGRAMS])
def test_user_program(name):
    fn, opts = P[name]
    same(fn, **opts)
