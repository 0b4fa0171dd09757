import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence
#%% pad and pack variable-length sequences through a GRU
torch.manual_seed(0)
seqs = [torch.randn(n, 3) for n in (4, 2, 3)]
lengths = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True)
print(padded.shape, pad_sequence(seqs).shape, pad_sequence(seqs, padding_value=-1.0, padding_side="left")[0, :, 0].shape)
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices, type(packed).__name__)
gru = nn.GRU(3, 5, batch_first=True)
out, h = gru(packed)
unpacked, lens = pad_packed_sequence(out, batch_first=True)
print(unpacked.shape, lens, h.shape, torch.allclose(unpacked[1, 2:], torch.zeros(2, 5)))
#%% errors of packing
try:
    pack_padded_sequence(padded, torch.tensor([2, 4, 3]), batch_first=True)
except RuntimeError as e:
    print(str(e)[:200])
try:
    pack_padded_sequence(padded, torch.tensor([4, 0, 3]), batch_first=True, enforce_sorted=False)
except RuntimeError as e:
    print(str(e)[:200])
print(pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])]).data)
#%% LSTM with initial state, bidirectional, dropout warning
torch.manual_seed(1)
lstm = nn.LSTM(2, 3, num_layers=2, bidirectional=True)
x = torch.randn(5, 1, 2)
o, (h, c) = lstm(x, (torch.zeros(4, 1, 3), torch.zeros(4, 1, 3)))
print(o.shape, h.shape, c.shape, [n for n, _ in lstm.named_parameters()][:5])
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    nn.LSTM(2, 3, dropout=0.5)
print([str(x.message)[:120] for x in w])
try:
    lstm(torch.randn(5, 1, 3))
except RuntimeError as e:
    print(str(e))
