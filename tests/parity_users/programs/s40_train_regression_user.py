import torch
import torch.nn as nn
import torch.nn.functional as F
#%% small regression loop with Adam and a scheduler
torch.manual_seed(0)
X = torch.linspace(-1, 1, 32).unsqueeze(1)
y = 3 * X ** 2 - X + 0.5
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
for epoch in range(30):
    opt.zero_grad()
    loss = F.mse_loss(model(X), y)
    loss.backward()
    opt.step()
    sched.step()
    if epoch % 10 == 9:
        print(epoch, f"{loss.item():.5f}", sched.get_last_lr())
#%% gradient clipping returns the total norm
torch.manual_seed(1)
m = nn.Linear(4, 3)
out = m(torch.randn(5, 4) * 10).pow(2).sum()
out.backward()
total = nn.utils.clip_grad_norm_(m.parameters(), max_norm=1.0)
print(f"{total.item():.2f}", type(total).__name__, total.dtype)
print(f"{torch.norm(torch.stack([p.grad.norm() for p in m.parameters()])).item():.4f}")
nn.utils.clip_grad_value_(m.parameters(), 0.01)
print(m.weight.grad.abs().max().item() <= 0.01)
print(nn.utils.clip_grad_norm_([], 1.0))
#%% SGD momentum + weight decay by param group
torch.manual_seed(2)
net = nn.Linear(3, 2)
opt = torch.optim.SGD([{"params": [net.weight], "weight_decay": 0.1}, {"params": [net.bias], "lr": 0.5}],
                      lr=0.1, momentum=0.9, nesterov=True)
for _ in range(3):
    opt.zero_grad()
    net(torch.ones(4, 3)).sum().backward()
    opt.step()
print(net.weight.data, net.bias.data)
print([g["lr"] for g in opt.param_groups], [g["weight_decay"] for g in opt.param_groups])
print(sorted(opt.state_dict()["state"][0].keys()))
#%% training with a loss that ignores an index
torch.manual_seed(3)
logits = torch.randn(6, 4, requires_grad=True)
target = torch.tensor([0, 1, -100, 3, -100, 2])
loss = F.cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.1)
loss.backward()
print(f"{loss.item():.5f}", logits.grad[2].abs().sum().item(), logits.grad.sum(1).abs().max() < 1e-6)
