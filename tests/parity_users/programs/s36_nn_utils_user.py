import torch
import torch.nn as nn
import torch.nn.utils as U


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% clip grad norms
torch.manual_seed(0)
m = nn.Linear(3, 2)
m(torch.randn(4, 3)).pow(2).sum().backward()
g0 = [p.grad.clone() for p in m.parameters()]
print(r(U.clip_grad_norm_(m.parameters(), 1.0, norm_type=float('inf'))))
print([r(p.grad) for p in m.parameters()])
for p, g in zip(m.parameters(), g0):
    p.grad = g.clone()
print(r(U.clip_grad_norm_(m.parameters(), 0.5, norm_type=1)))
for p, g in zip(m.parameters(), g0):
    p.grad = g.clone()
print(r(U.clip_grad_norm_(m.parameters(), 100.0, norm_type='inf')))
print(r(U.clip_grad_norm_([], 1.0)))
print(r(U.clip_grad_norm_(m.weight, 1.0, norm_type=3)))
m.bias.grad = torch.tensor([float('nan'), 1.0])
print(r(U.clip_grad_norm_(m.parameters(), 1.0)))
show(lambda: U.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True))
m.bias.grad = torch.tensor([float('inf'), 1.0])
show(lambda: U.clip_grad_norm_(m.parameters(), 1.0, norm_type=2, error_if_nonfinite=True))
m.bias.grad = torch.tensor([3.0, -4.0])
U.clip_grad_value_(m.parameters(), 2.5)
print(m.bias.grad)
show(lambda: U.clip_grad_value_(m.parameters(), -1.))
print(r(U.get_total_norm([torch.tensor([3., 4.]), torch.tensor([12.])])))
U.clip_grads_with_norm_(m.parameters(), 1.0, torch.tensor(5.0))
print(m.bias.grad)
#%% pack and pad sequences
seqs = [torch.tensor([1., 2., 3.]), torch.tensor([4.]), torch.tensor([5., 6.])]
padded = U.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1)
print(padded)
print(U.rnn.pad_sequence(seqs, padding_side='left', batch_first=True))
lengths = torch.tensor([3, 1, 2])
show(lambda: U.rnn.pack_padded_sequence(padded, lengths, batch_first=True))
p = U.rnn.pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
print(p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices)
out, lens = U.rnn.pad_packed_sequence(p, batch_first=True, padding_value=0.5, total_length=4)
print(out, lens)
ps = U.rnn.pack_sequence(seqs, enforce_sorted=False)
print(ps.data, ps.batch_sizes)
print(U.rnn.unpack_sequence(ps))
print(U.rnn.unpad_sequence(padded, lengths, batch_first=True))
show(lambda: U.rnn.pack_padded_sequence(padded, torch.tensor([3, 0, 2]), batch_first=True, enforce_sorted=False))
show(lambda: U.rnn.pad_packed_sequence(p, batch_first=True, total_length=2))
show(lambda: U.rnn.pack_sequence([torch.tensor([1.]), torch.tensor([1., 2.])]))
#%% packed into lstm
torch.manual_seed(1)
lstm = nn.LSTM(1, 2, batch_first=True)
x = torch.randn(3, 4, 1)
pk = U.rnn.pack_padded_sequence(x, [4, 2, 1], batch_first=True)
o, (h, c) = lstm(pk)
print(type(o).__name__, o.data.shape, r(h))
o2, _ = U.rnn.pad_packed_sequence(o, batch_first=True)
print(r(o2[1]))
print(pk.to(torch.float64).data.dtype, pk.is_cuda)
#%% parametrizations
torch.manual_seed(2)
class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T
class Scale(nn.Module):
    def forward(self, X):
        return X * 2
    def right_inverse(self, X):
        return X / 2
lin = nn.Linear(3, 3)
P = torch.nn.utils.parametrize
P.register_parametrization(lin, 'weight', Sym())
W = lin.weight
print(torch.allclose(W, W.T), P.is_parametrized(lin), P.is_parametrized(lin, 'bias'))
print(type(lin).__name__, [n for n, _ in lin.named_parameters()])
P.register_parametrization(lin, 'weight', Scale())
print(len(lin.parametrizations.weight))
with P.cached():
    a = lin.weight
    b = lin.weight
    print(a is b)
