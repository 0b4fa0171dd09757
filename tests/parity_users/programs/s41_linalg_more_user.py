import torch
#%% matrix functions
A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64)
print(torch.linalg.matrix_exp(torch.zeros(2, 2)), torch.linalg.matrix_power(A, 0), torch.linalg.matrix_power(A, -1), torch.linalg.cholesky(A))
print(torch.linalg.solve_triangular(torch.tensor([[2.0, 0.0], [1.0, 1.0]]), torch.tensor([[2.0], [3.0]]), upper=False), torch.cholesky_solve(torch.tensor([[1.0], [2.0]], dtype=torch.float64), torch.linalg.cholesky(A)))
#%% LU and errors for singular matrices
LU, piv = torch.linalg.lu_factor(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(LU, piv, torch.linalg.lu_solve(LU, piv, torch.tensor([[1.0], [1.0]])))
P, L, U = torch.linalg.lu(torch.tensor([[0.0, 1.0], [1.0, 0.0]]))
print(P, L, U)
try:
    torch.linalg.solve(torch.zeros(2, 2), torch.ones(2))
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.linalg.inv_ex(torch.zeros(2, 2)).info, torch.linalg.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]])).info)
#%% cross, vecdot, outer, trace, diag
u, v = torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0])
print(torch.linalg.cross(u, v), torch.linalg.vecdot(u, v), torch.outer(u, v).trace(), torch.diag(torch.tensor([1, 2])), torch.diag(torch.arange(9).view(3, 3), 1), torch.kron(torch.eye(2), torch.ones(1, 2)))
try:
    torch.linalg.cross(torch.ones(2), torch.ones(2))
except RuntimeError as e:
    print(e)
