import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence, unpad_sequence, unpack_sequence


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0 if t.is_floating_point() else t


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% pad and pack
seqs = [torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])]
padded = pad_sequence(seqs, batch_first=True)
print(padded, pad_sequence(seqs), pad_sequence(seqs, padding_value=-1, batch_first=True))
print(pad_sequence(seqs, batch_first=True, padding_side="left"))
lengths = torch.tensor([3, 2, 1])
packed = pack_padded_sequence(padded, lengths, batch_first=True)
print(packed)
print(packed.data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
out, lens = pad_packed_sequence(packed, batch_first=True)
print(out, lens)
out, lens = pad_packed_sequence(packed, batch_first=True, total_length=5, padding_value=9)
print(out, lens)
p2 = pack_padded_sequence(pad_sequence([seqs[1], seqs[0], seqs[2]], batch_first=True), [2, 3, 1], batch_first=True, enforce_sorted=False)
print(p2.data, p2.sorted_indices, p2.unsorted_indices)
print(pad_packed_sequence(p2, batch_first=True))
show(lambda: pack_padded_sequence(padded, [2, 3, 1], batch_first=True))
show(lambda: pack_padded_sequence(padded, [3, 2, 0], batch_first=True))
show(lambda: pack_padded_sequence(padded, [3, 2], batch_first=True))
ps = pack_sequence([torch.tensor([1., 2.]), torch.tensor([3.]), torch.tensor([4., 5., 6.])], enforce_sorted=False)
print(ps.data, ps.batch_sizes)
print(unpack_sequence(ps))
print(unpad_sequence(padded, lengths, batch_first=True))
show(lambda: pack_sequence([torch.tensor([1.]), torch.tensor([3., 4.])]))
#%% packed through LSTM/GRU
torch.manual_seed(0)
emb = nn.Embedding(10, 4, padding_idx=0)
lstm = nn.LSTM(4, 3, batch_first=True)
x = torch.tensor([[1, 2, 3, 0], [4, 5, 0, 0]])
e = emb(x)
print(r(e[1, 3]), e.shape)
pk = pack_padded_sequence(e, torch.tensor([3, 2]), batch_first=True)
out, (h, c) = lstm(pk)
o, l = pad_packed_sequence(out, batch_first=True)
print(o.shape, l, r(o[1, 2]), h.shape, c.shape)
print(torch.allclose(h[0], o[torch.arange(2), l - 1]))
gru = nn.GRU(4, 2, num_layers=2, bidirectional=True)
out, h = gru(pack_padded_sequence(e.transpose(0, 1), [3, 2]))
print(type(out).__name__, out.data.shape, h.shape)
o, l = pad_packed_sequence(out)
print(o.shape, r(o[2, 1]), l)
rnn = nn.RNN(4, 2, nonlinearity='relu')
show(lambda: rnn(e).__class__)
show(lambda: nn.RNN(4, 2, nonlinearity='gelu'))
show(lambda: lstm(torch.randn(2, 3, 5)))
show(lambda: lstm(torch.randn(2, 3, 4), (torch.zeros(1, 2, 3),)))
show(lambda: lstm(torch.randn(2, 3, 4), (torch.zeros(1, 3, 3), torch.zeros(1, 3, 3))))
#%% embeddings
torch.manual_seed(1)
E = nn.Embedding(5, 3, padding_idx=2)
print(r(E.weight))
out = E(torch.tensor([[0, 2], [2, 4]]))
out.sum().backward()
print(E.weight.grad)
E2 = nn.Embedding(4, 3, max_norm=1.0)
with torch.no_grad():
    E2.weight.mul_(5)
print(r(E2(torch.tensor([1, 1, 3])).norm(dim=1)))
print(r(E2.weight.norm(dim=1)))
E3 = nn.Embedding.from_pretrained(torch.arange(12.).view(4, 3))
print(E3.weight.requires_grad, E3(torch.tensor([3, 0])))
E4 = nn.Embedding.from_pretrained(torch.arange(12.).view(4, 3), freeze=False, padding_idx=0)
print(E4.weight.requires_grad, E4.padding_idx, E4)
print(nn.Embedding(3, 2, padding_idx=-1).padding_idx)
show(lambda: nn.Embedding(3, 2, padding_idx=3))
show(lambda: E(torch.tensor([5])))
show(lambda: E(torch.tensor([-1])))
bag = nn.EmbeddingBag(5, 2, mode='sum')
with torch.no_grad():
    bag.weight.copy_(torch.arange(10.).view(5, 2))
print(bag(torch.tensor([0, 1, 2, 3]), torch.tensor([0, 1])))
print(nn.EmbeddingBag.from_pretrained(bag.weight, mode='max')(torch.tensor([[0, 4], [1, 2]])))
print(torch.nn.functional.one_hot(torch.tensor([0, 2, 1])), torch.nn.functional.one_hot(torch.tensor([1]), 4))
show(lambda: torch.nn.functional.one_hot(torch.tensor([3]), 3))
show(lambda: torch.nn.functional.one_hot(torch.tensor([1.0])))
