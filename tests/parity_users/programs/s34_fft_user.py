import torch


def r(t, d=4):
    t = t.detach()
    if t.is_complex():
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    return t.round(decimals=d) + 0.0
torch.manual_seed(0)
x = torch.arange(8.)
#%% rfft norms
for n in (None, 'forward', 'backward', 'ortho'):
    X = torch.fft.rfft(x, norm=n)
    print(n, r(X), X.dtype, X.shape)
    print(r(torch.fft.irfft(X, n=8, norm=n)))
#%% irfft odd n and default n
X = torch.fft.rfft(torch.arange(7.))
print(torch.fft.irfft(X).shape, r(torch.fft.irfft(X, n=7)))
#%% fft padding truncating
print(r(torch.fft.fft(torch.tensor([1., 2., 3.]), n=5)), r(torch.fft.fft(torch.tensor([1., 2., 3.]), n=2)))
#%% fftshift
a = torch.arange(10).reshape(2, 5)
print(torch.fft.fftshift(a), torch.fft.ifftshift(a), torch.fft.fftshift(a, dim=1), torch.fft.fftshift(torch.arange(5)))
print(torch.fft.fftfreq(5), torch.fft.rfftfreq(6, d=0.5), torch.fft.fftfreq(4, dtype=torch.float64))
#%% fft2 fftn with dims and s
y = torch.arange(12.).reshape(3, 4)
print(r(torch.fft.fft2(y)), r(torch.fft.rfft2(y, s=(2, 4))), r(torch.fft.fftn(y, dim=(0,))), r(torch.fft.irfftn(torch.fft.rfftn(y), s=y.shape)))
#%% strided input
y = torch.arange(16.).reshape(4, 4)
v = y[:, ::2]
print(r(torch.fft.rfft(v, dim=0)), r(torch.fft.fft(y.t(), dim=1)))
#%% fft of int input and dtypes
print(torch.fft.fft(torch.tensor([1, 2, 3, 4])).dtype, torch.fft.rfft(torch.tensor([1., 2.], dtype=torch.float64)).dtype)
try:
    torch.fft.rfft(torch.tensor([1j, 2j]))
except Exception as e:
    print(type(e).__name__, e)
#%% fft grads
x = torch.randn(6, requires_grad=True)
torch.fft.rfft(x).abs().sum().backward()
print(r(x.grad))
z = torch.randn(5, dtype=torch.complex64, requires_grad=True)
torch.fft.ifft(z, norm='ortho').real.sum().backward()
print(r(z.grad))
#%% hfft ihfft
x = torch.tensor([1., 2., 3., 4.])
print(r(torch.fft.ihfft(x)), r(torch.fft.hfft(torch.fft.ihfft(x), n=4)))
#%% fft errors
for f in (lambda: torch.fft.fft(torch.ones(3), dim=2), lambda: torch.fft.fft(torch.ones(3), n=0), lambda: torch.fft.rfft(torch.ones(3), norm='bad'), lambda: torch.fft.fft2(torch.ones(3))):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
#%% irfft with n too big and stft-ish usage
X = torch.fft.rfft(torch.ones(4))
print(r(torch.fft.irfft(X, n=10)))
print(r(torch.fft.irfft2(torch.fft.rfft2(torch.ones(2, 4)))))
#%% convolution via fft
a = torch.tensor([1., 2., 3.])
b = torch.tensor([0., 1., 0.5])
n = 5
c = torch.fft.irfft(torch.fft.rfft(a, n) * torch.fft.rfft(b, n), n)
print(r(c))
#%% fft on float16 / bfloat16
try:
    print(torch.fft.fft(torch.ones(4, dtype=torch.float16)).dtype)
except Exception as e:
    print(type(e).__name__, e)
try:
    print(torch.fft.rfft(torch.ones(4, dtype=torch.bfloat16)).dtype)
except Exception as e:
    print(type(e).__name__, e)
#%% fft result strides
X = torch.fft.fft2(torch.ones(3, 4))
print(X.stride(), torch.fft.rfft(torch.ones(3, 4), dim=0).stride(), torch.fft.fft(torch.ones(3, 4), dim=0).stride(), torch.fft.rfftn(torch.ones(2, 3, 4)).stride())
print(torch.fft.fftshift(torch.ones(3, 4)).stride(), torch.fft.irfft(torch.ones(3, 4, dtype=torch.complex64), dim=0).stride())
