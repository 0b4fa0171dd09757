import torch
import torch.nn as nn
import torch.nn.utils.rnn as R


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% bidirectional gru on packed batch
torch.manual_seed(0)
gru = nn.GRU(2, 3, num_layers=2, bidirectional=True, batch_first=True, dropout=0.0)
x = torch.randn(3, 4, 2)
lengths = torch.tensor([2, 4, 1])
pk = R.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
h0 = torch.zeros(4, 3, 3)
out, h = gru(pk, h0)
o, l = R.pad_packed_sequence(out, batch_first=True)
print(o.shape, l, r(h[-1]), r(o[2, 0]))
o.sum().backward()
print(r(gru.weight_ih_l1_reverse.grad.abs().sum()), gru.weight_ih_l1_reverse.shape)
show(lambda: gru(x, torch.zeros(2, 3, 3)))
show(lambda: gru(x[0]))
print(gru(x[0])[0].shape, gru(x[0])[1].shape)
#%% lstm proj and rnn nonlinearity
torch.manual_seed(1)
lstm = nn.LSTM(3, 4, proj_size=2, num_layers=1)
x = torch.randn(5, 2, 3)
out, (h, c) = lstm(x)
print(out.shape, h.shape, c.shape, r(out[-1]))
show(lambda: nn.LSTM(3, 4, proj_size=4))
rnn = nn.RNN(2, 2, nonlinearity='relu', bias=False)
print(r(rnn(torch.ones(3, 1, 2))[0].squeeze(1)), [n for n, _ in rnn.named_parameters()])
show(lambda: nn.RNN(2, 2, nonlinearity='gelu'))
cell = nn.GRUCell(2, 3)
print(cell(torch.ones(2)).shape, cell(torch.ones(4, 2)).shape)
show(lambda: cell(torch.ones(2, 2), torch.zeros(3, 3)))
lc = nn.LSTMCell(2, 3)
h, c = lc(torch.ones(1, 2))
print(h.shape, c.shape)
#%% transformer with masks
torch.manual_seed(2)
layer = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0, batch_first=True, norm_first=True)
enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
src = torch.randn(2, 5, 4)
mask = nn.Transformer.generate_square_subsequent_mask(5)
pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
out = enc(src, mask=mask, src_key_padding_mask=pad)
print(out.shape, r(out[1, 0]), mask)
out2 = enc(src, is_causal=True, mask=mask)
print(r(out2[0, -1]))
mha = nn.MultiheadAttention(4, 2, batch_first=True, kdim=3, vdim=5)
q = torch.randn(2, 3, 4)
k = torch.randn(2, 6, 3)
v = torch.randn(2, 6, 5)
o, w = mha(q, k, v, need_weights=True, average_attn_weights=False)
print(o.shape, w.shape, r(w.sum(-1)))
o, w = mha(q, k, v, key_padding_mask=torch.tensor([[0, 0, 0, 0, 1, 1]] * 2).bool())
print(r(w[0, :, 4:]))
show(lambda: mha(q, k, v, attn_mask=torch.zeros(4, 6)))
show(lambda: mha(q, k[:, :, :2], v))
show(lambda: mha(q, k, v[:, :, :4]))
