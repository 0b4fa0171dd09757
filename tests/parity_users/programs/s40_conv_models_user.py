import torch
import torch.nn as nn
import torch.nn.functional as F
#%% small CNN forward/backward, output shapes, and a training step
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.c2 = nn.Conv2d(4, 8, 3, stride=2, padding="valid" if False else 0)
        self.fc = nn.Linear(8 * 3 * 3, 2)
    def forward(self, x):
        x = F.relu(self.bn(self.c1(x)))
        x = F.max_pool2d(x, 2)
        x = F.relu(self.c2(x))
        return self.fc(torch.flatten(x, 1))
net = Net()
x = torch.randn(5, 1, 16, 16)
print(net(x).shape)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
loss = F.cross_entropy(net(x), torch.tensor([0, 1, 0, 1, 1]))
loss.backward(); opt.step()
print(f"{loss.item():.4f}", net.bn.running_mean.shape, net.bn.num_batches_tracked)
#%% conv argument errors and padding='same'
c = nn.Conv2d(2, 3, 3, padding="same")
print(c(torch.randn(1, 2, 5, 5)).shape, nn.Conv1d(2, 2, 3, dilation=2, padding="same")(torch.ones(1, 2, 7)).shape)
try:
    nn.Conv2d(2, 3, 3, padding="same", stride=2)
except ValueError as e:
    print(str(e))
try:
    c(torch.randn(1, 3, 5, 5))
except RuntimeError as e:
    print(str(e))
try:
    nn.Conv2d(3, 4, 3, groups=2)
except ValueError as e:
    print(str(e))
#%% transposed convolution output_size, groups and depthwise
torch.manual_seed(1)
up = nn.ConvTranspose2d(2, 2, 3, stride=2, padding=1)
print(up(torch.randn(1, 2, 4, 4)).shape, up(torch.randn(1, 2, 4, 4), output_size=[8, 8]).shape)
dw = nn.Conv2d(4, 4, 3, groups=4, bias=False)
print(dw.weight.shape, dw(torch.ones(1, 4, 5, 5)).shape, nn.Conv3d(1, 1, 2)(torch.ones(1, 1, 3, 3, 3)).shape)
print(nn.Upsample(scale_factor=2)(torch.arange(4.).view(1, 1, 2, 2)), nn.PixelShuffle(2)(torch.arange(8.).view(1, 4, 1, 2)).shape)
