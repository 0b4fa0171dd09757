"""An unseeded training loop (regression's and siamese_network's pattern: data from Python's
``random`` and torch's default generator, no manual_seed): bench/programs/_timed.py seeds the
generators before it starts, so both libraries print the same losses."""
import random

import torch
import torch.nn.functional as F

w_true = torch.randn(4, 1) * 3
net = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for step in range(30):
    x = torch.tensor([[random.uniform(-1, 1) for _ in range(4)] for _ in range(16)])
    loss = F.smooth_l1_loss(net(x), x @ w_true + 0.1 * torch.randn(16, 1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.6f}")
