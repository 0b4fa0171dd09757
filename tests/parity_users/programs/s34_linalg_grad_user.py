import torch


def r(t, d=4):
    t = t.detach()
    if t.is_complex():
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    return t.round(decimals=d) + 0.0
torch.manual_seed(0)
#%% svd grads of U and V with gauge-invariant loss
A = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
U, S, Vh = torch.linalg.svd(A, full_matrices=False)
loss = (U @ torch.diag(S ** 2) @ Vh).sum() + (U[:, 0:1] @ U[:, 0:1].T).trace() * 0 + (Vh.T @ Vh).sum()
loss.backward()
print(r(A.grad))
#%% eigh grads of vectors
A = torch.randn(3, 3, dtype=torch.float64)
A = A + A.T
A.requires_grad_()
L, V = torch.linalg.eigh(A)
(V @ torch.diag(L.exp()) @ V.T).sum().backward()
print(r(A.grad))
#%% ex variants
A = torch.tensor([[1., 2.], [2., 4.]])
print(torch.linalg.inv_ex(A).info, torch.linalg.cholesky_ex(A).info, torch.linalg.lu_factor_ex(A).info, torch.linalg.solve_ex(A, torch.ones(2)).info)
print(torch.linalg.inv_ex(torch.eye(2)).inverse, type(torch.linalg.inv_ex(A)).__name__)
try:
    torch.linalg.inv_ex(A, check_errors=True)
except Exception as e:
    print(type(e).__name__, e)
#%% matrix_norm grads
A = torch.tensor([[1., -2.], [3., 0.5]], dtype=torch.float64, requires_grad=True)
for o in ('fro', 'nuc', 2, 1, float('inf')):
    A.grad = None
    torch.linalg.matrix_norm(A, ord=o).backward()
    print(o, r(A.grad))
#%% vector_norm grad at zero
x = torch.zeros(3, requires_grad=True)
torch.linalg.vector_norm(x).backward()
print(x.grad)
x.grad = None
torch.linalg.vector_norm(x, ord=1).backward()
print(x.grad)
x.grad = None
torch.linalg.vector_norm(x, ord=float('inf')).backward()
print(x.grad)
#%% lstsq grad
A = torch.randn(5, 2, dtype=torch.float64, requires_grad=True)
b = torch.randn(5, 1, dtype=torch.float64, requires_grad=True)
torch.linalg.lstsq(A, b).solution.sum().backward()
print(r(A.grad), r(b.grad))
#%% qr complete grad error and batched solve grad
A = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
Q, R = torch.linalg.qr(A, mode='complete')
try:
    Q.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e)[:100])
A = torch.randn(2, 3, 3, dtype=torch.float64, requires_grad=True)
b = torch.randn(3, dtype=torch.float64)
torch.linalg.solve(A, b).sum().backward()
print(A.grad.shape)
#%% eig grad
A = torch.tensor([[2., 1.], [0.5, 3.]], dtype=torch.float64, requires_grad=True)
L, V = torch.linalg.eig(A)
L.real.sum().backward()
print(r(A.grad))
#%% cholesky grad and cholesky_solve grad
A = torch.tensor([[4., 1.], [1., 3.]], dtype=torch.float64, requires_grad=True)
L = torch.linalg.cholesky(A)
L.sum().backward()
print(r(A.grad))
#%% matrix_exp and power grads
A = torch.tensor([[0., 1.], [-1., 0.]], dtype=torch.float64, requires_grad=True)
torch.linalg.matrix_exp(A).sum().backward()
print(r(A.grad))
A.grad = None
torch.linalg.matrix_power(A, 3).sum().backward()
print(r(A.grad))
#%% float32 vs float64 linalg dtype rules
A = torch.eye(2)
print(torch.linalg.inv(A).dtype, torch.linalg.eigvals(A).dtype, torch.linalg.svd(A.double())[1].dtype, torch.linalg.eigh(torch.eye(2, dtype=torch.complex64))[0].dtype, torch.linalg.norm(torch.ones(2, dtype=torch.complex64)).dtype, torch.linalg.det(torch.eye(2, dtype=torch.complex64)).dtype)
try:
    torch.linalg.inv(torch.eye(2, dtype=torch.float16))
except Exception as e:
    print(type(e).__name__, e)
