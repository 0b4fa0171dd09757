import torch
#%% unique variants
x = torch.tensor([3, 1, 2, 3, 1, 1])
print(torch.unique(x), torch.unique(x, sorted=True, return_inverse=True, return_counts=True))
print(torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 1])), torch.unique_consecutive(torch.tensor([1, 1, 2]), return_counts=True))
print(torch.unique(torch.tensor([[1, 2], [1, 2], [0, 1]]), dim=0, return_inverse=True))
#%% bincount histc histogram
print(torch.bincount(torch.tensor([0, 2, 2, 5])), torch.bincount(torch.tensor([1, 1]), weights=torch.tensor([0.5, 0.25]), minlength=4))
print(torch.histc(torch.tensor([1.0, 2.0, 1.0, 4.0]), bins=4, min=0, max=4))
h, e = torch.histogram(torch.tensor([1.0, 2.0, 1.0]), bins=3)
print(h, e)
try:
    torch.bincount(torch.tensor([-1]))
except Exception as ex:
    print(type(ex).__name__, ex)
#%% searchsorted bucketize
s = torch.tensor([1, 3, 5, 7])
print(torch.searchsorted(s, torch.tensor([0, 3, 6, 9])), torch.searchsorted(s, torch.tensor([3]), right=True))
print(torch.bucketize(torch.tensor([0.5, 3.0, 8.0]), torch.tensor([1.0, 3.0, 5.0])), torch.bucketize(torch.tensor([3]), torch.tensor([1, 3]), right=True))
print(torch.searchsorted(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[2], [3]]), side="right"))
#%% cumulative ops
x = torch.tensor([[1.0, 3.0, 2.0], [0.5, -1.0, 4.0]])
print(torch.cumsum(x, 1), torch.cumprod(x, 0), torch.cummax(x, 1), torch.cummin(x, 0))
print(torch.logcumsumexp(x, 1).round(decimals=4))
print(torch.cumsum(torch.tensor([1, 2], dtype=torch.int8), 0).dtype, torch.cumsum(torch.tensor([True, True]), 0))
#%% diff gradient trapz
x = torch.tensor([1.0, 4.0, 9.0, 16.0])
print(torch.diff(x), torch.diff(x, n=2), torch.diff(x, prepend=torch.tensor([0.0])))
print(torch.gradient(x), torch.gradient(x, spacing=2.0))
print(torch.trapezoid(x), torch.trapezoid(x, dx=0.5), torch.cumulative_trapezoid(x))
print(torch.gradient(torch.tensor([[1.0, 2.0, 4.0], [2.0, 5.0, 9.0]]), dim=1))
#%% nan ops
x = torch.tensor([1.0, float("nan"), 3.0])
print(torch.nansum(x), torch.nanmean(x), torch.nanmedian(x), torch.nan_to_num(x, nan=0.5))
print(torch.nanquantile(x, 0.5), torch.quantile(torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([0.1, 0.9])))
print(torch.quantile(torch.tensor([1.0, 2.0, 3.0, 4.0]), 0.5, interpolation="lower"), torch.quantile(torch.tensor([[1.0, 5.0], [2.0, 3.0]]), 0.5, dim=1, keepdim=True))
print(x.isnan(), x.nan_to_num(), torch.fmax(x, torch.zeros(3)), torch.maximum(x, torch.zeros(3)))
#%% sort topk kthvalue mode median
x = torch.tensor([[3.0, 1.0, 2.0, 1.0], [0.0, 5.0, 5.0, 4.0]])
print(torch.sort(x, descending=True, stable=True), torch.argsort(x, dim=0))
print(torch.topk(x, 2), torch.topk(x, 1, largest=False, dim=0))
print(torch.kthvalue(x, 2), torch.mode(x), torch.median(x, dim=1), torch.median(x))
print(torch.msort(x), x.sort(dim=0).indices)
#%% clamp and friends
x = torch.tensor([-2.0, -0.5, 0.5, 2.0])
print(x.clamp(-1, 1), x.clamp(min=0), x.clip(max=0.0), torch.clamp(x, torch.tensor([0.0, 0, 0, 0]), torch.tensor([1.0, 1, 1, 3])))
print(torch.clamp(torch.tensor([1, 5, 9]), 2, 6), torch.clamp(torch.tensor([1, 5]), 2.5).dtype)
try:
    x.clamp()
except Exception as e:
    print(type(e).__name__, e)