lin.weight = torch.eye(3)
print(r(lin.parametrizations.weight.original))
P.remove_parametrizations(lin, 'weight', leave_parametrized=True)
print(type(lin).__name__, r(lin.weight))
show(lambda: P.remove_parametrizations(lin, 'weight'))
l2 = nn.Linear(2, 2)
P.register_parametrization(l2, 'bias', Scale())
show(lambda: setattr(l2, 'weight', torch.zeros(2, 2)))
print(list(l2.state_dict().keys()))
show(lambda: P.register_parametrization(l2, 'weight', nn.Linear(2, 3)))
#%% orthogonal weight and spectral norms
torch.manual_seed(3)
o = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4))
Q = o.weight
print(r(Q @ Q.T, 3))
sn = nn.utils.parametrizations.spectral_norm(nn.Linear(4, 3))
print(r(torch.linalg.matrix_norm(sn.weight, 2), 2), sorted(sn.state_dict().keys()))
wn = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2), dim=0)
print(sorted(n for n, _ in wn.named_parameters()))
print(r(wn.parametrizations.weight.original0.squeeze()))
old = nn.utils.weight_norm(nn.Linear(3, 2), name='weight', dim=None)
print(sorted(n for n, _ in old.named_parameters()), old.weight_g.shape)
old = nn.utils.remove_weight_norm(old)
print(sorted(n for n, _ in old.named_parameters()))
show(lambda: nn.utils.remove_weight_norm(old))
osn = nn.utils.spectral_norm(nn.Linear(3, 3))
print(sorted(osn.state_dict().keys()))
#%% pruning
torch.manual_seed(4)
import torch.nn.utils.prune as prune
m = nn.Linear(4, 3)
prune.l1_unstructured(m, 'weight', amount=0.5)
print(sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers()))
print(int(m.weight_mask.sum()), bool((m.weight == 0).sum() >= 6))
prune.random_structured(m, 'weight', amount=1, dim=0)
print(int(m.weight_mask.sum()))
prune.remove(m, 'weight')
print(sorted(n for n, _ in m.named_parameters()), hasattr(m, 'weight_mask'))
m2 = nn.Linear(4, 3)
prune.ln_structured(m2, 'weight', amount=0.34, n=2, dim=0)
print(m2.weight_mask.sum(1))
show(lambda: prune.l1_unstructured(m2, 'weight', amount=1.5))
show(lambda: prune.l1_unstructured(m2, 'weight', amount=20))
print(prune.is_pruned(m2), prune.is_pruned(nn.Linear(1, 1)))
ms = [(nn.Linear(3, 3), 'weight'), (nn.Linear(3, 2), 'weight')]
prune.global_unstructured(ms, pruning_method=prune.L1Unstructured, amount=5)
print(sum(int((mm.weight == 0).sum()) for mm, _ in ms))
prune.identity(m2, 'bias')
print(m2.bias_mask)
#%% vector conversion and fusion helpers
torch.manual_seed(5)
m = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
v = U.parameters_to_vector(m.parameters())
print(v.shape)
U.vector_to_parameters(torch.arange(13.), m.parameters())
print(m[1].bias, m[0].weight[0])
show(lambda: U.vector_to_parameters(torch.arange(12.), m.parameters()))
show(lambda: U.vector_to_parameters([1, 2], m.parameters()))
conv = nn.Conv2d(1, 2, 1)
bn = nn.BatchNorm2d(2).eval()
bn.running_mean.fill_(0.5)
fused = U.fuse_conv_bn_eval(conv, bn)
x = torch.randn(1, 1, 2, 2)
print(r((fused(x) - bn(conv(x))).abs().max(), 5))
print(sum(p.numel() for p in U.skip_init(nn.Linear, 3, 4).parameters()))
