import torch
from torch import nn


def show(f):
    try:
        out = f()
        print(out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% sequential ops
s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
print(s[1:], type(s[1:]).__name__, s[-1], len(s))
s.append(nn.Sigmoid())
s.insert(1, nn.Dropout(0.1))
print(s)
print(s.pop(1), len(s))
s.extend([nn.Tanh(), nn.Identity()])
del s[0]
print([type(m).__name__ for m in s], list(s._modules.keys()))
show(lambda: s[10])
show(lambda: s.insert(20, nn.ReLU()))
show(lambda: s.append(3))
s2 = s + nn.Sequential(nn.ReLU())
print(len(s2), list(s2._modules.keys()))
show(lambda: s * 2)
from collections import OrderedDict
od = nn.Sequential(OrderedDict([('a', nn.ReLU()), ('b', nn.Tanh())]))
print(od.a, od[0], od[-1], list(od._modules))
del od[0]
print(list(od._modules))
#%% modulelist moduledict
ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
ml += [nn.Sigmoid()]
ml.insert(0, nn.Identity())
print(ml, ml[-1], ml[1:3], len(ml))
del ml[1]
print(list(ml._modules.keys()))
show(lambda: ml[5])
show(lambda: ml.append(1))
md = nn.ModuleDict({'b': nn.ReLU(), 'a': nn.Tanh()})
md['c'] = nn.Sigmoid()
print(list(md.keys()), md.pop('b'), len(md), 'a' in md)
md.update([('z', nn.Identity())])
print(list(md.keys()))
show(lambda: md.update(3))
show(lambda: md['nope'])
show(lambda: nn.ModuleDict({'x.y': nn.ReLU()}))
#%% parameterlist dict
pl = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3)])
pl.append(torch.ones(1))
print(pl, [type(p).__name__ for p in pl], [p.requires_grad for p in pl])
pd = nn.ParameterDict({'w': nn.Parameter(torch.ones(2)), 'b': torch.zeros(1)})
pd['s'] = 'hello'
print(pd, sorted(pd.keys()), type(pd['b']).__name__, pd['s'])
print([n for n, _ in nn.Module.named_parameters(pd)])
show(lambda: pd['q'])
print(pd.get('q', 5), pd.setdefault('k', torch.ones(1)).shape, len(pd))
#%% module repr and extra_repr
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2, bias=False)
        self.b = nn.Sequential(nn.Conv2d(1, 2, 3, stride=2, bias=False), nn.BatchNorm2d(2, affine=False))
    def extra_repr(self):
        return 'custom=1\nsecond=2'
print(M())
print(nn.Linear(3, 4, bias=False), nn.Conv1d(2, 3, 3, padding=1, padding_mode='reflect', groups=1, dilation=2), nn.LSTM(2, 3, 2, batch_first=True, dropout=0.1, bidirectional=True), nn.Embedding(5, 2, padding_idx=0, max_norm=1.0))
print(nn.Dropout(0.2, inplace=True), nn.LeakyReLU(0.1, True), nn.Softmax(dim=1), nn.Upsample(scale_factor=2, mode='bilinear'), nn.Flatten(0, 2), nn.Unflatten(1, (2, 3)), nn.MaxPool2d(2, ceil_mode=True), nn.AdaptiveAvgPool2d((None, 3)))
print(nn.TransformerEncoderLayer(4, 2, dim_feedforward=8))
print(nn.GroupNorm(2, 4, eps=1e-3), nn.LayerNorm((2, 3), elementwise_affine=False), nn.PReLU(3), nn.Hardtanh(-2, 2), nn.Threshold(0.1, 20), nn.CELU(2.0), nn.Softplus(2, 10), nn.RReLU(0.1, 0.3), nn.GLU(-1), nn.ZeroPad2d((1, 2, 0, 1)), nn.ReflectionPad1d(2), nn.CircularPad2d(1), nn.ConstantPad3d(1, 2.5))
#%% module state and train eval apply
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.BatchNorm1d(2))
m.eval()
print([x.training for x in m.modules()])
m.train(False).requires_grad_(False)
print(all(not p.requires_grad for p in m.parameters()))
m.apply(lambda x: nn.init.zeros_(x.weight) if isinstance(x, nn.Linear) else None)
print(m[0].weight)
m.half()
print(m[0].weight.dtype, m[2].running_mean.dtype, m[2].num_batches_tracked.dtype)
m.to(torch.float64)
print(m[0].weight.dtype, m[2].num_batches_tracked.dtype)
show(lambda: m.to(torch.int32))
print(m.zero_grad(), sum(p.numel() for p in m.parameters()), m.get_submodule('2').num_features)
m.register_module('extra', nn.ReLU())
print(list(m._modules), m.extra)
show(lambda: m.register_module('a.b', nn.ReLU()))
show(lambda: m.add_module('', nn.ReLU()))
show(lambda: m.add_module('x', 'notamodule'))
del m.extra
print(hasattr(m, 'extra'))
#%% nn utils vectors prune fuse
torch.manual_seed(1)
lin = nn.Linear(3, 2)
v = nn.utils.parameters_to_vector(lin.parameters())
print(v.shape)
nn.utils.vector_to_parameters(torch.arange(8.), lin.parameters())
print(lin.weight, lin.bias)
show(lambda: nn.utils.vector_to_parameters(torch.arange(7.), lin.parameters()))
import torch.nn.utils.prune as prune
prune.l1_unstructured(lin, 'weight', amount=2)
print(lin.weight_mask, sorted(n for n, _ in lin.named_buffers()), sorted(n for n, _ in lin.named_parameters()))
prune.random_unstructured(lin, 'bias', amount=0.5)
print(lin.bias_mask.sum())
prune.remove(lin, 'weight')
print(sorted(n for n, _ in lin.named_parameters()), lin.weight)
lin2 = nn.Linear(4, 3)
prune.ln_structured(lin2, 'weight', amount=1, n=2, dim=0)
print(lin2.weight_mask.sum(1))
show(lambda: prune.l1_unstructured(lin2, 'weight', amount=20))
show(lambda: prune.l1_unstructured(lin2, 'weight', amount=-0.5))
print(prune.is_pruned(lin2), prune.is_pruned(nn.ReLU()))
#%% fuse conv bn and stateless
from torch.nn.utils import fuse_conv_bn_eval
torch.manual_seed(2)
conv = nn.Conv2d(2, 3, 3).eval()
bn = nn.BatchNorm2d(3).eval()
bn.running_mean.uniform_()
bn.running_var.uniform_(0.5, 2)
x = torch.randn(1, 2, 5, 5)
fused = fuse_conv_bn_eval(conv, bn)
print((fused(x) - bn(conv(x))).abs().max() < 1e-5, type(fused).__name__)
show(lambda: fuse_conv_bn_eval(conv.train(), bn))
