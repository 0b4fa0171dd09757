import torch
import torch.nn as nn
#%% reprs of many layers
mods = [
    nn.Conv1d(3, 4, 3, stride=2, padding=1, bias=False), nn.Conv2d(1, 2, (3, 5), dilation=2, groups=1, padding_mode='reflect', padding=2),
    nn.Conv3d(2, 4, 1), nn.ConvTranspose2d(3, 2, 4, stride=2, output_padding=1), nn.ConvTranspose1d(2, 2, 3, groups=2),
    nn.MaxPool2d(2), nn.MaxPool2d(3, stride=1, padding=1, return_indices=True, ceil_mode=True), nn.AvgPool1d(3), nn.AvgPool2d(2, count_include_pad=False),
    nn.AdaptiveAvgPool2d((1, 1)), nn.AdaptiveMaxPool1d(4), nn.LPPool2d(2, 3), nn.MaxUnpool2d(2), nn.FractionalMaxPool2d(2, output_size=3),
    nn.BatchNorm1d(4), nn.BatchNorm2d(3, momentum=None, affine=False), nn.InstanceNorm2d(3), nn.LayerNorm([4, 5], elementwise_affine=False), nn.GroupNorm(2, 4),
    nn.LocalResponseNorm(2), nn.RMSNorm(4), nn.Dropout(0.2), nn.Dropout2d(), nn.AlphaDropout(0.1), nn.Identity(3, x=1),
    nn.ReLU(inplace=True), nn.LeakyReLU(0.1), nn.ELU(alpha=0.5), nn.GELU('tanh'), nn.Softmax(dim=1), nn.LogSoftmax(-1), nn.Softmax2d(), nn.Hardtanh(-2, 2),
    nn.PReLU(3), nn.Threshold(0.1, 20), nn.Softplus(beta=2), nn.CELU(), nn.SELU(), nn.SiLU(), nn.Mish(), nn.Hardswish(), nn.Tanhshrink(), nn.Softshrink(0.3), nn.GLU(),
    nn.Linear(3, 2, bias=False), nn.Bilinear(2, 3, 4), nn.LazyLinear(5), nn.Embedding(10, 3, padding_idx=1, max_norm=2.0, scale_grad_by_freq=True),
    nn.EmbeddingBag(10, 3, mode='max'), nn.RNN(3, 4, num_layers=2, nonlinearity='relu'), nn.LSTM(3, 4, batch_first=True, bidirectional=True, proj_size=2),
    nn.GRU(3, 4, dropout=0.1, num_layers=2), nn.LSTMCell(3, 4), nn.GRUCell(3, 4, bias=False), nn.RNNCell(2, 2),
    nn.Flatten(), nn.Unflatten(1, (2, 3)), nn.Upsample(scale_factor=2, mode='nearest'), nn.Upsample(size=(4, 4), mode='bilinear', align_corners=True),
    nn.PixelShuffle(2), nn.ZeroPad2d((1, 2, 0, 1)), nn.ReflectionPad1d(2), nn.ConstantPad2d(1, 3.5), nn.ReplicationPad3d(1), nn.CircularPad2d(1),
    nn.CosineSimilarity(), nn.PairwiseDistance(p=1), nn.Fold((4, 4), 2), nn.Unfold(2, stride=2), nn.ChannelShuffle(2),
    nn.MSELoss(), nn.CrossEntropyLoss(ignore_index=0, label_smoothing=0.1), nn.NLLLoss(weight=torch.ones(3)), nn.BCELoss(reduction='sum'), nn.HuberLoss(delta=2.0),
    nn.SmoothL1Loss(beta=0.5), nn.KLDivLoss(reduction='batchmean', log_target=True), nn.CTCLoss(blank=1), nn.TripletMarginLoss(margin=2), nn.MarginRankingLoss(),
    nn.MultiheadAttention(8, 2), nn.MultiheadAttention(8, 2, kdim=4, vdim=6, batch_first=True),
]
for m in mods:
    print(repr(m))
print(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16))
#%% containers and custom modules
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc = nn.ModuleList([nn.Linear(16 * 5 * 5, 120), nn.Linear(120, 84), nn.Linear(84, 10)])
        self.heads = nn.ModuleDict({'a': nn.Linear(10, 1), 'b': nn.Sequential()})
        self.scale = nn.Parameter(torch.ones(1))
        self.register_buffer('steps', torch.zeros(1))
        self.extra = nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(3, dtype=torch.float64))])
        self.pdict = nn.ParameterDict({'w': nn.Parameter(torch.zeros(2, 2))})

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        for f in self.fc[:-1]:
            x = torch.relu(f(x))
        return self.fc[-1](x) * self.scale


net = Net()
print(net)
print(net(torch.randn(1, 1, 32, 32)).shape)
print(sum(p.numel() for p in net.parameters()), sum(p.numel() for p in net.parameters() if p.requires_grad))
print([n for n, _ in net.named_parameters()])
print([n for n, _ in net.named_buffers()], [n for n, _ in net.named_children()])
print([n for n, _ in net.named_modules()][:6])
print(nn.Sequential(nn.Linear(1, 2), nn.ReLU())[0:1], nn.Sequential())
s = nn.Sequential()
s.add_module('l1', nn.Linear(2, 2))
s.append(nn.Tanh())
print(s, len(s), s[-1])
from collections import OrderedDict
print(nn.Sequential(OrderedDict([('conv', nn.Conv2d(1, 2, 3)), ('act', nn.ReLU())])))
print(nn.ModuleList(), nn.ModuleDict(), nn.ParameterList(), nn.ParameterDict())
print(nn.Linear(2, 3).weight.shape, repr(nn.Parameter(torch.ones(2))), nn.Parameter(torch.ones(1, dtype=torch.float64), requires_grad=False))
