import torch
#%% fft of a real signal
torch.manual_seed(0)
x = torch.randn(8)
X = torch.fft.fft(x)
print(X.dtype, X.shape)
print(X.abs().round(decimals=4))
print(torch.fft.ifft(X).real.sub(x).abs().max() < 1e-5)
#%% rfft irfft roundtrip odd length
x = torch.arange(7, dtype=torch.float32)
R = torch.fft.rfft(x)
print(R.shape, R.dtype)
print(torch.fft.irfft(R, n=7).round(decimals=4))
print(torch.fft.irfft(R).shape)
#%% fft norm modes
x = torch.tensor([1.0, 2.0, 0.0, -1.0])
for norm in [None, "forward", "backward", "ortho"]:
    print(norm, torch.fft.fft(x, norm=norm))
#%% fft bad norm
try:
    torch.fft.fft(torch.ones(4), norm="bogus")
except Exception as e:
    print(type(e).__name__, e)
#%% fft2 and fftn
x = torch.arange(12, dtype=torch.float64).reshape(3, 4)
print(torch.fft.fft2(x))
print(torch.fft.fftn(x, s=(4, 4)).shape)
print(torch.fft.rfft2(x).shape, torch.fft.rfftn(x, dim=(0,)).shape)
#%% fftfreq and shift
print(torch.fft.fftfreq(5))
print(torch.fft.fftfreq(6, d=0.5))
print(torch.fft.rfftfreq(6))
print(torch.fft.fftshift(torch.arange(6)))
print(torch.fft.ifftshift(torch.arange(6).reshape(2, 3), dim=1))
#%% fft padding and truncation
x = torch.arange(4.0)
print(torch.fft.fft(x, n=6))
print(torch.fft.fft(x, n=2))
#%% fft gradient
x = torch.randn(6, requires_grad=True)
y = torch.fft.rfft(x).abs().pow(2).sum()
y.backward()
print(x.grad.round(decimals=4))
#%% fft of complex input gradient
z = torch.randn(5, dtype=torch.complex64, requires_grad=True)
w = torch.fft.fft(z)
(w.real.sum() + w.imag.pow(2).sum()).backward()
print(z.grad.dtype, z.grad.round(decimals=4))
#%% hfft ihfft
x = torch.tensor([1.0, 2.0, 3.0, 4.0])
print(torch.fft.ihfft(x))
print(torch.fft.hfft(torch.fft.ihfft(x), n=4))
#%% fft integer input promotes
print(torch.fft.fft(torch.tensor([1, 2, 3])).dtype)
print(torch.fft.rfft(torch.tensor([1, 2, 3], dtype=torch.float64)).dtype)
#%% complex construction
a = torch.complex(torch.tensor([1.0, 2.0]), torch.tensor([3.0, -4.0]))
print(a, a.dtype)
print(a.real, a.imag, a.abs(), a.angle())
print(torch.view_as_real(a))
print(torch.view_as_complex(torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
#%% polar and conj
r = torch.tensor([1.0, 2.0])
th = torch.tensor([0.0, torch.pi / 2])
p = torch.polar(r, th)
print(p.real.round(decimals=5), p.imag.round(decimals=5))
c = p.conj()
print(c.imag.round(decimals=5), c.resolve_conj().imag.round(decimals=5))
print(torch.conj_physical(p).imag.round(decimals=5))
#%% complex arithmetic
a = torch.tensor([1 + 2j, 3 - 1j])
b = torch.tensor([2 - 1j, 0 + 1j])
print(a + b, a * b, a / b)
print(a @ b, torch.vdot(a, b), torch.dot(a, b))
print(a.dtype, (a * 2).dtype, (a * 2.5).dtype)
#%% complex functions
z = torch.tensor([1 + 1j, -1 + 0.5j], dtype=torch.complex128)
print(torch.exp(z))
print(torch.log(z))
print(torch.sqrt(z))
print(torch.sin(z))
print(torch.sgn(z))
print(z.pow(2), z ** 0.5)
#%% complex comparison errors
a = torch.tensor([1 + 2j])
try:
    print(a < a)
except Exception as e:
    print(type(e).__name__, e)
try:
    print(torch.max(torch.tensor([1 + 2j, 3j])))
except Exception as e:
    print(type(e).__name__, e)
print(a == a, a != a)
#%% complex sum mean prod
z = torch.tensor([[1 + 1j, 2 - 1j], [0.5j, -1 + 0j]])
print(z.sum(), z.mean(0), z.prod(1))
print(z.abs().sum(), z.norm())
#%% complex printing
print(torch.tensor([1 + 1j, 1e-5 + 2j, 123.456 - 0j]))
print(torch.zeros(2, 2, dtype=torch.complex64))
print(torch.tensor([float("nan") + 1j, float("inf") * 1j]))
#%% complex type promotion
print(torch.result_type(torch.tensor(1j), torch.tensor(1.0, dtype=torch.float64)))
print((torch.ones(2, dtype=torch.complex64) + torch.ones(2, dtype=torch.float64)).dtype)
print(torch.ones(2, dtype=torch.complex64).to(torch.float32) if False else torch.ones(2, dtype=torch.complex64).real.dtype)
#%% complex to real cast warns
z = torch.tensor([1 + 2j, 3 + 0j])
print(z.to(torch.float32))
#%% complex autograd abs
z = torch.tensor([3 + 4j, 1 - 1j], requires_grad=True)
z.abs().sum().backward()
print(z.grad)
#%% stft istft
torch.manual_seed(0)
x = torch.randn(64)
w = torch.hann_window(16)
S = torch.stft(x, n_fft=16, hop_length=4, window=w, return_complex=True)
print(S.shape, S.dtype)
y = torch.istft(S, n_fft=16, hop_length=4, window=w, length=64)
print((y - x).abs().max() < 1e-5)
#%% stft requires return_complex
try:
    torch.stft(torch.randn(32), n_fft=8)
except Exception as e:
    print(type(e).__name__, str(e)[:120])
#%% windows
print(torch.hann_window(5))
print(torch.hamming_window(5, periodic=False))
print(torch.blackman_window(4, dtype=torch.float64))
print(torch.kaiser_window(5))
print(torch.bartlett_window(6))
