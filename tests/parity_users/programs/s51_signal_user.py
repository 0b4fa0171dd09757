import math

import torch
import torch.nn.functional as F


def r(t, n=4):
    if isinstance(t, torch.Tensor):
        if t.is_complex():
            return [r(t.real, n), r(t.imag, n)]
        return (t.detach().round(decimals=n) + 0.0).tolist()  # FFT noise: -0.0 as 0.0
    return round(float(t), n)


def tone(freq, sr=64, n=64):
    t = torch.arange(n, dtype=torch.float32) / sr
    return torch.sin(2 * math.pi * freq * t)

#%% spectrum of a sum of tones: rfft magnitudes, peak bins and Parseval
x = tone(5) + 0.5 * tone(12)
X = torch.fft.rfft(x)
mag = X.abs()
print(X.shape, X.dtype, mag.topk(2).indices.tolist(), r(mag.max()))
print(r((x ** 2).sum()), r((torch.fft.fft(x).abs() ** 2).sum() / x.numel()))
print(r(torch.fft.rfftfreq(8, d=0.5)), r(torch.fft.fftshift(torch.fft.fftfreq(5))))
print(r(torch.fft.irfft(X, n=64)[:4]), r(torch.fft.fft(x, norm="ortho")[:2]))

#%% windows and a short-time Fourier transform round trip
x = tone(5, n=128) + 0.2 * tone(20, n=128)
win = torch.hann_window(32)
S = torch.stft(x, n_fft=32, hop_length=8, window=win, return_complex=True)
print(S.shape, r(S.abs()[:3, 2]), r(S.abs().mean()))
y = torch.istft(S, n_fft=32, hop_length=8, window=win, length=x.numel())
print(r((y - x).abs().max(), 5), y.dtype)
print(r(torch.hamming_window(5)), r(torch.blackman_window(5, periodic=False)), r(torch.kaiser_window(4)))
S2 = torch.stft(x, 16, hop_length=4, window=torch.ones(16), center=False, return_complex=True, onesided=False)
print(S2.shape, r(S2[0, :3].real))

#%% filtering by convolution and in the frequency domain agree
torch.manual_seed(0)
sig = torch.randn(1, 1, 50)
k = torch.tensor([[[0.25, 0.5, 0.25]]])
direct = F.conv1d(F.pad(sig, (2, 0)), k.flip(-1))
n = 50 + 2
spec = torch.fft.irfft(torch.fft.rfft(sig, n=n) * torch.fft.rfft(k, n=n), n=n)[..., :50]
print(r(direct[0, 0, :5]), bool((direct - spec).abs().max() < 1e-5))
print(r(torch.fft.fft2(torch.eye(3)).real), r(torch.fft.ifftn(torch.ones(2, 2)).real))

#%% gradients through the FFT and complex parameters
torch.manual_seed(1)
w = torch.randn(8, requires_grad=True)
z = torch.fft.rfft(w)
loss = (z.abs() ** 2).sum() + z.angle()[1]
loss.backward()
print(r(loss), r(w.grad))
c = torch.randn(4, dtype=torch.cfloat, requires_grad=True)
out = (c * c.conj()).real.sum() + torch.view_as_real(c).sum()
out.backward()
print(r(c.grad), c.grad.dtype)
p = torch.polar(torch.tensor([1.0, 2.0]), torch.tensor([0.0, math.pi / 2]))
print(r(p), r(torch.view_as_complex(torch.tensor([[1.0, 2.0], [3.0, -1.0]]))))

#%% mistakes: complex input to rfft, bad n_fft, stft without return_complex
try:
    torch.fft.rfft(torch.randn(4, dtype=torch.cfloat))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.stft(torch.randn(20), 64, return_complex=True)
except RuntimeError as e:
    print(type(e).__name__, str(e).split("\n")[0])
try:
    torch.stft(torch.randn(100), 16)
except RuntimeError as e:
    print(type(e).__name__, str(e).split("\n")[0][:80])
