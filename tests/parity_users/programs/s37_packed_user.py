import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence, pack_sequence, pad_sequence
#%% packed sequence object
seqs = [torch.arange(1., 4.), torch.arange(4., 6.), torch.tensor([6.])]
p = pack_sequence(seqs)
print(type(p).__name__, p._fields if hasattr(p, '_fields') else None, isinstance(p, tuple))
print(p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices)
print(p.is_cuda, p.data.dtype, p.to(torch.float64).data.dtype, p.double().data.dtype)
d, bs, si, ui = p
print(d.shape, bs.dtype)
q = pack_sequence([torch.tensor([1.]), torch.arange(2., 5.)], enforce_sorted=False)
print(q.sorted_indices, q.unsorted_indices, q.data)
print(pad_packed_sequence(q))
print(pad_packed_sequence(q, batch_first=True, padding_value=-9.))
show(lambda: pack_padded_sequence(torch.zeros(3, 2), [3, 3, 2]))
show(lambda: pack_padded_sequence(torch.zeros(3, 2), torch.tensor([[3, 2]])))
show(lambda: pack_padded_sequence(torch.zeros(3, 2), torch.tensor([2, 3])))
#%% rnn over packed batch
torch.manual_seed(0)
rnn = nn.GRU(2, 3, batch_first=True)
x = torch.randn(3, 4, 2)
lens = torch.tensor([4, 2, 3])
pk = pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False)
out, h = rnn(pk)
o, l = pad_packed_sequence(out, batch_first=True)
print(type(out).__name__, r(o), l, r(h))
lstm = nn.LSTM(2, 2, num_layers=2, bidirectional=True)
pk2 = pack_sequence([torch.randn(3, 2), torch.randn(1, 2)])
out2, (h2, c2) = lstm(pk2)
print(out2.data.shape, h2.shape, r(pad_packed_sequence(out2)[0][:, 1]))
emb = nn.Embedding(10, 2, padding_idx=0)
tok = pad_sequence([torch.tensor([3, 4, 5]), torch.tensor([7])], batch_first=True)
print(tok, r(emb(tok)[1]))
