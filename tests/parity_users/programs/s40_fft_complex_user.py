import torch
#%% fft round trip, rfft sizes, fftfreq
torch.manual_seed(0)
x = torch.randn(8)
X = torch.fft.fft(x)
print(X.dtype, torch.allclose(torch.fft.ifft(X).real, x, atol=1e-6), torch.fft.rfft(x).shape, torch.fft.irfft(torch.fft.rfft(x), n=8).shape)
print(torch.fft.fftfreq(5), torch.fft.rfftfreq(6, d=0.5), torch.fft.fftshift(torch.arange(6)))
print(torch.fft.fft2(torch.ones(2, 2)), torch.fft.fft(torch.tensor([1.0, 0.0, 0.0, 0.0]), norm="ortho"))
#%% complex arithmetic, angle, polar, view_as_real
z = torch.tensor([1 + 1j, -2j, 3 + 0j])
print(z.abs(), z.angle(), z.conj(), z.real, z.imag, z * z.conj(), torch.view_as_real(z))
print(torch.polar(torch.tensor([2.0]), torch.tensor([0.0])), torch.complex(torch.tensor([1.0]), torch.tensor([2.0])), z.dtype, (z * 2.0).dtype)
print(torch.view_as_complex(torch.tensor([[1.0, 2.0]])), z.is_complex(), torch.is_complex(z.real))
try:
    torch.view_as_complex(torch.ones(3))
except RuntimeError as e:
    print(str(e))
#%% complex autograd and comparisons
w = torch.tensor([1 + 2j], requires_grad=True)
(w.abs() ** 2).sum().backward()
print(w.grad)
try:
    z < z
except RuntimeError as e:
    print(str(e))
try:
    (w * 2).sum().backward()
except RuntimeError as e:
    print(str(e))
print(torch.tensor([1 + 2j]).to(torch.complex128).dtype, torch.tensor([1.5]).to(torch.complex64))
