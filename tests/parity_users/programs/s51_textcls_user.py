import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence


def r(t, n=4):
    if isinstance(t, torch.Tensor):
        return t.detach().round(decimals=n).tolist()
    return round(float(t), n)


VOCAB = {w: i + 1 for i, w in enumerate("the a cat dog sat ran on mat fast slow big small".split())}
SENTS = ["the cat sat on the mat", "a dog ran fast", "the big dog sat", "a small cat ran slow",
         "the mat", "dog ran on the big mat fast"]
LABELS = torch.tensor([0, 1, 1, 0, 0, 1])


def encode(s):
    return torch.tensor([VOCAB[w] for w in s.split()])

#%% bag-of-words with EmbeddingBag offsets and per-sample weights
torch.manual_seed(0)
toks = [encode(s) for s in SENTS]
flat = torch.cat(toks)
offsets = torch.tensor([0] + [len(t) for t in toks[:-1]]).cumsum(0)
bag = nn.EmbeddingBag(len(VOCAB) + 1, 4, mode="mean")
print(offsets.tolist(), r(bag(flat, offsets)))
bag_sum = nn.EmbeddingBag.from_pretrained(bag.weight.detach(), mode="sum", padding_idx=0)
w = torch.rand(flat.shape)
print(r(bag_sum(flat, offsets, per_sample_weights=w)))
print(r(nn.EmbeddingBag(13, 3, mode="max")(torch.tensor([[1, 2], [3, 3]]))))

#%% a bidirectional GRU over padded, packed batches (unsorted lengths)
torch.manual_seed(1)
toks = [encode(s) for s in SENTS]
lengths = torch.tensor([len(t) for t in toks])
padded = pad_sequence(toks, batch_first=True)
emb = nn.Embedding(len(VOCAB) + 1, 5, padding_idx=0)
gru = nn.GRU(5, 6, batch_first=True, bidirectional=True)
head = nn.Linear(12, 2)
packed = pack_padded_sequence(emb(padded), lengths, batch_first=True, enforce_sorted=False)
out, h = gru(packed)
unpacked, lens = pad_packed_sequence(out, batch_first=True)
feat = torch.cat([h[0], h[1]], dim=1)
logits = head(feat)
loss = F.cross_entropy(logits, LABELS)
loss.backward()
print(padded.shape, unpacked.shape, lens.tolist(), packed.batch_sizes.tolist())
print(r(loss), r(emb.weight.grad[0]), r(gru.weight_hh_l0_reverse.grad.norm()))
print(r(unpacked[4, 2:]), packed.sorted_indices.tolist())

#%% a tiny training loop with gradient clipping and accuracy
torch.manual_seed(2)
toks = [encode(s) for s in SENTS]
lengths = torch.tensor([len(t) for t in toks])
padded = pad_sequence(toks, batch_first=True)
emb = nn.Embedding(len(VOCAB) + 1, 8, padding_idx=0)
lstm = nn.LSTM(8, 8, batch_first=True)
head = nn.Linear(8, 2)
params = [*emb.parameters(), *lstm.parameters(), *head.parameters()]
opt = torch.optim.Adam(params, lr=0.05)
for step in range(15):
    packed = pack_padded_sequence(emb(padded), lengths, batch_first=True, enforce_sorted=False)
    _, (h, c) = lstm(packed)
    logits = head(h[-1])
    loss = F.cross_entropy(logits, LABELS, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    if step % 5 == 4:
        print(step, r(loss), r(norm))
print((logits.argmax(1) == LABELS).float().mean().item())

#%% mistakes: wrong lengths order with enforce_sorted, index out of vocab, bad padding value
toks = [encode(s) for s in SENTS[:3]]
x = pad_sequence(toks, batch_first=True, padding_value=-1)
print(x.tolist())
try:
    pack_padded_sequence(torch.zeros(3, 6, 2), torch.tensor([4, 6, 4]), batch_first=True)
except RuntimeError as e:
    print(type(e).__name__, str(e).split("\n")[0])
try:
    nn.Embedding(5, 2)(torch.tensor([1, 7]))
except IndexError as e:
    print(type(e).__name__, e)
try:
    pack_padded_sequence(torch.zeros(3, 6, 2), torch.tensor([4, 0, 2]), batch_first=True,
                         enforce_sorted=False)
except RuntimeError as e:
    print(type(e).__name__, str(e).split("\n")[0])
