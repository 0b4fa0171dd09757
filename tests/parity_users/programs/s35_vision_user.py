import torch
import torch.nn.functional as F


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e)[:300])
#%% interpolate modes 1d
x = torch.arange(5.).view(1, 1, 5)
for mode in ('nearest', 'nearest-exact', 'linear'):
    print(mode, r(F.interpolate(x, size=8, mode=mode)))
    print(mode, r(F.interpolate(x, scale_factor=0.6, mode=mode)))
print(r(F.interpolate(x, size=8, mode='linear', align_corners=True)))
print(r(F.interpolate(x, scale_factor=1.7, mode='linear', recompute_scale_factor=True)))
print(r(F.interpolate(x, scale_factor=1.7, mode='linear', recompute_scale_factor=False)))
print(r(F.interpolate(x, scale_factor=1.7, mode='nearest')))
#%% interpolate 2d bicubic area antialias
torch.manual_seed(0)
x = torch.randn(1, 2, 5, 6)
print(r(F.interpolate(x, size=(3, 4), mode='bicubic')))
print(r(F.interpolate(x, size=(7, 9), mode='bicubic', align_corners=True)[0, 0, :2]))
print(r(F.interpolate(x, size=(3, 4), mode='area')))
print(r(F.interpolate(x, size=(3, 4), mode='bilinear', antialias=True)))
print(r(F.interpolate(x, size=(2, 3), mode='bicubic', antialias=True)))
print(r(F.interpolate(x, scale_factor=(0.5, 1.5), mode='bilinear')))
#%% interpolate errors
x = torch.randn(1, 1, 4, 4)
show(lambda: F.interpolate(x, size=(2, 2), mode='linear'))
show(lambda: F.interpolate(x, size=2, scale_factor=2))
show(lambda: F.interpolate(x, mode='bilinear'))
show(lambda: F.interpolate(x, size=(2, 2), mode='nearest', align_corners=True))
show(lambda: F.interpolate(x, size=(2, 2, 2)))
show(lambda: F.interpolate(x, size=(2, 2), mode='cubic'))
show(lambda: F.interpolate(x, size=(2, 2), mode='nearest', antialias=True))
show(lambda: F.interpolate(x.int(), size=(2, 2), mode='bilinear'))
print(F.interpolate(x.to(torch.uint8), size=(2, 2)).dtype)
#%% interpolate 3d trilinear grad
torch.manual_seed(1)
x = torch.randn(1, 1, 2, 3, 3, requires_grad=True)
y = F.interpolate(x, scale_factor=2, mode='trilinear')
g = torch.randn_like(y)
y.backward(g)
print(y.shape, r(x.grad))
x.grad = None
F.interpolate(x, size=(3, 2, 5), mode='nearest-exact').backward(torch.ones(1, 1, 3, 2, 5))
print(x.grad)
#%% grid_sample modes
torch.manual_seed(2)
inp = torch.arange(16.).view(1, 1, 4, 4)
grid = torch.tensor([[[[-1., -1.], [1., 1.], [0., 0.], [1.2, -0.3]], [[0.5, 0.25], [-1.1, 0.9], [0.3, 1.5], [-0.7, -0.7]]]])
for mode in ('bilinear', 'nearest', 'bicubic'):
    for pm in ('zeros', 'border', 'reflection'):
        for ac in (False, True):
            print(mode, pm, ac, r(F.grid_sample(inp, grid, mode=mode, padding_mode=pm, align_corners=ac)).flatten().tolist())
#%% grid_sample grad and 5d
torch.manual_seed(3)
inp = torch.randn(2, 2, 3, 4, requires_grad=True)
grid = (torch.rand(2, 3, 2, 2) * 2.4 - 1.2).requires_grad_()
out = F.grid_sample(inp, grid, align_corners=False, padding_mode='reflection')
out.backward(torch.randn_like(out))
print(r(inp.grad), r(grid.grad))
v = torch.randn(1, 1, 2, 3, 3)
g3 = torch.rand(1, 2, 2, 2, 3) * 2 - 1
print(r(F.grid_sample(v, g3, align_corners=True)), r(F.grid_sample(v, g3, mode='nearest', align_corners=False)))
show(lambda: F.grid_sample(v, g3, mode='bicubic'))
show(lambda: F.grid_sample(inp, torch.rand(2, 3, 2, 3)))
show(lambda: F.grid_sample(inp, torch.rand(1, 3, 2, 2)))
#%% affine_grid
theta = torch.tensor([[[1., 0.2, 0.1], [-0.3, 0.8, 0.]]])
print(r(F.affine_grid(theta, (1, 1, 2, 3), align_corners=False)))
print(r(F.affine_grid(theta, (1, 1, 2, 3), align_corners=True)))
print(r(F.affine_grid(theta, (1, 1, 1, 3), align_corners=True)))
t3 = torch.eye(3, 4).unsqueeze(0)
print(F.affine_grid(t3, (1, 1, 2, 2, 2), align_corners=False).shape)
show(lambda: F.affine_grid(theta, (2, 1, 2, 3), align_corners=False))
show(lambda: F.affine_grid(theta, (1, 1, 2, 3, 4), align_corners=False))
show(lambda: F.affine_grid(theta.int(), (1, 1, 2, 3), align_corners=False))
#%% pad modes
x = torch.arange(12.).view(1, 2, 6)
for mode in ('constant', 'reflect', 'replicate', 'circular'):
    print(mode, F.pad(x, (2, 3), mode=mode))
print(F.pad(x, (-1, 2)), F.pad(x, (1, -2), mode='replicate'))
print(F.pad(x, (1, 1, 1, 0), value=-1.))
x2 = torch.arange(9.).view(1, 1, 3, 3)
print(F.pad(x2, (1, 2, 2, 1), mode='reflect'), F.pad(x2, (1, 0, 0, 2), mode='circular'))
show(lambda: F.pad(x, (6, 0), mode='reflect'))
show(lambda: F.pad(x, (7, 0), mode='circular'))
show(lambda: F.pad(x, (1,), mode='reflect'))
show(lambda: F.pad(x, (1, 1, 1, 1, 1, 1), mode='reflect'))
show(lambda: F.pad(x, (1, 1), mode='wrap'))
show(lambda: F.pad(x.view(12), (1, 1), mode='reflect'))
print(F.pad(x.view(12), (1, 1)))
show(lambda: F.pad(x, (1, 1), mode='reflect', value=2.))
print(F.pad(torch.arange(4).view(1, 4), (1, 2), mode='replicate'), F.pad(torch.tensor([True, False]), (1, 1), value=True))
#%% pad grad
x = torch.arange(6.).view(1, 1, 6).requires_grad_()
for mode in ('reflect', 'replicate', 'circular'):
    x.grad = None
    y = F.pad(x, (3, 2), mode=mode)
    y.backward(torch.arange(11.).view(1, 1, 11))
    print(mode, x.grad)
#%% pixel shuffle unfold fold
x = torch.arange(32.).view(1, 8, 2, 2)
print(F.pixel_shuffle(x, 2).shape, F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2).equal(x), F.channel_shuffle(x, 2)[0, :, 0, 0])
show(lambda: F.pixel_shuffle(x, 3))
show(lambda: F.pixel_unshuffle(x, 3))
u = F.unfold(torch.arange(25.).view(1, 1, 5, 5), kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
print(u.shape, u[0, :, :3])
print(F.fold(u, output_size=(5, 5), kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1)))
show(lambda: F.fold(u, output_size=(4, 4), kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1)))
show(lambda: F.unfold(torch.randn(1, 1, 2, 2), kernel_size=3))
