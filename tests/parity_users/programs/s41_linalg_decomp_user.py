import torch
#%% det, slogdet, inverse of integral-determinant matrices
A = torch.tensor([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
print(torch.linalg.det(A), torch.det(torch.eye(3) * 2), torch.linalg.det(torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
print(torch.linalg.slogdet(A), torch.logdet(torch.eye(2) * 3))
print(torch.linalg.inv(torch.tensor([[2.0, 0.0], [0.0, 4.0]])), torch.linalg.det(torch.zeros(2, 2)))
#%% svd and qr shapes, reconstruction
torch.manual_seed(0)
M = torch.randn(4, 3, dtype=torch.float64)
U, S, Vh = torch.linalg.svd(M, full_matrices=False)
print(U.shape, S.shape, Vh.shape, torch.allclose(U @ torch.diag(S) @ Vh, M))
U2, S2, Vh2 = torch.linalg.svd(M)
print(U2.shape, Vh2.shape, torch.linalg.svdvals(M).shape)
Q, R = torch.linalg.qr(M)
print(Q.shape, R.shape, torch.allclose(Q @ R, M), torch.linalg.qr(M, mode="complete").Q.shape, torch.linalg.qr(M, mode="r").Q.shape)
#%% eigh, eigvals, eig of symmetric matrix
S = torch.tensor([[2.0, 1.0], [1.0, 2.0]], dtype=torch.float64)
w, v = torch.linalg.eigh(S)
print(w, v.abs())
print(torch.linalg.eigvals(S), torch.linalg.eig(S).eigenvalues.dtype)
#%% lstsq on overdetermined system
X = torch.tensor([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0], [1.0, 4.0]], dtype=torch.float64)
y = torch.tensor([[6.0], [5.0], [7.0], [10.0]], dtype=torch.float64)
sol = torch.linalg.lstsq(X, y)
print(sol.solution, sol.rank, sol.residuals, sol.singular_values)
print(torch.linalg.pinv(X).shape, torch.allclose(torch.linalg.pinv(X) @ y, sol.solution))