#%% rounding and division modes
x = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
print(x.round(), x.floor(), x.ceil(), x.trunc(), x.frac(), torch.round(x * 1.234, decimals=2))
a, b = torch.tensor([7, -7, 7, -7]), torch.tensor([2, 2, -2, -2])
print(torch.div(a, b), torch.div(a, b, rounding_mode="floor"), torch.div(a, b, rounding_mode="trunc"))
print(a % b, torch.fmod(a, b), torch.remainder(a, b), a // b)
print(torch.tensor([5.5, -5.5]) % 2, torch.fmod(torch.tensor([5.5, -5.5]), 2))
#%% bitwise and shifts
a, b = torch.tensor([12, -3], dtype=torch.int32), torch.tensor([10, 1], dtype=torch.int32)
print(a & b, a | b, a ^ b, ~a, a << 2, a >> 1, torch.bitwise_left_shift(a, b))
print(torch.tensor([True, False]) ^ torch.tensor([True, True]), torch.logical_xor(torch.tensor([1, 0]), torch.tensor([1.0, 2.0])))
#%% where masked and nonzero
x = torch.tensor([[1, -2], [0, 4]])
print(torch.where(x > 0), torch.nonzero(x), torch.nonzero(x, as_tuple=True), torch.argwhere(x))
print(torch.where(x > 0, x, 0), torch.where(x > 0, 1.5, x).dtype, x.masked_select(x != 0), x.count_nonzero(), x.count_nonzero(dim=0))
#%% index ops
x = torch.zeros(3, 4)
x.index_add_(0, torch.tensor([0, 2, 0]), torch.ones(3, 4))
print(x)
print(torch.zeros(5).index_fill_(0, torch.tensor([1, 3]), 7.0), torch.zeros(5).index_copy(0, torch.tensor([4, 0]), torch.tensor([1.0, 2.0])))
print(torch.zeros(2, 3).scatter_add(1, torch.tensor([[0, 0], [2, 1]]), torch.ones(2, 2)))
print(torch.zeros(4).scatter_reduce(0, torch.tensor([0, 0, 3]), torch.tensor([2.0, 5.0, 1.0]), reduce="amax", include_self=False))
print(torch.arange(6).reshape(2, 3).take(torch.tensor([0, 5])), torch.arange(6).reshape(2, 3).take_along_dim(torch.tensor([[2], [0]]), 1))
x = torch.zeros(3)
x.put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]), accumulate=True)
print(x)
#%% shape utilities
x = torch.arange(24).reshape(2, 3, 4)
print(x.movedim(0, -1).shape, x.swapaxes(0, 2).shape, x.flatten(1).shape, x.unflatten(2, (2, 2)).shape)
print(torch.tensor_split(torch.arange(7), 3), torch.tensor_split(torch.arange(7), [1, 5]))
print(torch.split(torch.arange(5), 2), torch.chunk(torch.arange(5), 3), torch.arange(6).reshape(2, 3).unbind(1))
print(torch.roll(torch.arange(5), 2), torch.rot90(torch.arange(4).reshape(2, 2)), torch.flip(torch.arange(4).reshape(2, 2), [0, 1]))
print(torch.tril_indices(3, 3), torch.triu_indices(2, 3, offset=1), torch.combinations(torch.arange(3), r=2))
print(torch.arange(6).reshape(2, 3).unfold(1, 2, 1), torch.arange(4).repeat_interleave(2), torch.repeat_interleave(torch.tensor([1, 2]), torch.tensor([2, 1])))
#%% einsum varieties
a, b = torch.arange(6.0).reshape(2, 3), torch.arange(12.0).reshape(3, 4)
print(torch.einsum("ij,jk->ik", a, b), torch.einsum("ij->", a), torch.einsum("ii->i", torch.eye(2) * 3))
print(torch.einsum("bi,bj->bij", a, a).shape, torch.einsum("...j,jk", a, b).shape, torch.einsum(a, [0, 1], b, [1, 2], [0, 2]).shape)
try:
    torch.einsum("ij,jk->ik", a, a)
except Exception as e:
    print(type(e).__name__, e)
#%% special functions
x = torch.tensor([0.5, 1.0, 2.0])
print(torch.special.erf(x), torch.special.erfinv(torch.tensor([0.0, 0.5])), torch.special.expit(x))
print(torch.special.gammaln(x), torch.special.digamma(x), torch.special.i0(x), torch.special.xlogy(x, x))
print(torch.special.logit(torch.tensor([0.25]), eps=1e-6), torch.special.sinc(x), torch.special.entr(x), torch.special.log_ndtr(x))
print(torch.lgamma(x), torch.polygamma(1, x), torch.mvlgamma(torch.tensor([2.5]), 2), torch.special.zeta(x + 1, torch.tensor(1.0)))
#%% dtype info and promotion helpers
print(torch.promote_types(torch.int8, torch.uint8), torch.can_cast(torch.float32, torch.int32), torch.result_type(torch.tensor([1]), 2.5))
print(torch.finfo(torch.bfloat16).eps, torch.finfo(torch.float16).max, torch.iinfo(torch.int32).min, torch.finfo().tiny)
print(torch.get_default_dtype(), torch.is_floating_point(torch.tensor(1.0)), torch.is_complex(torch.tensor(1j)), torch.is_tensor(3), torch.numel(torch.ones(2, 3)))
#%% comparisons and allclose
a, b = torch.tensor([1.0, float("nan"), 3.0]), torch.tensor([1.0 + 1e-9, float("nan"), 3.1])
print(torch.isclose(a, b), torch.isclose(a, b, equal_nan=True), torch.allclose(a[:1], b[:1]), torch.equal(a, a))
print(torch.eq(a, b), a.ne(b), torch.ge(a, 2), torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5])), torch.isin(torch.tensor([1, 2]), 2, invert=True))
print(torch.tensor([1, 2]) == torch.tensor([1.0, 2.5]), torch.tensor([0.1 + 0.2]) == 0.3)
