"""Train a small convolutional network on MNIST and print the test accuracy.

A PyTorch-style training program written against numtorch and numtorchvision: MNIST is read
from its raw IDX files under ``<data>/MNIST/raw`` (downloaded there when missing), the model
is two convolutions and two linear layers, trained with Adadelta and a StepLR schedule.

    python examples/mnist.py --epochs 1 --data ./data
"""

import argparse

import numtorch as torch
import numtorch.nn as nn
import numtorch.nn.functional as F
import numtorch.optim as optim
from numtorch.optim.lr_scheduler import StepLR
from numtorchvision import datasets, transforms


class Net(nn.Module):
    """conv(32) - conv(64) - maxpool - dropout - fc(128) - dropout - fc(10)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(self.dropout1(x), 1)
        x = self.dropout2(F.relu(self.fc1(x)))
        return F.log_softmax(self.fc2(x), dim=1)


def train(args, model, device, loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            done = batch_idx * len(data)
            print(f"Train Epoch: {epoch} [{done}/{len(loader.dataset)} "
                  f"({100.0 * batch_idx / len(loader):.0f}%)]\tLoss: {loss.item():.6f}")
            if args.dry_run:
                break


def test(model, device, loader):
    """Average loss and accuracy on the test set; returns the accuracy in percent."""
    model.eval()
    total_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            total_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    n = len(loader.dataset)
    accuracy = 100.0 * correct / n
    print(f"\nTest set: Average loss: {total_loss / n:.4f}, Accuracy: {correct}/{n} "
          f"({accuracy:.0f}%)\n")
    return accuracy


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="numtorch MNIST example")
    p.add_argument("--batch-size", type=int, default=64, metavar="N",
                   help="input batch size for training (default: 64)")
    p.add_argument("--test-batch-size", type=int, default=1000, metavar="N",
                   help="input batch size for testing (default: 1000)")
    p.add_argument("--epochs", type=int, default=14, metavar="N",
                   help="number of epochs to train (default: 14)")
    p.add_argument("--lr", type=float, default=1.0, metavar="LR",
                   help="learning rate (default: 1.0)")
    p.add_argument("--gamma", type=float, default=0.7, metavar="M",
                   help="learning rate step gamma (default: 0.7)")
    p.add_argument("--no-accel", action="store_true", help="disables the GPU (CuPy) if present")
    p.add_argument("--dry-run", action="store_true", help="quickly check a single pass")
    p.add_argument("--seed", type=int, default=1, metavar="S", help="random seed (default: 1)")
    p.add_argument("--log-interval", type=int, default=10, metavar="N",
                   help="how many batches to wait before logging training status")
    p.add_argument("--save-model", action="store_true", help="save the trained model")
    p.add_argument("--data", default="../data", help="folder holding MNIST/raw (default: "
                                                     "../data)")
    p.add_argument("--workers", type=int, default=1, help="DataLoader worker processes")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    use_accel = not args.no_accel and torch.cuda.is_available()
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if use_accel else "cpu")

    transform = transforms.Compose([transforms.ToTensor(),
                                    transforms.Normalize((0.1307,), (0.3081,))])
    train_set = datasets.MNIST(args.data, train=True, download=True, transform=transform)
    test_set = datasets.MNIST(args.data, train=False, transform=transform)
    loader_args = {"num_workers": args.workers, "shuffle": True}
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size,
                                               **loader_args)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=args.test_batch_size,
                                              **loader_args)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    accuracy = 0.0
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        accuracy = test(model, device, test_loader)
        scheduler.step()
    if args.save_model:
        torch.save(model.state_dict(), "mnist_cnn.pt")
    return accuracy


if __name__ == "__main__":
    main()
