import torch
#%% solve, lstsq, inverse, det on a well-conditioned system
A = torch.tensor([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], dtype=torch.float64)
b = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
x = torch.linalg.solve(A, b)
print(x, torch.allclose(A @ x, b), f"{torch.linalg.det(A).item():.6f}", torch.allclose(torch.linalg.inv(A) @ A, torch.eye(3, dtype=A.dtype)))
print(torch.linalg.lstsq(A, b.unsqueeze(1)).solution.squeeze())
#%% norms and condition numbers
M = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
print(torch.linalg.norm(M), torch.linalg.norm(M, ord=1), torch.linalg.norm(M, ord=float("inf")), torch.linalg.matrix_norm(M, "nuc"))
print(torch.linalg.vector_norm(M, ord=3, dim=1), torch.linalg.cond(M), torch.linalg.matrix_rank(M), torch.linalg.matrix_power(M, 3))
#%% cholesky, eigvalsh and errors on singular input
S = A @ A.T
L = torch.linalg.cholesky(S)
print(torch.allclose(L @ L.T, S), torch.linalg.eigvalsh(S))
try:
    torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]]))
except Exception as e:
    print(type(e).__name__, str(e)[:160])
try:
    torch.linalg.inv(torch.zeros(2, 2))
except Exception as e:
    print(type(e).__name__, str(e)[:160])
try:
    torch.linalg.solve(torch.ones(2, 3), torch.ones(2))
except Exception as e:
    print(type(e).__name__, str(e)[:160])
#%% batched matmul and einsum
torch.manual_seed(0)
a = torch.randn(2, 3, 4)
b = torch.randn(2, 4, 5)
print(torch.allclose(torch.bmm(a, b), torch.einsum("bij,bjk->bik", a, b), atol=1e-6))
print(torch.einsum("ii", torch.eye(3) * 2), torch.einsum("i,j->ij", torch.arange(2.), torch.arange(3.)))
print(torch.einsum("bij->b", a).shape, torch.einsum("...ij->...ji", a).shape, torch.einsum(a, [0, 1, 2], [0, 2]).shape)
try:
    torch.einsum("ij,jk", torch.ones(2, 3), torch.ones(2, 3))
except RuntimeError as e:
    print(str(e)[:160])
print(torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(3, 4), torch.ones(4, 1)]).squeeze(), torch.outer(torch.arange(2.), torch.arange(2.)))
