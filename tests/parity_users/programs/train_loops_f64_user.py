import torch
import torch.nn as nn
import torch.nn.functional as F
torch.set_default_dtype(torch.float64)


def train(model, make_batch, loss_fn, opt_cls=torch.optim.SGD, steps=5, **kw):
    torch.manual_seed(0)
    opt = opt_cls(model.parameters(), **kw)
    out = []
    for i in range(steps):
        x, y = make_batch(i)
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        out.append(round(loss.item(), 10))
    return out
#%% mlp with adam and cross entropy
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
X = torch.randn(16, 4)
Y = torch.randint(0, 3, (16,))
print(train(m, lambda i: (X, Y), nn.CrossEntropyLoss(label_smoothing=0.1), torch.optim.Adam, lr=0.01))
#%% conv bn pool with sgd momentum
torch.manual_seed(0)
m = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(12, 2))
X = torch.randn(4, 1, 4, 4)
Y = torch.tensor([0, 1, 1, 0])
print(train(m, lambda i: (X, Y), F.cross_entropy, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3))
print(m[1].running_mean, m[1].running_var)
#%% lstm regression with rmsprop
torch.manual_seed(0)
class R(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(2, 4, num_layers=2, batch_first=True)
        self.head = nn.Linear(4, 1)
    def forward(self, x):
        o, (h, c) = self.rnn(x)
        return self.head(o[:, -1])
X = torch.randn(3, 5, 2)
Y = torch.randn(3, 1)
print(train(R(), lambda i: (X, Y), nn.MSELoss(), torch.optim.RMSprop, lr=0.01))
#%% gru bidirectional with adagrad
torch.manual_seed(0)
class G(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 4, bidirectional=True)
        self.head = nn.Linear(8, 2)
    def forward(self, x):
        return self.head(self.rnn(x)[0].mean(0))
X = torch.randn(6, 2, 3)
Y = torch.tensor([1, 0])
print(train(G(), lambda i: (X, Y), F.cross_entropy, torch.optim.Adagrad, lr=0.1))
#%% transformer encoder layer with adamw
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True)
m = nn.Sequential(layer, nn.Flatten(), nn.Linear(24, 1))
X = torch.randn(2, 3, 8)
print(train(m, lambda i: (X, torch.ones(2, 1)), F.smooth_l1_loss, torch.optim.AdamW, lr=0.01))
#%% embedding bag and layer norm with sparse-free adam
torch.manual_seed(0)
class E(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(10, 4, mode="mean")
        self.ln = nn.LayerNorm(4)
        self.out = nn.Linear(4, 1)
    def forward(self, x):
        return self.out(self.ln(self.emb(x[0], x[1]))).squeeze(1)
batch = (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4]))
print(train(E(), lambda i: (batch, torch.tensor([1.0, 0.0])), F.binary_cross_entropy_with_logits, torch.optim.Adam, lr=0.05))
#%% conv transpose upsample and group norm with lr scheduler
torch.manual_seed(0)
m = nn.Sequential(nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, output_padding=1), nn.GroupNorm(2, 4), nn.GELU(), nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False), nn.Conv2d(4, 1, 3, padding=1))
X = torch.randn(2, 2, 3, 3)
T = torch.randn(2, 1, 12, 12)
opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.5)
sch = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=6)
for i in range(5):
    opt.zero_grad()
    loss = F.l1_loss(m(X), T)
    loss.backward()
    opt.step()
    sch.step()
    print(round(loss.item(), 10), sch.get_last_lr()[0])
#%% gradient clipping and accumulation
torch.manual_seed(0)
m = nn.Linear(3, 2)
opt = torch.optim.SGD(m.parameters(), lr=0.5)
X = torch.randn(8, 3) * 10
for step in range(3):
    opt.zero_grad()
    for k in range(2):
        (m(X[k * 4:(k + 1) * 4]).pow(2).mean() / 2).backward()
    n = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    v = torch.nn.utils.clip_grad_value_(m.parameters(), 0.1)
    opt.step()
    print(round(n.item(), 10), m.weight.grad.abs().max().item(), [round(p, 10) for p in m.bias.tolist()])
#%% dropout training under seed with eval
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 1))
X = torch.randn(8, 4)
Y = torch.randn(8, 1)
print(train(m, lambda i: (X, Y), F.mse_loss, lr=0.05))
m.eval()
print(round(F.mse_loss(m(X), Y).item(), 10))
#%% weight tying and custom init
torch.manual_seed(0)
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(7, 4)
        self.dec = nn.Linear(4, 7, bias=False)
        self.dec.weight = self.emb.weight
        nn.init.normal_(self.emb.weight, std=0.02)
    def forward(self, x):
        return self.dec(self.emb(x))
toks = torch.tensor([[1, 2, 3], [4, 5, 6]])
print(train(Tied(), lambda i: (toks, toks.roll(1, 1)), lambda o, y: F.cross_entropy(o.view(-1, 7), y.view(-1)), torch.optim.Adam, lr=0.1))
