import torch
import torch.nn as nn
import string
#%% char rnn name classification style
alphabet = string.ascii_lowercase + "-' "
index_of = {ch: k for k, ch in enumerate(alphabet)}


def one_hot_word(word):
    """(letters, 1, alphabet) one-hot codes of a lower-cased word."""
    codes = torch.tensor([index_of[ch] for ch in word.lower()])
    return nn.functional.one_hot(codes, len(alphabet)).float().unsqueeze(1)


print(one_hot_word("J").nonzero(), one_hot_word("Okafor").size())


class CharCell(nn.Module):
    def __init__(self, n_in, n_state, n_classes):
        super().__init__()
        self.n_state = n_state
        self.update = nn.Linear(n_in + n_state, n_state)
        self.readout = nn.Sequential(nn.Linear(n_state, n_classes), nn.LogSoftmax(dim=1))

    def forward(self, letter, state):
        state = torch.tanh(self.update(torch.cat((letter, state), 1)))
        return self.readout(state), state

    def zero_state(self):
        return torch.zeros(1, self.n_state)


torch.manual_seed(0)
cell = CharCell(len(alphabet), 16, 3)
state = cell.zero_state()
for letter in one_hot_word("Nakamura"):
    scores, state = cell(letter, state)
print(scores.shape, scores.exp().sum().round(decimals=4))
best, which = scores.topk(1)
print(which.shape, which[0].item() in (0, 1, 2), type(which[0].item()).__name__)
loss = nn.NLLLoss()(scores, torch.tensor([2]))
loss.backward()
print(cell.update.weight.grad.shape, loss.dim(), loss.requires_grad)
#%% vocab and embedding bag text classifier
texts = ["the cat sat", "the dog ran fast", "a cat ran"]
vocab = {w: i for i, w in enumerate(sorted({w for t in texts for w in t.split()}))}
print(vocab)
ids = [torch.tensor([vocab[w] for w in t.split()], dtype=torch.int64) for t in texts]
offsets = torch.tensor([0] + [len(t) for t in ids[:-1]]).cumsum(dim=0)
flat = torch.cat(ids)
print(flat, offsets)
torch.manual_seed(0)
emb = nn.EmbeddingBag(len(vocab), 4, mode='mean')
fc = nn.Linear(4, 2)
out = fc(emb(flat, offsets))
print(out.shape, emb(flat, offsets).shape)
print(nn.EmbeddingBag(len(vocab), 4, mode='sum')(flat, offsets, per_sample_weights=torch.ones(len(flat))).shape)
try:
    emb(flat, offsets, per_sample_weights=torch.ones(len(flat)))
except Exception as e:
    print(type(e).__name__, str(e).split('\n')[0])
try:
    emb(flat.view(2, -1) if len(flat) % 2 == 0 else flat[:-1].view(2, -1), offsets)
except Exception as e:
    print(type(e).__name__, str(e).split('\n')[0])
try:
    emb(flat.float(), offsets)
except Exception as e:
    print(type(e).__name__, str(e).split('\n')[0])
mask = (torch.arange(4)[None, :] < torch.tensor([3, 4, 3])[:, None])
print(mask, mask.sum(1), (~mask).any(1))
padded = nn.utils.rnn.pad_sequence(ids, batch_first=True, padding_value=len(vocab))
print(padded)
e2 = nn.Embedding(len(vocab) + 1, 3, padding_idx=len(vocab))
v = e2(padded)
print(v.shape, v[0, 3].abs().sum(), (v * mask.unsqueeze(-1)).sum(1).shape)
print(v.masked_fill(~mask.unsqueeze(-1), float('-inf')).max(1).values.shape)
