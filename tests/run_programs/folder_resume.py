"""pytorch/examples' imagenet pattern, small: an ImageFolder with RandomResizedCrop/flip/
Normalize, torchvision's resnet18, SGD with momentum and weight decay, StepLR, a checkpoint dict
(epoch, arch, state_dict, best_acc1, optimizer, scheduler) written with torch.save, then resumed
(possibly by the other library) for more steps and an evaluation with Resize/CenterCrop and
top-k accuracy.

    python folder_resume.py ROOT CHECKPOINT train|resume STEPS
"""
import sys

import torch
import torchvision.transforms as T
from torch import nn
from torchvision import datasets, models

root, ckpt, mode, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
normalize = T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
train_set = datasets.ImageFolder(root + "/train", T.Compose([
    T.RandomResizedCrop(32), T.RandomHorizontalFlip(), T.ToTensor(), normalize]))
val_set = datasets.ImageFolder(root + "/val", T.Compose([
    T.Resize(36), T.CenterCrop(32), T.ToTensor(), normalize]))
torch.manual_seed(1 if mode == "train" else 2)
model = models.resnet18(num_classes=len(train_set.classes))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), 0.01, momentum=0.9, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
start = 0
if mode == "resume":
    state = torch.load(ckpt)
    start = state["epoch"]
    model.load_state_dict(state["state_dict"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    print(f"=> loaded '{state['arch']}' epoch {start} best {state['best_acc1']:.4f} "
          f"lr {optimizer.param_groups[0]['lr']:.6f}")
loader = torch.utils.data.DataLoader(train_set, batch_size=8, shuffle=True, num_workers=0)
model.train()
for i, (images, target) in enumerate(loader):
    if i == steps:
        break
    loss = criterion(model(images), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"step {start + i} loss {loss.item():.6f} lr {scheduler.get_last_lr()[0]:.6f}")
model.eval()
with torch.no_grad():
    images, target = next(iter(torch.utils.data.DataLoader(val_set, batch_size=16)))
    out = model(images)
    _, pred = out.topk(2, 1, True, True)
    top2 = pred.t().eq(target.view(1, -1)).reshape(-1).float().sum().item()
    print(f"val loss {criterion(out, target).item():.6f} top2 {top2:.0f}")
torch.save({"epoch": start + steps, "arch": "resnet18", "state_dict": model.state_dict(),
            "best_acc1": torch.tensor(top2 / 16), "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict()}, ckpt)
