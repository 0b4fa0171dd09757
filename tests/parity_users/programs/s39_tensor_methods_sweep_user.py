import torch


def run(cases):
    for k, f in enumerate(cases):
        try:
            print(k, f())
        except Exception as e:
            print(k, type(e).__name__, str(e).split("\n")[0])
#%% methods 0
torch.manual_seed(0)
x = torch.arange(12.).reshape(3, 4)
i = torch.tensor([3, -1, 0, 5])
run([
   lambda: x.repeat(2), lambda: x.repeat(1, 2, 1).shape, lambda: x.repeat_interleave(2, dim=0).shape, lambda: i.repeat_interleave(torch.tensor([1, 0, 2, 1])),
   lambda: x.tile((2,)).shape, lambda: x.expand(2, -1, -1).shape, lambda: x.expand(-1, 4, 4), lambda: x.expand_as(torch.ones(2, 3, 4)).shape,
   lambda: x.roll(1), lambda: x.roll((1, 1), (0, 1)), lambda: x.flip(0, 1), lambda: x.flip(), lambda: x.rot90(1, (0, 1)).shape, lambda: x.rot90(1, (0, 0)),
   lambda: x.diff(), lambda: x.diff(n=2, dim=0), lambda: i.diff(prepend=torch.tensor([0])), lambda: x.cumsum(0)[-1], lambda: x.cummax(1).indices, lambda: x.logcumsumexp(0)[0],
])
#%% methods 1
torch.manual_seed(0)
x = torch.arange(12.).reshape(3, 4)
i = torch.tensor([3, -1, 0, 5])
run([
   lambda: i.sign(), lambda: i.abs(), lambda: i.neg(), lambda: i.float().reciprocal(), lambda: i.reciprocal(), lambda: i.sqrt(), lambda: i.exp().dtype, lambda: (i > 0).sum(), lambda: (i > 0).float().mean(),
   lambda: i.clamp(0), lambda: i.clamp(max=2), lambda: i.clamp(), lambda: i.clamp(2, 1), lambda: x.clamp(min=torch.tensor(3.)).sum(),
   lambda: x.norm(), lambda: x.norm(p=1, dim=1), lambda: x.norm(p="fro"), lambda: x.norm(p="nuc"), lambda: i.norm(), lambda: x.renorm(2, 0, 5).shape, lambda: x.dist(torch.zeros(3, 4)),
   lambda: x.std(), lambda: x.std(0, unbiased=False), lambda: x.var(correction=0), lambda: torch.ones(1).std(), lambda: x.std_mean(1), lambda: i.std(),
])
#%% methods 2
torch.manual_seed(0)
x = torch.arange(12.).reshape(3, 4)
i = torch.tensor([3, -1, 0, 5])
run([
   lambda: x.median(), lambda: x.median(0), lambda: x.nanmedian(), lambda: x.quantile(0.5), lambda: x.quantile(torch.tensor([0.25, 0.75]), dim=1).shape, lambda: i.quantile(0.5),
   lambda: x.logsumexp(1), lambda: x.amax((0, 1)), lambda: x.aminmax(), lambda: x.argmax(), lambda: x.argmax(1, keepdim=True), lambda: torch.empty(0).argmax(), lambda: torch.empty(0).max(),
   lambda: torch.empty(0).sum(), lambda: torch.empty(0).mean(), lambda: torch.empty(0).prod(), lambda: torch.empty(0, 3).max(0), lambda: torch.empty(0, 3).max(1).values.shape,
   lambda: x.type(torch.int32).dtype, lambda: x.type("torch.DoubleTensor").dtype, lambda: x.type(), lambda: i.type(torch.float16).type(),
])
#%% methods 3
torch.manual_seed(0)
x = torch.arange(12.).reshape(3, 4)
i = torch.tensor([3, -1, 0, 5])
run([
   lambda: x.masked_fill(torch.tensor([True, False, True, False]), 0.5)[0], lambda: x.masked_fill(x > 5, torch.tensor(1)).dtype, lambda: x.masked_fill(x > 5, torch.tensor([1.])),
   lambda: x.where(x > 5, -1.0)[0], lambda: x.lerp(torch.zeros(3, 4), 0.5)[0], lambda: x.addcmul(x, x, value=0.5)[0], lambda: x.addmm(x[:, :3].T @ x[:, :3] if False else torch.ones(3, 3), torch.ones(3, 4)).shape,
   lambda: x.outer(torch.ones(2)), lambda: x[0].outer(torch.ones(2)).shape, lambda: x.kron(torch.ones(2, 1)).shape, lambda: x.tril(-1)[2], lambda: x.triu(1)[0], lambda: x.trace(), lambda: x.diag(), lambda: x.diag_embed().shape,
   lambda: x.sort(dim=0, descending=True).values[0], lambda: x.view(-1).chunk(5), lambda: x.tensor_split(3, dim=1)[2], lambda: x.split([1, 3], dim=1)[1].shape, lambda: x.split([1, 2], dim=1),
])
#%% methods 4
torch.manual_seed(0)
x = torch.arange(12.).reshape(3, 4)
i = torch.tensor([3, -1, 0, 5])
run([
   lambda: x.new_tensor(3), lambda: x.bernoulli().shape if False else x.sigmoid().bernoulli().shape, lambda: x.fill_diagonal_(0)[1], lambda: x.index_fill_(0, torch.tensor([0]), 1)[0],
   lambda: x.nan_to_num(), lambda: torch.tensor([float("nan"), float("inf")]).nan_to_num(posinf=1.0), lambda: x.isnan().any(), lambda: x.isfinite().all(), lambda: x.signbit()[0],
   lambda: x.frexp(), lambda: x.ldexp(torch.tensor([1])).sum(), lambda: x.copysign(-1)[0], lambda: x.heaviside(torch.tensor(0.5))[0], lambda: x.hypot(x)[0], lambda: x.logit(eps=0.1)[0],
   lambda: x.xlogy(2)[0], lambda: x.float_power(2).dtype, lambda: x.true_divide(2)[0], lambda: x.floor_divide(3)[0], lambda: i.gcd(torch.tensor(6)), lambda: i.lcm(torch.tensor(4)), lambda: i.bitwise_not(),
])
#%% methods 5
torch.manual_seed(0)
x = torch.arange(12.).reshape(3, 4)
i = torch.tensor([3, -1, 0, 5])
run([
   lambda: x.T, lambda: torch.ones(2, 3, 4).T.shape, lambda: x.H.shape, lambda: x.mH.shape, lambda: x.real, lambda: x.imag, lambda: x.conj(), lambda: x.angle()[0], lambda: i.angle(),
])
