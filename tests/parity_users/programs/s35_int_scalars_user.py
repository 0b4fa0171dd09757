import torch
import torch.nn.functional as F


def show(f):
    try:
        out = f()
        print(out, out.dtype if isinstance(out, torch.Tensor) else '')
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])


i = torch.tensor([-2, 0, 3])
m = torch.tensor([True, False, True])
#%% alpha and value scalars on integers
for f in (lambda: torch.add(i, i, alpha=1.5), lambda: torch.sub(i, i, alpha=0.5), lambda: torch.add(i, 1, alpha=2), lambda: torch.add(i, 1.5, alpha=2), lambda: i.clone().add_(i, alpha=2.5), lambda: torch.addcmul(i, i, i, value=1.5), lambda: torch.addcmul(i, i, i, value=2), lambda: torch.addcmul(i.float(), i, i, value=1.5), lambda: torch.add(i.float(), i, alpha=1j), lambda: torch.add(m, m, alpha=2), lambda: torch.sub(m, m), lambda: torch.add(i, m, alpha=True), lambda: torch.rsub(i, 2.5), lambda: torch.rsub(i, i, alpha=2)):
    show(f)
#%% fills with float values on integers
for f in (lambda: i.clone().fill_(2.7), lambda: i.masked_fill(m, 2.7), lambda: i.masked_fill(m, torch.tensor(2.7)), lambda: i.index_fill(0, torch.tensor([1]), -1.9), lambda: i.scatter(0, torch.tensor([0]), 2.7), lambda: torch.full_like(i, 2.7), lambda: torch.where(m, i, 2.7), lambda: i.clone().masked_fill_(m, 1e20), lambda: torch.full_like(i, float('nan')), lambda: i.to(torch.uint8).masked_fill(m, -1), lambda: i.to(torch.int8).fill_(300), lambda: i.masked_fill(m, 1j), lambda: i.clone().index_put_((torch.tensor([0]),), torch.tensor(2.7)), lambda: i.clone().fill_(True), lambda: m.clone().fill_(2)):
    show(f)
#%% activations and clamps on integers
for f in (lambda: F.threshold(i, 0.5, 2.7), lambda: F.hardtanh(i, -0.5, 1.5), lambda: F.leaky_relu(i), lambda: F.relu6(i), lambda: F.relu(i), lambda: F.elu(i), lambda: torch.clamp(i, 0.5), lambda: i.clone().clamp_(0.5), lambda: i.clone().clamp_(min=-1, max=2), lambda: torch.clamp(i, torch.tensor(0.5)), lambda: torch.clip(i, max=1.5), lambda: F.hardshrink(i), lambda: F.softshrink(i), lambda: torch.heaviside(i, torch.tensor([5])), lambda: torch.heaviside(i, torch.tensor(0.5)), lambda: F.hardsigmoid(i), lambda: torch.sigmoid(i)):
    show(f)
#%% math on integers
for f in (lambda: torch.round(i, decimals=1), lambda: torch.round(i, decimals=-1), lambda: torch.round(torch.tensor([15, 25, -15]), decimals=-1), lambda: torch.floor(i), lambda: torch.trunc(i), lambda: torch.frac(i), lambda: torch.nan_to_num(i), lambda: torch.remainder(i, 1.5), lambda: torch.fmod(i, 1.5), lambda: torch.div(i, 2.5, rounding_mode='floor'), lambda: torch.floor_divide(i, 2.5), lambda: torch.pow(i, 0.5), lambda: torch.pow(i, 2.0), lambda: i ** -1.0, lambda: torch.float_power(i, 2), lambda: torch.xlogy(i, 2), lambda: torch.logit(i), lambda: torch.exp2(i), lambda: torch.sqrt(i), lambda: torch.copysign(i, -1), lambda: torch.ldexp(i, torch.tensor([1])), lambda: torch.lerp(i, i, 0.5), lambda: torch.hypot(i, i), lambda: torch.signbit(i), lambda: torch.sgn(i), lambda: torch.abs(torch.tensor([-128], dtype=torch.int8)), lambda: -torch.tensor([0, 200], dtype=torch.uint8), lambda: torch.tensor([250], dtype=torch.uint8) + 10, lambda: torch.tensor([100], dtype=torch.int8) * 2, lambda: torch.tensor([7]) // torch.tensor([-2]), lambda: torch.tensor([-7]) % torch.tensor([2]), lambda: torch.tensor([1]) << 70, lambda: torch.tensor([-8]) >> 1, lambda: torch.tensor([1], dtype=torch.int8) << 9, lambda: torch.bitwise_left_shift(torch.tensor([1]), torch.tensor([-1])), lambda: torch.tensor([5]) & 3, lambda: torch.tensor([5]) | True, lambda: torch.tensor([5.]) & 1):
    show(f)
#%% reductions on integers
for f in (lambda: i.mean(), lambda: i.float().mean(), lambda: torch.std(i), lambda: torch.var(i.float()), lambda: i.median(), lambda: torch.quantile(i, 0.5), lambda: torch.quantile(i.float(), torch.tensor([0.25, 0.5]), interpolation='nearest'), lambda: torch.quantile(i.float(), 0.4, interpolation='midpoint'), lambda: torch.quantile(i.float(), 0.4, interpolation='lower'), lambda: torch.quantile(i.float(), 0.4, interpolation='higher'), lambda: torch.nanquantile(torch.tensor([1., float('nan'), 3.]), 0.5), lambda: torch.quantile(torch.tensor([1., float('nan'), 3.]), 0.5), lambda: torch.quantile(i.float(), 1.5), lambda: torch.logsumexp(i, 0), lambda: torch.softmax(i, 0), lambda: torch.histc(i, 3), lambda: torch.prod(torch.tensor([2 ** 40, 2 ** 40])), lambda: torch.sum(torch.tensor([2 ** 62, 2 ** 62])), lambda: torch.cumsum(torch.tensor([2 ** 62, 2 ** 62]), 0), lambda: torch.mean(i, dtype=torch.float64), lambda: torch.norm(i), lambda: torch.linalg.vector_norm(i.float(), 0), lambda: torch.dist(i.float(), torch.zeros(3)), lambda: torch.count_nonzero(i), lambda: torch.aminmax(i), lambda: i.max(0), lambda: torch.argmax(torch.tensor([[1, 3, 3]]), 1), lambda: torch.argmin(torch.tensor([2, 1, 1])), lambda: torch.all(i), lambda: torch.any(torch.tensor([0., -0.])), lambda: torch.all(torch.tensor([], dtype=torch.uint8)), lambda: torch.all(torch.tensor([1, 2], dtype=torch.uint8)), lambda: torch.any(torch.tensor([0, 5], dtype=torch.uint8), 0)):
    show(f)
#%% alpha on bool and complex alpha
for f in (lambda: torch.add(m, m, alpha=0), lambda: torch.add(m, m, alpha=-1), lambda: torch.add(m, m, alpha=1.5), lambda: torch.add(m, True, alpha=2), lambda: torch.add(m, 2, alpha=2), lambda: torch.sub(m, m, alpha=2), lambda: m.clone().add_(m, alpha=2), lambda: torch.add(i, m, alpha=2), lambda: torch.add(m, i, alpha=2), lambda: torch.add(i, i, alpha=True), lambda: torch.sub(i.float(), i, alpha=1j), lambda: torch.add(i, i, alpha=1j), lambda: torch.add(i, 1j, alpha=1j), lambda: torch.add(m, 1.5, alpha=2), lambda: torch.add(m, m, alpha=False), lambda: torch.add(m, m, alpha=2, out=torch.empty(3, dtype=torch.bool))):
    show(f)
