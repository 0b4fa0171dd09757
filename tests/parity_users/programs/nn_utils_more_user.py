import torch
import torch.nn as nn
import torch.nn.utils as U
from torch.nn.utils import parametrize, prune
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence, unpad_sequence, unpack_sequence
#%% pack padded through GRU and back
torch.manual_seed(0)
gru = nn.GRU(3, 4, batch_first=True)
x = torch.randn(3, 5, 3)
lengths = torch.tensor([5, 2, 3])
packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices, packed.data.shape)
out, h = gru(packed)
pad, lens = pad_packed_sequence(out, batch_first=True, total_length=6)
print(pad.shape, lens, pad[1, 2:].abs().sum().item(), h.shape)
print(torch.allclose(h[0, 1], pad[1, 1]))
#%% pad_sequence variants
seqs = [torch.tensor([1, 2, 3]), torch.tensor([4]), torch.tensor([5, 6])]
print(pad_sequence(seqs), pad_sequence(seqs, batch_first=True, padding_value=-1))
print(pad_sequence(seqs, batch_first=True, padding_side="left"))
print(unpad_sequence(pad_sequence(seqs, batch_first=True), torch.tensor([3, 1, 2]), batch_first=True))
ps = pack_sequence(seqs, enforce_sorted=False)
print(ps)
print(unpack_sequence(ps))
try:
    pack_sequence(seqs)
except RuntimeError as e:
    print(e)
#%% packed sequence errors and corner lengths
x = torch.randn(4, 2, 3)
for lengths in ([4, 0], torch.tensor([[4, 1]]), [1, 4]):
    try:
        p = pack_padded_sequence(x, lengths)
        print(p.batch_sizes)
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, e)
try:
    pack_padded_sequence(x, torch.tensor([4.0, 2.0]))
    print("float lengths ok")
except Exception as e:
    print(type(e).__name__, e)
#%% clip_grad_norm_ with foreach and norm types
torch.manual_seed(1)
m = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
m(torch.randn(5, 4)).pow(2).sum().backward()
grads = [p.grad.clone() for p in m.parameters()]
for nt in (2.0, 1, float("inf"), 0.5, "inf"):
    for p, g in zip(m.parameters(), grads):
        p.grad = g.clone()
    try:
        tn = U.clip_grad_norm_(m.parameters(), max_norm=0.5, norm_type=nt)
        print(nt, round(tn.item(), 3), m[0].bias.grad)
    except Exception as e:
        print(nt, type(e).__name__, e)
print(U.clip_grad_norm_([], 1.0), U.clip_grad_norm_(torch.nn.Parameter(torch.ones(2)), 1.0))
#%% clip_grad_norm_ nonfinite
p = nn.Parameter(torch.ones(2))
p.grad = torch.tensor([float("nan"), 1.0])
print(U.clip_grad_norm_([p], 1.0), p.grad)
p.grad = torch.tensor([float("inf"), 1.0])
try:
    U.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print(e)
print(U.get_total_norm([torch.tensor([3.0, 4.0]), torch.tensor([12.0])]))
ts = [torch.tensor([3.0, 4.0])]
q = nn.Parameter(torch.zeros(2))
q.grad = torch.tensor([3.0, 4.0])
U.clip_grads_with_norm_([q], 1.0, torch.tensor(5.0))
print(q.grad)
#%% weight_norm parametrization values and grads
torch.manual_seed(2)
lin = nn.Linear(3, 2)
wn = nn.utils.parametrizations.weight_norm(lin)
print(wn)
print(sorted(n for n, _ in wn.named_parameters()))
print(wn.parametrizations.weight.original0.shape, wn.parametrizations.weight.original1.shape)
out = wn(torch.ones(1, 3)).sum()
out.backward()
print(wn.parametrizations.weight.original0.grad, wn.parametrizations.weight.original1.grad)
print(list(wn.state_dict().keys()))
#%% old weight_norm with dim None and remove
torch.manual_seed(3)
c = nn.Conv1d(2, 3, 2)
c = nn.utils.weight_norm(c, dim=None)
print(c.weight_g.shape, c.weight_v.shape, sorted(c.state_dict().keys()))
c = nn.utils.remove_weight_norm(c)
print(sorted(c.state_dict().keys()))
try:
    nn.utils.remove_weight_norm(c)
except ValueError as e:
    print(e)
#%% spectral_norm power iterations seeded
torch.manual_seed(4)
lin = nn.Linear(4, 3)
sn = nn.utils.parametrizations.spectral_norm(lin)
w1 = sn.weight.detach().clone()
sn(torch.randn(2, 4))
sn.eval()
w2 = sn.weight
print(round(torch.linalg.matrix_norm(w2, 2).item(), 5), sorted(k for k in sn.state_dict()))
torch.manual_seed(4)
lin2 = nn.Linear(4, 3)
old = nn.utils.spectral_norm(lin2, n_power_iterations=3)
old(torch.randn(2, 4))
print(sorted(old.state_dict().keys()), old.weight_u.shape)
#%% custom parametrization register and cache
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(0, 1)
    def right_inverse(self, A):
        return A.triu()
