import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
import torch.fft as fft
#%% n-d transforms
torch.manual_seed(0)
x = torch.randn(4, 6)
print(r(fft.fft2(x)).shape, r(fft.rfft2(x)).shape, r(fft.ihfft2(x)).shape, r(fft.hfft2(fft.ihfft2(x))).shape)
print(r(fft.ihfft2(x)[0]))
print(r(fft.hfft2(fft.ihfft2(x), s=(4, 6))))
print(r(fft.irfft2(fft.rfft2(x), s=x.shape) - x).abs().max())
print(r(fft.rfftn(x, s=(3, 8))).shape, r(fft.ihfftn(x, dim=(0,))).shape, r(fft.hfftn(fft.ihfftn(x), s=(4, 6))).allclose(x, atol=1e-5))
for norm in [None, 'ortho', 'forward', 'backward']:
    print(norm, r(fft.fftn(x, norm=norm)[1, 1]), r(fft.ifft2(x, norm=norm)[0, 1]))
show(lambda: fft.fft2(torch.ones(3)))
show(lambda: fft.rfft2(torch.ones(2, 3, dtype=torch.complex64)))
show(lambda: fft.fftn(x, norm='bad'))
show(lambda: fft.fftn(x, s=(2, 2), dim=(0,)))
#%% spectral utilities
print(fft.fftfreq(5), fft.rfftfreq(6, d=0.5), fft.fftfreq(4, dtype=torch.float64))
print(fft.fftshift(torch.arange(6)), fft.ifftshift(torch.arange(6).reshape(2, 3)), fft.fftshift(torch.arange(6).reshape(2, 3), dim=1))
x = torch.arange(8.)
print(r(fft.fft(x, n=5)), r(fft.ifft(x, n=10)[:3]))
print(fft.fft(torch.arange(4)).dtype, fft.fft(torch.arange(4.).double()).dtype, fft.rfft(torch.ones(4, dtype=torch.float16)).dtype if False else '')
#%% gradients through fft
torch.manual_seed(2)
x = torch.randn(6, requires_grad=True)
y = fft.rfft(x)
(y.abs() ** 2).sum().backward()
print(r(x.grad))
x.grad = None
z = fft.irfft(fft.rfft(x) * torch.tensor([1., 0.5, 0.25, 0., 0., 0.]), n=6)
z.pow(2).sum().backward()
print(r(z), r(x.grad))
c = torch.randn(4, dtype=torch.complex64, requires_grad=True)
fft.ifft(c).real.sum().backward()
print(r(c.grad))
x2 = torch.randn(3, 4, requires_grad=True)
fft.fft2(x2, norm='ortho').imag.sum().backward()
print(r(x2.grad))
print(fft.rfft(x).grad_fn.name(), fft.fft2(x2).grad_fn.name(), fft.irfft(fft.rfft(x)).grad_fn.name())
