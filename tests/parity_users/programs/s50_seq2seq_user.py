import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

PAD, SOS, EOS = 0, 1, 2


class Encoder(nn.Module):
    def __init__(self, vocab, emb, hid):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=PAD)
        self.rnn = nn.GRU(emb, hid, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hid, hid)

    def forward(self, src, lengths):
        packed = pack_padded_sequence(self.emb(src), lengths, batch_first=True, enforce_sorted=False)
        out, h = self.rnn(packed)
        out, lens = pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        h = torch.tanh(self.fc(torch.cat([h[-2], h[-1]], dim=1)))
        return out, h, lens


class Decoder(nn.Module):
    def __init__(self, vocab, emb, hid):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=PAD)
        self.attn = nn.Linear(3 * hid, hid)
        self.v = nn.Linear(hid, 1, bias=False)
        self.rnn = nn.GRUCell(emb + 2 * hid, hid)
        self.out = nn.Linear(hid, vocab)

    def forward(self, tok, h, enc, mask):
        T = enc.shape[1]
        e = self.v(torch.tanh(self.attn(torch.cat([h.unsqueeze(1).expand(-1, T, -1), enc], 2)))).squeeze(2)
        a = e.masked_fill(~mask, float("-inf")).softmax(1)
        ctx = torch.bmm(a.unsqueeze(1), enc).squeeze(1)
        h = self.rnn(torch.cat([self.emb(tok), ctx], 1), h)
        return self.out(h), h, a


torch.manual_seed(0)
V, E, H = 12, 6, 8
seqs = [torch.randint(3, V, (n,)) for n in (5, 3, 4, 2)]
src = pad_sequence(seqs, batch_first=True, padding_value=PAD)
lengths = torch.tensor([len(s) for s in seqs])
tgt = torch.cat([torch.full((4, 1), SOS), src.flip(1)], 1)
enc, dec = Encoder(V, E, H), Decoder(V, E, H)

#%% packed bidirectional GRU encoder: shapes, padding zeros, lengths
out, h, lens = enc(src, lengths)
print(src.tolist(), lens.tolist())
print(out.shape, h.shape, out[1, 3:].abs().sum().item(), f"{out.sum().item():.5f}")

#%% teacher-forced training with attention, ignore_index and gradient clipping
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
mask = src != PAD
for step in range(5):
    enc_out, h, _ = enc(src, lengths)
    loss = 0.0
    for t in range(tgt.shape[1] - 1):
        logits, h, a = dec(tgt[:, t], h, enc_out, mask)
        loss = loss + F.cross_entropy(logits, tgt[:, t + 1], ignore_index=PAD)
    opt.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(list(enc.parameters()) + list(dec.parameters()), 0.5)
    opt.step()
    print(step, f"{loss.item():.4f} {norm.item():.4f}")
print(a[1].round(decimals=3).tolist())

#%% greedy decoding until EOS with a done mask
with torch.no_grad():
    enc_out, h, _ = enc(src, lengths)
    tok = torch.full((4,), SOS)
    done = torch.zeros(4, dtype=torch.bool)
    outs = []
    for _ in range(6):
        logits, h, _ = dec(tok, h, enc_out, mask)
        tok = logits.argmax(1).masked_fill(done, PAD)
        done |= tok == EOS
        outs.append(tok)
print(torch.stack(outs, 1).tolist())

#%% beam-search bookkeeping with topk over flattened scores
torch.manual_seed(1)
scores = torch.randn(2, 3, V).log_softmax(-1)
beam = torch.tensor([[0.0, -1.0, -2.0], [-0.5, -0.7, -3.0]])
total = (beam.unsqueeze(-1) + scores).view(2, -1)
best, idx = total.topk(3, dim=1)
print(best.round(decimals=4).tolist(), (idx // V).tolist(), (idx % V).tolist())
print(torch.div(idx, V, rounding_mode="floor").equal(idx // V))

#%% LSTM with proj_size and initial states, batch_first
torch.manual_seed(2)
lstm = nn.LSTM(5, 7, num_layers=2, proj_size=3, batch_first=True)
x = torch.randn(2, 4, 5)
h0, c0 = torch.zeros(2, 2, 3), torch.randn(2, 2, 7)
y, (hn, cn) = lstm(x, (h0, c0))
print(y.shape, hn.shape, cn.shape, f"{y.sum().item():.5f} {cn.sum().item():.5f}")
print([(n, tuple(p.shape)) for n, p in lstm.named_parameters()][:5])
y.sum().backward()
print(f"{lstm.weight_hr_l0.grad.norm().item():.5f}")
