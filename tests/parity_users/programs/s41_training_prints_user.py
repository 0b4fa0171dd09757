import torch
#%% a classic regression loop printing losses
torch.manual_seed(0)
X = torch.linspace(-1, 1, 20).unsqueeze(1)
Y = 3 * X + 0.5 + 0.1 * torch.randn(20, 1)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(5):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f} w {model.weight.item():.4f} b {model.bias.item():.4f}")
print(model.state_dict())
#%% classification with accuracy printout
torch.manual_seed(1)
X = torch.randn(64, 4)
y = (X[:, 0] + X[:, 1] > 0).long()
net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
opt = torch.optim.Adam(net.parameters(), lr=0.05)
for step in range(6):
    logits = net(X)
    loss = torch.nn.functional.cross_entropy(logits, y)
    opt.zero_grad(); loss.backward(); opt.step()
    acc = (logits.argmax(1) == y).float().mean()
    print(step, round(loss.item(), 5), acc.item(), f"{acc:.2%}" if False else f"{acc.item():.2%}")
with torch.no_grad():
    print(net(X[:3]).softmax(1), torch.nn.functional.cross_entropy(net(X), y, reduction="none")[:4])
