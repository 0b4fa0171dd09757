import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, Dataset, random_split
r = lambda t: (t * 1e3).round() / 1e3
#%% small cnn classifier with dataloader
torch.manual_seed(0)
X = torch.randn(40, 1, 12, 12)
Y = torch.randint(0, 3, (40,))
ds = TensorDataset(X, Y)
train, val = random_split(ds, [30, 10], generator=torch.Generator().manual_seed(1))
print(len(train), len(val), train.indices[:5])
dl = DataLoader(train, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(2))
net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(4, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(8, 3))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for ep in range(2):
    net.train()
    tot = 0.0
    for xb, yb in dl:
        opt.zero_grad()
        loss = F.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
        tot += loss.item() * xb.size(0)
    net.eval()
    with torch.no_grad():
        xv = torch.stack([val[i][0] for i in range(len(val))])
        yv = torch.tensor([val[i][1] for i in range(len(val))])
        acc = (net(xv).argmax(1) == yv).float().mean().item()
    print(ep, round(tot / len(train), 3), round(acc, 3))
print(sum(p.numel() for p in net.parameters()), sum(p.numel() for p in net.parameters() if p.requires_grad))
print(net[1].running_mean.shape, net[1].num_batches_tracked)
#%% gru seq2seq-ish with attention
torch.manual_seed(0)
class Enc(nn.Module):
    def __init__(self, v, h):
        super().__init__()
        self.emb = nn.Embedding(v, h, padding_idx=0)
        self.rnn = nn.GRU(h, h, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * h, h)
    def forward(self, x):
        o, hN = self.rnn(self.emb(x))
        return o, torch.tanh(self.fc(torch.cat([hN[0], hN[1]], 1)))
class Attn(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.W = nn.Linear(3 * h, h); self.v = nn.Linear(h, 1, bias=False)
    def forward(self, hid, enc):
        T = enc.shape[1]
        e = torch.tanh(self.W(torch.cat([hid.unsqueeze(1).repeat(1, T, 1), enc], 2)))
        return F.softmax(self.v(e).squeeze(2), dim=1)
enc, att = Enc(10, 6), Attn(6)
x = torch.randint(1, 10, (3, 5)); x[0, 3:] = 0
o, h = enc(x)
a = att(h, o)
ctx = torch.bmm(a.unsqueeze(1), o).squeeze(1)
print(o.shape, h.shape, r(a), r(ctx))
ctx.sum().backward()
print(r(enc.emb.weight.grad[0]), r(enc.rnn.weight_hh_l0_reverse.grad[:2]))
#%% transformer lm with masks
torch.manual_seed(0)
class TLM(nn.Module):
    def __init__(self, ntoken, d, nhead, nhid, nlayers):
        super().__init__()
        self.pos = torch.zeros(50, d)
        position = torch.arange(0, 50, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
        self.pos[:, 0::2] = torch.sin(position * div); self.pos[:, 1::2] = torch.cos(position * div)
        layer = nn.TransformerEncoderLayer(d, nhead, nhid, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.emb = nn.Embedding(ntoken, d); self.out = nn.Linear(d, ntoken)
        self.d = d
    def forward(self, src):
        mask = nn.Transformer.generate_square_subsequent_mask(src.size(1))
        h = self.emb(src) * math.sqrt(self.d) + self.pos[:src.size(1)]
        return self.out(self.enc(h, mask=mask, is_causal=True))
m = TLM(20, 8, 2, 16, 2)
src = torch.randint(0, 20, (2, 7))
opt = torch.optim.SGD(m.parameters(), lr=0.5)
for i in range(3):
    out = m(src[:, :-1])
    loss = F.cross_entropy(out.reshape(-1, 20), src[:, 1:].reshape(-1))
    opt.zero_grad(); loss.backward()
    print(round(loss.item(), 4), round(torch.nn.utils.clip_grad_norm_(m.parameters(), 0.5).item(), 4))
    opt.step()
print(nn.Transformer.generate_square_subsequent_mask(3))
#%% embeddingbag text classifier
torch.manual_seed(0)
class TextCls(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.EmbeddingBag(30, 8, sparse=False)
        self.fc = nn.Linear(8, 4)
        self.embedding.weight.data.uniform_(-0.5, 0.5)
        self.fc.weight.data.uniform_(-0.5, 0.5); self.fc.bias.data.zero_()
    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))
model = TextCls()
text = torch.randint(0, 30, (15,)); offsets = torch.tensor([0, 4, 9, 12])
labels = torch.tensor([0, 3, 1, 2])
opt = torch.optim.SGD(model.parameters(), lr=5)
sched = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.1)
for i in range(3):
    opt.zero_grad()
    loss = nn.CrossEntropyLoss()(model(text, offsets), labels)
    loss.backward(); torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1); opt.step(); sched.step()
    print(round(loss.item(), 4), sched.get_last_lr())
#%% char rnn lstm sampling
torch.manual_seed(0)
lstm = nn.LSTM(5, 7, num_layers=2, dropout=0.0)
head = nn.Linear(7, 5)
h = (torch.zeros(2, 1, 7), torch.zeros(2, 1, 7))
inp = torch.zeros(1, 1, 5); inp[0, 0, 2] = 1
outs = []
with torch.no_grad():
    for t in range(6):
        o, h = lstm(inp, h)
        p = F.softmax(head(o[0, 0]) / 0.8, dim=0)
        c = torch.multinomial(p, 1).item()
        outs.append(c)
        inp = F.one_hot(torch.tensor([[c]]), 5).float()
print(outs, r(h[0]))
#%% custom dataset and collate
class Pairs(Dataset):
    def __init__(self, n): self.n = n
    def __len__(self): return self.n
    def __getitem__(self, i): return {"x": torch.arange(i + 1), "y": i % 2, "name": f"s{i}"}
def collate(batch):
    xs = [b["x"] for b in batch]
    return nn.utils.rnn.pad_sequence(xs, batch_first=True, padding_value=-1), torch.tensor([b["y"] for b in batch]), [b["name"] for b in batch]
for xb, yb, names in DataLoader(Pairs(5), batch_size=2, collate_fn=collate):
    print(xb, yb, names)
for b in DataLoader(Pairs(3), batch_size=3):
    print(b)
#%% gan step
torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
oG = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
oD = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
crit = nn.BCELoss()
for it in range(3):
    real = torch.randn(16, 2) + 3
    fake = G(torch.randn(16, 2))
    oD.zero_grad()
    lD = crit(D(real), torch.ones(16, 1)) + crit(D(fake.detach()), torch.zeros(16, 1))
    lD.backward(); oD.step()
    oG.zero_grad()
    lG = crit(D(fake), torch.ones(16, 1))
    lG.backward(); oG.step()
    print(round(lD.item(), 4), round(lG.item(), 4))
#%% vae loss
torch.manual_seed(0)
class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 4); self.fc21 = nn.Linear(4, 2); self.fc22 = nn.Linear(4, 2)
        self.fc3 = nn.Linear(2, 4); self.fc4 = nn.Linear(4, 6)
    def forward(self, x):
        h = F.relu(self.fc1(x)); mu, logvar = self.fc21(h), self.fc22(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z)))), mu, logvar
v = VAE(); x = torch.rand(5, 6)
recon, mu, logvar = v(x)
bce = F.binary_cross_entropy(recon, x, reduction='sum')
kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
(bce + kld).backward()
print(round(bce.item(), 3), round(kld.item(), 4), r(v.fc21.weight.grad))
