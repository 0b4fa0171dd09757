"""A training program written for PyTorch (the launcher test runs it under both libraries).

argparse, a Dataset read by a DataLoader with two spawned workers, deep torch imports, a
version gate, a checkpoint round trip and torch.multiprocessing.spawn (which re-imports this
file in the children). Prints one `key: value` line per fact.
"""
import argparse
import os
import sys

import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.modules.linear import Linear
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32).reshape(-1, 1) / n
        self.y = (self.x ** 2).squeeze(1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        info = get_worker_info()
        return self.x[i], self.y[i], -1 if info is None else info.id


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = Linear(1, 8)
        self.fc2 = nn.Linear(8, 1)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.linspace(-0.5, 0.7, p.numel()).reshape(p.shape))

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x))).squeeze(1)


def child(rank, out_dir, weights):
    net = Net()
    net.load_state_dict(torch.load(weights, weights_only=True))
    value = net(torch.tensor([[rank / 2.0]])).item()
    with open(os.path.join(out_dir, f"child{rank}.txt"), "w") as f:
        f.write(f"{__name__} {torch.__version__ >= '2.0'} {value:.6f}")


def main():
    parser = argparse.ArgumentParser(description="fit y = x^2")
    parser.add_argument("out_dir")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    print("argv:", sys.argv[1:])
    print("name:", __name__)
    print("version gate:", torch.__version__ >= "2.0", torch.__version__ >= (1, 13))

    loader = DataLoader(Squares(48), batch_size=8, shuffle=False, num_workers=2,
                        multiprocessing_context="spawn", persistent_workers=True)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scheduler = StepLR(opt, step_size=2, gamma=0.5)
    workers = set()
    for epoch in range(args.epochs):
        total = 0.0
        for x, y, wid in loader:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            workers.update(wid.tolist())
        scheduler.step()
        print(f"epoch {epoch} loss: {total:.6f}")
    print("workers:", sorted(workers))

    weights = os.path.join(args.out_dir, "net.pt")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, weights)
    state = torch.load(weights, weights_only=True)
    torch.save(state["model"], weights)
    restored = Net()
    restored.load_state_dict(state["model"])
    print("restored equal:", all(torch.equal(a, b) for a, b in
                                 zip(restored.parameters(), model.parameters())))
    print("opt state keys:", sorted(state["opt"]["state"][0]))

    mp.spawn(child, args=(args.out_dir, weights), nprocs=1)
    with open(os.path.join(args.out_dir, "child0.txt")) as f:
        print("child 0:", f.read())


if __name__ == "__main__":
    main()
