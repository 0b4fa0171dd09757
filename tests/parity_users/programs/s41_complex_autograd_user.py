import torch
#%% gradients of real losses of complex inputs
z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
(z.abs() ** 2).sum().backward()
print(z.grad)
w = torch.tensor([1 + 1j, -2j], requires_grad=True)
(w * w.conj()).real.sum().backward()
print(w.grad)
#%% angle, real/imag, view_as_real
a = torch.tensor([1 + 1j, -1 + 0.5j], requires_grad=True)
a.angle().sum().backward()
print(a.grad)
b = torch.tensor([2 - 3j], requires_grad=True)
torch.view_as_real(b).sum().backward()
print(b.grad, torch.view_as_real(b.detach()), torch.view_as_complex(torch.tensor([[1.0, 2.0]])))
#%% complex loss needs real scalar
c = torch.tensor([1 + 1j], requires_grad=True)
try:
    (c * 2).sum().backward()
except RuntimeError as e:
    print(e)
print(torch.polar(torch.tensor([2.0]), torch.tensor([0.0])), torch.complex(torch.tensor(1.0), torch.tensor(2.0)), (1j * torch.ones(2)).dtype)
#%% complex matmul and exp
m = torch.tensor([[1 + 1j, 0], [0, 1 - 1j]], requires_grad=True)
out = (m @ m).exp().abs().sum()
out.backward()
print(out, m.grad)
