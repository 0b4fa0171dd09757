import torch
import torch.nn as nn
import torch.nn.functional as F
#%% classifier train and evaluate
torch.manual_seed(0)
X = torch.randn(64, 5, dtype=torch.float64)
w_true = torch.tensor([[1.0, -2.0, 0.5, 0.0, 1.5]], dtype=torch.float64)
y = (X @ w_true.t()).squeeze(1).gt(0).long()
model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 2)).double()
opt = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
ds = torch.utils.data.TensorDataset(X, y)
dl = torch.utils.data.DataLoader(ds, batch_size=16, shuffle=True)
for epoch in range(3):
    model.train()
    total, correct, running = 0, 0, 0.0
    for xb, yb in dl:
        opt.zero_grad()
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        loss.backward()
        opt.step()
        running += loss.item() * xb.size(0)
        correct += (out.argmax(1) == yb).sum().item()
        total += yb.numel()
    sched.step()
    print(f"epoch {epoch}: loss={running / total:.4f} acc={correct / total:.3f} lr={sched.get_last_lr()[0]:.4f}")
model.eval()
with torch.no_grad():
    logits = model(X)
    probs = logits.softmax(-1)
    pred = probs.argmax(-1)
print(f"eval acc {(pred == y).float().mean().item():.4f}", probs.sum(1).allclose(torch.ones(64, dtype=torch.float64)))
cm = torch.zeros(2, 2, dtype=torch.long)
for t, p in zip(y, pred):
    cm[t, p] += 1
print(cm, torch.bincount(y * 2 + pred, minlength=4).view(2, 2).equal(cm))
print(type(correct).__name__, type(running).__name__, type((pred == y).sum().item()).__name__)
#%% early stopping and best checkpoint
import copy
torch.manual_seed(1)
net = nn.Linear(3, 1).double()
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, nesterov=True)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
xs = torch.randn(20, 3, dtype=torch.float64)
ys = xs.sum(1, keepdim=True)
best, best_state, bad = float('inf'), None, 0
for step in range(12):
    loss = F.mse_loss(net(xs), ys)
    opt.zero_grad()
    loss.backward()
    opt.step()
    v = loss.item()
    plateau.step(v)
    if v < best - 1e-3:
        best, best_state, bad = v, copy.deepcopy(net.state_dict()), 0
    else:
        bad += 1
    print(step, f"{v:.5f}", opt.param_groups[0]['lr'], bad)
net.load_state_dict(best_state)
print(f"{F.mse_loss(net(xs), ys).item():.5f}", f"{best:.5f}")
print(nn.utils.clip_grad_norm_(net.parameters(), 0.01), [p.grad.norm().item() < 0.011 for p in net.parameters()])
print(nn.utils.parameters_to_vector(net.parameters()).shape)
