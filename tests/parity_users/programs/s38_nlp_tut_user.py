import torch
import torch.nn as nn
import string
#%% char rnn name classification style
all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)


def letterToTensor(letter):
    tensor = torch.zeros(1, n_letters)
    tensor[0][all_letters.find(letter)] = 1
    return tensor


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


print(letterToTensor('J').nonzero(), lineToTensor('Jones').size())


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = torch.tanh(self.i2h(combined))
        output = self.softmax(self.h2o(hidden))
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


torch.manual_seed(0)
rnn = RNN(n_letters, 16, 3)
hidden = rnn.initHidden()
line = lineToTensor('Albert')
for i in range(line.size()[0]):
    output, hidden = rnn(line[i], hidden)
print(output.shape, output.exp().sum().round(decimals=4))
top_n, top_i = output.topk(1)
print(top_i.shape, top_i[0].item() in (0, 1, 2), type(top_i[0].item()).__name__)
criterion = nn.NLLLoss()
loss = criterion(output, torch.tensor([1]))
loss.backward()
print(rnn.i2h.weight.grad.shape, loss.dim(), loss.requires_grad)
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
