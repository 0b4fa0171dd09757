import torch
#%% special functions and numerically safe helpers
x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 3.0])
print(torch.special.expit(x), torch.special.logit(torch.tensor([0.25, 0.5])), torch.special.erf(x), torch.special.erfinv(torch.tensor([0.0, 0.5])))
print(torch.special.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 3.0])), torch.special.log1p(x[2:]), torch.special.expm1(x[:2]), torch.special.sinc(x))
print(torch.logsumexp(torch.tensor([1000.0, 1000.0]), 0), torch.special.entr(torch.tensor([0.0, 0.5, -1.0])), torch.lgamma(torch.tensor([0.5, 5.0])), torch.digamma(torch.tensor([1.0])))
#%% rounding, clamping, nan handling
y = torch.tensor([-1.5, -0.5, 0.5, 1.5, 2.5, float("nan")])
print(torch.round(y), torch.round(torch.tensor([1.2345]), decimals=2), y.floor(), y.ceil(), y.trunc(), y.frac())
print(y.clamp(-1, 1), y.clamp(min=0), torch.nan_to_num(y, nan=0.0), y.nansum(), y.nanmean(), torch.isnan(y).any())
try:
    y.clamp()
except RuntimeError as e:
    print(str(e))
print(torch.clamp(torch.tensor([1, 5, 9]), min=torch.tensor([2, 2, 2]), max=6), torch.tensor([1, 5]).clamp(2.5).dtype)
#%% reductions with dims and keepdim, std/var corrections
m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]])
print(m.std(), m.std(dim=1, unbiased=False), m.var(0, correction=0), torch.var_mean(m, 1), m.median(), m.quantile(0.5, dim=1))
print(m.cumsum(1), m.cumprod(0), m.prod(1, keepdim=True), m.norm(p=1), m.max(), m.argmax(1), m.logcumsumexp(1)[0, -1])
print(m.sum((0, 1)), m.mean(-1, keepdim=True), m.amax(0), m.aminmax(), torch.count_nonzero(m > 2, dim=0), m.all(), (m > 1).any(1))
