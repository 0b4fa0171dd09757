import torch
import torch.nn as nn
#%% nested Sequential/ModuleList/ModuleDict repr
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.act = nn.ReLU(inplace=True)
        self.heads = nn.ModuleList([nn.Linear(8, 2) for _ in range(2)])
        self.extra = nn.ModuleDict({"drop": nn.Dropout(0.1), "pool": nn.AdaptiveAvgPool2d((1, 1))})
m = nn.Sequential(Block(), nn.Flatten(), nn.Sequential(nn.Linear(8, 4), nn.GELU(approximate="tanh")))
print(m)
#%% named_modules, named_parameters, named_buffers
print([n for n, _ in m.named_modules()])
print([(n, tuple(p.shape)) for n, p in m.named_parameters()])
print([(n, b.dtype) for n, b in m.named_buffers()])
print(list(m.state_dict().keys()))
print(sum(p.numel() for p in m.parameters()), len(list(m.children())), m[0].heads[1])
#%% reprs of many layers
for layer in (nn.LSTM(4, 8, num_layers=2, batch_first=True, dropout=0.1), nn.GRU(3, 5, bidirectional=True), nn.Embedding(10, 4, padding_idx=0),
              nn.LayerNorm([4, 4], elementwise_affine=False), nn.MultiheadAttention(8, 2), nn.TransformerEncoderLayer(8, 2, 16),
              nn.Conv1d(2, 4, 5, stride=2, dilation=2, groups=2), nn.ConvTranspose2d(4, 2, 3, output_padding=1, stride=2),
              nn.MaxPool2d(2, ceil_mode=True), nn.Upsample(scale_factor=2, mode="bilinear"), nn.PReLU(3), nn.Softmax(dim=1),
              nn.CrossEntropyLoss(label_smoothing=0.1), nn.Identity(), nn.Unflatten(1, (2, 2)), nn.PixelShuffle(2), nn.Bilinear(2, 3, 4)):
    print(layer)
#%% state_dict load errors
lin = nn.Linear(2, 3)
try:
    lin.load_state_dict({"weight": torch.zeros(3, 3), "bias": torch.zeros(3)})
except RuntimeError as e:
    print(e)
print(lin.load_state_dict({"weight": torch.zeros(3, 2)}, strict=False))
try:
    lin.load_state_dict({"weight": torch.zeros(3, 2), "bias": torch.zeros(3), "extra": torch.ones(1)})
except RuntimeError as e:
    print(e)
