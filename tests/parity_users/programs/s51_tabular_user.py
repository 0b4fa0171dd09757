import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def r(t, n=4):
    if isinstance(t, torch.Tensor):
        return t.detach().round(decimals=n).tolist()
    return round(float(t), n)

# a tabular dataset made in numpy: categorical columns embedded, numeric ones normalised
rng = np.random.default_rng(0)
n = 96
cats = np.stack([rng.integers(0, 5, n), rng.integers(0, 3, n)], 1)
nums = rng.normal(size=(n, 4)).astype(np.float32)
target = (nums[:, 0] * 2 - nums[:, 1] + cats[:, 0] * 0.3 > 0).astype(np.float32)
x_cat = torch.from_numpy(cats)
x_num = torch.from_numpy(nums)
mean, std = x_num.mean(0, keepdim=True), x_num.std(0, keepdim=True)
x_num = (x_num - mean) / std
y = torch.from_numpy(target)


class TabNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(5, 3), nn.Embedding(3, 2)])
        self.bn = nn.BatchNorm1d(4)
        self.body = nn.Sequential(nn.Linear(9, 16), nn.SiLU(), nn.Dropout(0.1), nn.Linear(16, 1))

    def forward(self, c, x):
        e = torch.cat([emb(c[:, i]) for i, emb in enumerate(self.embs)], dim=1)
        return self.body(torch.cat([e, self.bn(x)], dim=1)).squeeze(-1)

#%% the data as prepared
print(x_cat.dtype, x_num.dtype, y.dtype, r(x_num.mean(0)), r(x_num.std(0)))

#%% training with early stopping on a held-out split, best weights kept in memory
torch.manual_seed(0)
model = TabNet()
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-3)
train = TensorDataset(x_cat[:64], x_num[:64], y[:64])
loader = DataLoader(train, batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(1))
best, best_state, patience = math.inf, None, 0
for epoch in range(12):
    model.train()
    for c, xb, yb in loader:
        loss = F.binary_cross_entropy_with_logits(model(c, xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        val = F.binary_cross_entropy_with_logits(model(x_cat[64:], x_num[64:]), y[64:]).item()
    if val < best - 1e-4:
        best, patience = val, 0
        best_state = {k: v.clone() for k, v in model.state_dict().items()}
    else:
        patience += 1
    print(epoch, r(loss.item()), r(val))
    if patience >= 3:
        break
model.load_state_dict(best_state)
with torch.no_grad():
    pred = torch.sigmoid(model(x_cat[64:], x_num[64:]))
acc = ((pred > 0.5).float() == y[64:]).float().mean()
print(r(best), r(acc), sorted(best_state)[:4], best_state["bn.num_batches_tracked"].item())

#%% class weights, pos_weight and per-sample weights
logits = torch.tensor([0.3, -1.2, 2.0, 0.0])
t = torch.tensor([1.0, 0.0, 1.0, 0.0])
print(r(F.binary_cross_entropy_with_logits(logits, t, pos_weight=torch.tensor(3.0))))
print(r(F.binary_cross_entropy_with_logits(logits, t, weight=torch.tensor([1.0, 2.0, 0.5, 1.0]), reduction="sum")))
print(r(nn.BCEWithLogitsLoss(reduction="none")(logits, t)))
ce = nn.CrossEntropyLoss(weight=torch.tensor([0.2, 0.8]))
print(r(ce(torch.tensor([[1.0, 2.0], [0.5, -0.5], [0.0, 0.0]]), torch.tensor([1, 0, 1]))))

#%% numeric features back to numpy, argsort and quantile bucketing
q = torch.quantile(x_num[:, 0], torch.tensor([0.25, 0.5, 0.75]))
buckets = torch.bucketize(x_num[:, 0], q)
print(r(q), torch.bincount(buckets, minlength=4).tolist())
order = torch.argsort(x_num[:, 1], descending=True, stable=True)[:5]
print(order.tolist(), x_num[order, 1].numpy().round(3).tolist())
arr = x_num.numpy()
arr[0, 0] = 99.0
print(x_num[0, 0].item(), type(y[:3].tolist()[0]).__name__)