lin = nn.Linear(3, 3)
parametrize.register_parametrization(lin, "weight", Symmetric())
print(torch.equal(lin.weight, lin.weight.T), parametrize.is_parametrized(lin), parametrize.is_parametrized(lin, "bias"))
lin.weight = torch.eye(3) * 2
print(lin.parametrizations.weight.original)
with parametrize.cached():
    print(lin.weight is lin.weight)
print(lin.weight is lin.weight)
parametrize.remove_parametrizations(lin, "weight", leave_parametrized=False)
print(type(lin.weight).__name__, lin.weight)
try:
    parametrize.remove_parametrizations(lin, "weight")
except ValueError as e:
    print(e)
#%% parametrization errors
class Bad(nn.Module):
    def forward(self, X):
        return X[0]
lin = nn.Linear(2, 2)
try:
    parametrize.register_parametrization(lin, "weight", Bad())
except ValueError as e:
    print(str(e)[:150])
try:
    parametrize.register_parametrization(lin, "nothing", Symmetric() if False else nn.Identity())
except (ValueError, AttributeError) as e:
    print(type(e).__name__, str(e)[:120])
#%% orthogonal parametrization
torch.manual_seed(5)
lin = nn.Linear(4, 4)
o = nn.utils.parametrizations.orthogonal(lin)
w = o.weight
print(torch.allclose(w @ w.T, torch.eye(4), atol=1e-5), sorted(n for n, _ in o.named_parameters()))
#%% prune methods masks
torch.manual_seed(6)
lin = nn.Linear(4, 3)
prune.l1_unstructured(lin, "weight", amount=0.5)
print(lin.weight_mask, sorted(n for n, _ in lin.named_buffers()), sorted(n for n, _ in lin.named_parameters()))
prune.ln_structured(lin, "weight", amount=1, n=2, dim=0)
print(lin.weight_mask)
print(list(lin._forward_pre_hooks.values())[0].__class__.__name__)
prune.remove(lin, "weight")
print(sorted(n for n, _ in lin.named_parameters()), prune.is_pruned(lin))
#%% prune random seeded and custom mask
torch.manual_seed(7)
lin = nn.Linear(5, 2)
prune.random_unstructured(lin, "weight", amount=3)
print(lin.weight_mask)
prune.random_structured(lin, "bias", amount=0.5, dim=0)
print(lin.bias_mask)
prune.custom_from_mask(lin, "weight", torch.tensor([[1, 0, 1, 0, 1], [0, 1, 0, 1, 0]]))
print(lin.weight_mask, lin.weight_orig.shape)
try:
    prune.l1_unstructured(lin, "weight", amount=20)
except ValueError as e:
    print(e)
try:
    prune.l1_unstructured(lin, "weight", amount=-0.1)
except ValueError as e:
    print(e)
#%% global pruning over two layers
torch.manual_seed(8)
net = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 2))
prune.global_unstructured([(net[0], "weight"), (net[1], "weight")], pruning_method=prune.L1Unstructured, amount=0.4)
print(int(net[0].weight_mask.sum()), int(net[1].weight_mask.sum()))
print(net[0].weight_mask)
#%% functional_call with tied and partial params
torch.manual_seed(9)
m = nn.Linear(2, 2)
x = torch.ones(1, 2)
new = {"weight": torch.eye(2)}
print(torch.func.functional_call(m, new, (x,)))
print(torch.func.functional_call(m, ({"weight": torch.zeros(2, 2)}, {"bias": torch.ones(2)}), x))
try:
    torch.func.functional_call(m, {"weight": torch.eye(2), "bogus": torch.ones(1)}, (x,), strict=True)
except RuntimeError as e:
    print(e)
try:
    torch.func.functional_call(m, ({"weight": torch.eye(2)}, {"weight": torch.eye(2)}), (x,))
except ValueError as e:
    print(e)
print(torch.nn.utils.stateless.functional_call(m, {"bias": torch.tensor([5.0, 6.0])}, x, kwargs=None) - m(x))
#%% parameters_to_vector and skip_init and fusion
torch.manual_seed(10)
m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
v = U.parameters_to_vector(m.parameters())
print(v.shape)
U.vector_to_parameters(torch.arange(9.0), m.parameters())
print(m[0].weight, m[1].bias)
try:
    U.vector_to_parameters(torch.arange(8.0), m.parameters())
except Exception as e:
    print(type(e).__name__, e)
s = nn.utils.skip_init(nn.Linear, 2, 3)
print(s.weight.shape, s)
