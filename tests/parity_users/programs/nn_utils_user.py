import torch
import torch.nn as nn
import torch.nn.utils as U
import torch.nn.utils.prune as prune
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence, unpad_sequence, unpack_sequence
def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0
#%% clip_grad_norm_
torch.manual_seed(0)
m = nn.Linear(4, 3)
m(torch.randn(5, 4)).pow(2).sum().backward()
total = U.clip_grad_norm_(m.parameters(), max_norm=1.0)
print(r(total), r(torch.cat([p.grad.flatten() for p in m.parameters()]).norm()))
#%% clip_grad_norm_ inf norm and error_if_nonfinite
p = nn.Parameter(torch.ones(3))
p.grad = torch.tensor([1.0, -5.0, 2.0])
print(U.clip_grad_norm_([p], 2.0, norm_type="inf"), p.grad)
p.grad = torch.tensor([float("nan"), 1.0, 1.0])
try:
    U.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, str(e)[:120])
#%% clip_grad_value_ and get_total_norm
p = nn.Parameter(torch.zeros(4))
p.grad = torch.tensor([-3.0, 0.5, 2.0, -0.1])
U.clip_grad_value_(p, 1.0)
print(p.grad)
print(U.get_total_norm([torch.tensor([3.0]), torch.tensor([4.0])]))
#%% clip no grads
print(U.clip_grad_norm_([nn.Parameter(torch.ones(2))], 1.0))
#%% parameters_to_vector
m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
v = U.parameters_to_vector(m.parameters())
print(v.shape)
U.vector_to_parameters(torch.arange(9.0), m.parameters())
print(m[0].weight, m[1].bias)
#%% vector_to_parameters bad type
try:
    U.vector_to_parameters([1.0, 2.0], m.parameters())
except Exception as e:
    print(type(e).__name__, e)
#%% weight_norm parametrization
from torch.nn.utils.parametrizations import weight_norm, spectral_norm, orthogonal
m = weight_norm(nn.Linear(3, 2))
print(sorted(n for n, _ in m.named_parameters()))
print(m.parametrizations.weight.original0.shape, m.parametrizations.weight.original1.shape)
x = torch.ones(1, 3)
print(m(x).shape, type(m.parametrizations.weight[0]).__name__)
#%% weight_norm old api
with_old = U.weight_norm(nn.Linear(3, 2), name="weight", dim=0)
print(sorted(n for n, _ in with_old.named_parameters()), with_old.weight_g.shape)
U.remove_weight_norm(with_old)
print(sorted(n for n, _ in with_old.named_parameters()))
#%% spectral_norm
torch.manual_seed(0)
m = spectral_norm(nn.Linear(4, 4))
m.eval()
s = torch.linalg.svdvals(m.weight.detach())[0]
print(sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers()))
print(bool(s < 1.5))
#%% orthogonal
torch.manual_seed(0)
m = orthogonal(nn.Linear(3, 3))
W = m.weight.detach()
print(torch.allclose(W @ W.T, torch.eye(3), atol=1e-5))
print(sorted(n for n, _ in m.named_parameters()))
#%% parametrize remove
import torch.nn.utils.parametrize as P
m = weight_norm(nn.Linear(2, 2))
w = m.weight.detach().clone()
P.remove_parametrizations(m, "weight")
print(torch.allclose(m.weight, w), P.is_parametrized(m), sorted(n for n, _ in m.named_parameters()))
#%% prune l1
m = nn.Linear(4, 1)
with torch.no_grad():
    m.weight.copy_(torch.tensor([[0.1, -2.0, 0.3, 4.0]]))
prune.l1_unstructured(m, "weight", amount=0.5)
print(m.weight, sorted(n for n, _ in m.named_buffers()), sorted(n for n, _ in m.named_parameters()))
print(prune.is_pruned(m))
prune.remove(m, "weight")
print(sorted(n for n, _ in m.named_parameters()), prune.is_pruned(m))
#%% prune random and structured
torch.manual_seed(0)
m = nn.Linear(3, 4)
prune.ln_structured(m, "weight", amount=2, n=2, dim=0)
print(int((m.weight_mask.sum(1) == 0).sum()), m.weight_mask.shape)
prune.random_unstructured(m, "bias", amount=0.25)
print(int(m.bias_mask.sum()))
#%% prune global
a, b = nn.Linear(2, 2), nn.Linear(2, 2)
with torch.no_grad():
    a.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    b.weight.copy_(torch.tensor([[0.5, 5.0], [6.0, 0.1]]))
prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=3)
print(a.weight_mask, b.weight_mask)
#%% prune bad amount
try:
    prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=10)
except Exception as e:
    print(type(e).__name__, e)
#%% pad_sequence
seqs = [torch.tensor([1, 2, 3]), torch.tensor([4]), torch.tensor([5, 6])]
print(pad_sequence(seqs))
print(pad_sequence(seqs, batch_first=True, padding_value=-1))
print(pad_sequence(seqs, batch_first=True, padding_side="left"))
#%% pack_padded_sequence
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 0.0], [6.0, 0.0, 0.0]])
p = pack_padded_sequence(x, torch.tensor([3, 2, 1]), batch_first=True)
print(p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices)
out, lens = pad_packed_sequence(p, batch_first=True, total_length=4)
print(out, lens)
#%% pack unsorted
x = torch.tensor([[1.0, 0.0], [2.0, 3.0]])
try:
    pack_padded_sequence(x, [1, 2], batch_first=True)
except Exception as e:
    print(type(e).__name__, str(e)[:100])
p = pack_padded_sequence(x, [1, 2], batch_first=True, enforce_sorted=False)
print(p.data, p.sorted_indices, p.unsorted_indices)
#%% pack_sequence through LSTM
torch.manual_seed(0)
lstm = nn.LSTM(1, 2, batch_first=True)
seqs = [torch.randn(3, 1), torch.randn(1, 1), torch.randn(2, 1)]
packed = pack_sequence(seqs, enforce_sorted=False)
out, (h, c) = lstm(packed)
print(type(out).__name__, out.data.shape, h.shape)
padded, lens = pad_packed_sequence(out, batch_first=True)
print(padded.shape, lens, bool((padded[1, 1:] == 0).all()))
print([t.shape for t in unpack_sequence(out)])
print([t.tolist() for t in unpad_sequence(pad_sequence([torch.tensor([1, 2]), torch.tensor([3])], batch_first=True), torch.tensor([2, 1]), batch_first=True)])
#%% packed sequence to and repr fields
p = pack_sequence([torch.tensor([1.0, 2.0]), torch.tensor([3.0])])
print(p.to(torch.float64).data.dtype, p.is_cuda, len(p))
print(p)
#%% lengths errors
try:
    pack_padded_sequence(torch.zeros(2, 3), torch.tensor([0, 0]), batch_first=True)
except Exception as e:
    print(type(e).__name__, e)
#%% fuse conv bn
from torch.nn.utils import fuse_conv_bn_eval, fuse_linear_bn_eval
torch.manual_seed(0)
conv = nn.Conv2d(2, 3, 3).eval()
bn = nn.BatchNorm2d(3).eval()
bn.running_mean.uniform_(); bn.running_var.uniform_(0.5, 2)
x = torch.randn(1, 2, 5, 5)
fused = fuse_conv_bn_eval(conv, bn)
print(type(fused).__name__, torch.allclose(fused(x), bn(conv(x)), atol=1e-5))
lin, bn1 = nn.Linear(3, 2).eval(), nn.BatchNorm1d(2).eval()
print(torch.allclose(fuse_linear_bn_eval(lin, bn1)(torch.ones(1, 3)), bn1(lin(torch.ones(1, 3))), atol=1e-6))
#%% skip_init and convert_conv
m = U.skip_init(nn.Linear, 3, 2)
print(m.weight.shape, type(m).__name__)
#%% stateless functional_call
from torch.nn.utils import stateless
m = nn.Linear(1, 1)
print(stateless.functional_call(m, {"weight": torch.tensor([[2.0]]), "bias": torch.tensor([1.0])}, torch.tensor([[3.0]])))
