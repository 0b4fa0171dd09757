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
#%% complex arithmetic and functions
z = torch.tensor([1 + 2j, -0.5 + 0.25j, 3 - 4j])
print(z * z.conj(), z.abs(), z.angle(), z.real, z.imag, z.conj().imag)
print(r(z.exp()), r(z.log()), r(z.sqrt()), r(z ** 2), r(z ** 0.5), r(torch.sigmoid(z)), r(torch.tanh(z)))
print(r(torch.polar(torch.tensor([1., 2.]), torch.tensor([0., 3.14159 / 2]))), torch.complex(torch.tensor([1.]), torch.tensor([-1.])))
print(torch.view_as_real(z), torch.view_as_complex(torch.tensor([[1., 2.], [3., 4.]])), z.dtype, z.to(torch.complex128).dtype, (z * 1.0).dtype)
print(r(z @ z), r(torch.outer(z, z.conj())[0]), r(z.sum()), r(z.mean()), r(z.prod()), r(torch.linalg.vector_norm(z)))
print(torch.isreal(torch.tensor([1 + 0j, 1j])), z.is_complex(), torch.tensor([1j]).is_floating_point(), z.sgn())
show(lambda: z > 0)
show(lambda: z.max())
show(lambda: torch.sort(z))
show(lambda: z.clamp(0, 1))
show(lambda: torch.tensor([1j]).long())
print(torch.tensor([1.5 + 2j]).to(torch.float32) if False else torch.tensor([1 + 2j]).real.to(torch.int64))
#%% complex autograd
w = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
loss = (w * w.conj()).real.sum()
loss.backward()
print(w.grad)
w.grad = None
(w.abs() ** 2).sum().backward()
print(w.grad)
w.grad = None
torch.view_as_real(w * (2 + 3j)).pow(2).sum().backward()
print(w.grad)
w.grad = None
(w.exp().imag * torch.tensor([1., 2.])).sum().backward()
print(r(w.grad))
show(lambda: (w * 2).sum().backward())
lin = nn.Linear(2, 2, dtype=torch.complex64)
print(lin.weight.dtype, lin(torch.ones(1, 2, dtype=torch.complex64)).dtype)
show(lambda: lin(torch.ones(1, 2)))
#%% complex creation and printing
print(torch.zeros(2, dtype=torch.cfloat), torch.ones(1, dtype=torch.cdouble), torch.randn(2, dtype=torch.complex64, generator=torch.Generator().manual_seed(0)))
print(torch.tensor([1e-10 + 1e10j]), torch.tensor([float('nan') + 1j, complex(float('inf'), -1)]), torch.tensor(2j))
print(torch.arange(3) * 1j, torch.linspace(0, 1, 3, dtype=torch.complex64), torch.full((2,), 1 + 1j).dtype, torch.eye(2, dtype=torch.complex64))
print(torch.tensor([1 + 2j]).numpy().dtype, torch.from_numpy(__import__('numpy').array([1j], dtype='complex128')).dtype, torch.tensor([1 + 2j]).tolist(), torch.tensor(1 + 2j).item())
print(torch.fft.fft(torch.tensor([1., 0., -1., 0.])), torch.promote_types(torch.complex64, torch.float64), torch.result_type(torch.tensor([1j]), 1.0))
