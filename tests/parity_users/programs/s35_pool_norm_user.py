import torch
from torch import nn
import torch.nn.functional as F


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% max pool ceil mode indices unpool
x = torch.arange(25.).view(1, 1, 5, 5)
y, i = F.max_pool2d(x, 2, stride=2, ceil_mode=True, return_indices=True)
print(y, i)
print(F.max_unpool2d(y, i, 2, stride=2, output_size=(5, 5)))
print(F.max_pool2d(x, 3, stride=2, padding=1, dilation=1), F.max_pool2d(x, 2, stride=1, dilation=2))
print(F.max_pool1d(torch.tensor([[[1., 5., 2., 8., 3.]]]), 2, ceil_mode=True, return_indices=True))
show(lambda: F.max_pool2d(x, 2, padding=2))
show(lambda: F.max_pool2d(x, 7))
show(lambda: F.max_unpool2d(y, i, 2, stride=2, output_size=(9, 9)))
print(F.max_pool2d(torch.tensor([[[[float('nan'), 1.], [2., 3.]]]]), 2))
#%% avg pool options
x = torch.arange(25.).view(1, 1, 5, 5)
print(F.avg_pool2d(x, 2, ceil_mode=True), F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False))
print(F.avg_pool2d(x, 3, stride=2, padding=1, divisor_override=2), F.avg_pool2d(x, 2, stride=2, padding=1, ceil_mode=True))
print(F.avg_pool1d(torch.arange(5.).view(1, 1, 5), 2, ceil_mode=True, count_include_pad=True), F.avg_pool1d(torch.arange(5.).view(1, 1, 5), 3, stride=2, padding=1))
show(lambda: F.avg_pool2d(x.long(), 2))
print(F.avg_pool3d(torch.arange(27.).view(1, 1, 3, 3, 3), 2, ceil_mode=True).shape)
#%% adaptive and lp pool
x = torch.arange(35.).view(1, 1, 5, 7)
print(F.adaptive_avg_pool2d(x, (3, 4)), F.adaptive_max_pool2d(x, (2, 3), return_indices=True))
print(F.adaptive_avg_pool2d(x, (None, 2)), F.adaptive_avg_pool1d(torch.arange(7.).view(1, 1, 7), 3))
print(r(F.lp_pool2d(x, 2, 2)), r(F.lp_pool1d(torch.arange(5.).view(1, 1, 5), 3, 2, ceil_mode=True)), r(F.lp_pool2d(x, float('inf'), 2)))
show(lambda: F.adaptive_avg_pool2d(x, (0, 2)))
print(F.adaptive_max_pool1d(torch.tensor([[[1., 3., 2., 5., 4.]]]), 8))
#%% pool grads
torch.manual_seed(0)
x = torch.randn(1, 2, 5, 5, requires_grad=True)
g = torch.randn(1, 2, 3, 3)
for name, f in (('max', lambda: F.max_pool2d(x, 2, 2, ceil_mode=True)), ('avg', lambda: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)), ('adapt', lambda: F.adaptive_avg_pool2d(x, 3)), ('amax', lambda: F.adaptive_max_pool2d(x, 3)), ('lp', lambda: F.lp_pool2d(x.abs() + 0.1, 3, 2, ceil_mode=True))):
    x.grad = None
    f().backward(g)
    print(name, r(x.grad[0, 0]))
#%% fractional max pool
torch.manual_seed(1)
x = torch.randn(1, 1, 6, 6)
print(F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=torch.tensor([[[0.3, 0.7]]])))
print(F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5), return_indices=True, _random_samples=torch.tensor([[[0.5, 0.5]]]))[1])
show(lambda: F.fractional_max_pool2d(x, 2))
#%% norms
torch.manual_seed(2)
x = torch.randn(2, 4, 3)
print(r(F.group_norm(x, 2, weight=torch.arange(4.), bias=torch.ones(4))[0]), r(F.layer_norm(x, (3,), eps=1e-2)[1]))
ln = nn.LayerNorm(3, elementwise_affine=True, bias=False)
print(sorted(n for n, _ in ln.named_parameters()), r(ln(x)[0, 0]))
print(r(F.rms_norm(x, (3,))[0, 0]), r(F.rms_norm(x, (4, 3), weight=torch.ones(4, 3) * 2, eps=0.1)[0, 0]), r(nn.RMSNorm(3)(x)[0, 0]), nn.RMSNorm(3).eps)
inorm = nn.InstanceNorm1d(4, affine=True, track_running_stats=True)
y = inorm(x)
print(r(inorm.running_mean), r(inorm.running_var), r(y[0, 0]))
inorm.eval()
print(r(inorm(x)[0, 0]))
show(lambda: F.group_norm(x, 3))
show(lambda: F.layer_norm(x, (4,)))
show(lambda: nn.InstanceNorm1d(4)(torch.randn(4, 1)))
print(r(nn.LocalResponseNorm(2)(x.abs())[0]), r(F.normalize(x, p=1, dim=1)[0]))
#%% batchnorm modes
torch.manual_seed(3)
bn = nn.BatchNorm1d(3, momentum=None)
for _ in range(3):
    bn(torch.randn(4, 3) * 2 + 1)
print(r(bn.running_mean), r(bn.running_var), bn.num_batches_tracked)
bn2 = nn.BatchNorm2d(2, affine=False, track_running_stats=False)
print(r(bn2(torch.arange(16.).view(2, 2, 2, 2))[0, 0]), bn2.running_mean)
bn2.eval()
print(r(bn2(torch.arange(16.).view(2, 2, 2, 2))[0, 0]))
show(lambda: nn.BatchNorm1d(3)(torch.randn(1, 3)))
show(lambda: nn.BatchNorm1d(3)(torch.randn(2, 4)))
show(lambda: nn.BatchNorm2d(3)(torch.randn(2, 3, 4)))
print(r(F.batch_norm(torch.randn(4, 3), torch.zeros(3), torch.ones(3), training=True, momentum=0.5)))
bn3 = nn.BatchNorm1d(3)
bn3(torch.randn(1, 3, 2))
print(bn3.num_batches_tracked, r(bn3.running_var))
#%% conv options
torch.manual_seed(4)
x = torch.randn(1, 4, 7, 6)
for kw in (dict(padding='same'), dict(padding='same', dilation=2), dict(padding='valid', stride=2), dict(groups=2, padding=1), dict(padding=(1, 2), padding_mode='reflect'), dict(padding=1, padding_mode='circular'), dict(padding=2, padding_mode='replicate', stride=(2, 1))):
    c = nn.Conv2d(4, 2, 3, **kw)
    print(kw, c(x).shape, r(c(x)[0, 0, 0]))
show(lambda: nn.Conv2d(4, 2, 3, padding='same', stride=2))
show(lambda: nn.Conv2d(4, 3, 3, groups=2))
show(lambda: nn.Conv2d(4, 2, 3)(torch.randn(1, 3, 5, 5)))
show(lambda: nn.Conv2d(4, 2, 9)(x))
print(nn.Conv1d(2, 4, 4, padding='same')(torch.randn(1, 2, 6)).shape)
ct = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1, dilation=1)
print(ct(x).shape, ct(x, output_size=(13, 11)).shape, r(ct(x)[0, 0, 0, :4]))
show(lambda: ct(x, output_size=(20, 20)))
show(lambda: nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=2))
