import torch
#%% rfft/irfft round trip and frequencies
x = torch.tensor([1.0, 2.0, 0.0, -1.0, 3.0, 0.5])
X = torch.fft.rfft(x)
print(X, X.dtype, torch.fft.irfft(X, n=6).round(decimals=4))
print(torch.fft.rfftfreq(6), torch.fft.fftfreq(5, d=0.5), torch.fft.fftshift(torch.arange(6)))
#%% fft norms and 2-d
z = torch.arange(4.0)
print(torch.fft.fft(z), torch.fft.fft(z, norm="ortho"), torch.fft.fft(z, norm="forward"))
print(torch.fft.fft2(torch.eye(2)), torch.fft.ifft(torch.fft.fft(z)).real)
print(torch.fft.fftn(torch.ones(2, 3), dim=(0, 1)), torch.fft.ifftshift(torch.arange(5)))
#%% fft with n padding/trim and dtype
print(torch.fft.fft(z, n=6).shape, torch.fft.fft(z, n=2), torch.fft.fft(torch.arange(4, dtype=torch.float64)).dtype)
print(torch.fft.fft(torch.arange(3)).dtype, torch.fft.hfft(torch.tensor([1.0, 2.0, 3.0]).to(torch.complex64)))
try:
    torch.fft.fft(z, norm="bad")
except Exception as e:
    print(type(e).__name__, e)
#%% gradient through rfft
w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
torch.fft.rfft(w).abs().sum().backward()
print(w.grad)
