import torch


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0
torch.manual_seed(0)
#%% qr modes batched
A = torch.randn(2, 4, 3, dtype=torch.float64)
for mode in ('reduced', 'complete', 'r'):
    Q, R = torch.linalg.qr(A, mode=mode)
    print(mode, Q.shape, R.shape, r(R.abs()))
#%% qr grad
A = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
Q, R = torch.linalg.qr(A)
(Q.sum() + R.pow(2).sum()).backward()
print(r(A.grad.abs()))
#%% svd batched and grad of singular values
A = torch.randn(3, 5, 4, dtype=torch.float64, requires_grad=True)
U, S, Vh = torch.linalg.svd(A, full_matrices=False)
print(U.shape, S.shape, Vh.shape, r(S))
S.sum().backward()
print(r(A.grad[0]))
print(torch.linalg.svd(A.detach())[0].shape, torch.linalg.svdvals(A.detach()).shape)
#%% svd full matrices grad error
A = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
U, S, Vh = torch.linalg.svd(A, full_matrices=True)
try:
    U.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e)[:120])
#%% eigh and gradient
A = torch.randn(3, 3, dtype=torch.float64)
A = (A + A.mT) / 2
A.requires_grad_()
L, V = torch.linalg.eigh(A)
print(r(L), r(V.abs()))
(L * torch.tensor([1., 2., 3.], dtype=torch.float64)).sum().backward()
print(r(A.grad))
print(r(torch.linalg.eigvalsh(A.detach(), UPLO='U')))
#%% eig complex
A = torch.tensor([[0., -1.], [1., 0.]])
L, V = torch.linalg.eig(A)
print(L.dtype, V.dtype, r(L.real), r(L.imag.abs()))
print(torch.linalg.eigvals(torch.diag(torch.tensor([3., 1.]))))
#%% lstsq
A = torch.randn(2, 5, 3, dtype=torch.float64)
B = torch.randn(2, 5, 2, dtype=torch.float64)
res = torch.linalg.lstsq(A, B)
print(type(res).__name__, res.solution.shape, res.residuals.shape, res.rank, res.singular_values)
res = torch.linalg.lstsq(A, B, driver='gelsd')
print(res.solution.shape, res.residuals.shape, res.rank, res.singular_values.shape)
print(r(res.solution[0]))
#%% matrix_norm vector_norm
A = torch.arange(9, dtype=torch.float32).reshape(3, 3) - 4
for o in ('fro', 'nuc', 1, -1, 2, -2, float('inf'), -float('inf')):
    print(o, r(torch.linalg.matrix_norm(A, ord=o)))
print(r(torch.linalg.vector_norm(A, ord=3, dim=1)), r(torch.linalg.vector_norm(A, ord=0)), torch.linalg.norm(A, dim=(0, 1)))
print(torch.linalg.vector_norm(torch.tensor([3, 4]).float(), dtype=torch.float64))
#%% norm errors
for f in (lambda: torch.linalg.matrix_norm(torch.ones(3)), lambda: torch.linalg.matrix_norm(torch.ones(2, 2), ord=3), lambda: torch.linalg.vector_norm(torch.ones(3, dtype=torch.long))):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
#%% pinv
A = torch.tensor([[1., 2.], [2., 4.], [0., 1.]], dtype=torch.float64)
print(r(torch.linalg.pinv(A)), r(torch.linalg.pinv(A, hermitian=False, rtol=0.5)))
S = torch.tensor([[2., 1.], [1., 2.]], dtype=torch.float64)
print(r(torch.linalg.pinv(S, hermitian=True)))
A.requires_grad_()
torch.linalg.pinv(A).sum().backward()
print(r(A.grad))
#%% cholesky and errors
A = torch.tensor([[4., 2.], [2., 3.]])
L = torch.linalg.cholesky(A)
print(r(L), r(torch.linalg.cholesky(A, upper=True)), r(torch.cholesky_solve(torch.tensor([[1.], [2.]]), L)), r(torch.cholesky_inverse(L)))
try:
    torch.linalg.cholesky(torch.tensor([[1., 2.], [2., 1.]]))
except Exception as e:
    print(type(e).__name__, e)
L, info = torch.linalg.cholesky_ex(torch.tensor([[1., 2.], [2., 1.]]))
print(info)
#%% solve_triangular lu
A = torch.tensor([[2., 0.], [1., 3.]])
B = torch.tensor([[2.], [7.]])
print(torch.linalg.solve_triangular(A, B, upper=False), torch.linalg.solve_triangular(A.T, B.T, upper=True, left=False))
P, L, U = torch.linalg.lu(torch.tensor([[1., 2.], [3., 4.]]))
print(P, r(L), r(U))
LU, piv = torch.linalg.lu_factor(torch.tensor([[1., 2.], [3., 4.]]))
print(r(LU), piv, r(torch.linalg.lu_solve(LU, piv, torch.tensor([[1.], [1.]]))))
#%% matrix_power matrix_exp matrix_rank
A = torch.tensor([[1., 1.], [0., 1.]])
print(torch.linalg.matrix_power(A, 3), torch.linalg.matrix_power(A, -2), r(torch.linalg.matrix_exp(A)), torch.linalg.matrix_rank(torch.ones(3, 3)), torch.linalg.matrix_rank(torch.eye(3), hermitian=True))
print(torch.linalg.matrix_rank(torch.tensor([[1., 0.], [0., 1e-9]]), atol=1e-6))
#%% cond det batched
A = torch.tensor([[[2., 0.], [0., 1.]], [[1., 2.], [3., 4.]]])
print(r(torch.linalg.cond(A)), r(torch.linalg.cond(A, 'fro')), r(torch.linalg.det(A)), torch.linalg.slogdet(A))
#%% cross vecdot multi_dot householder
a = torch.tensor([[1., 0., 0.], [0., 1., 0.]])
b = torch.tensor([[0., 1., 0.]])
print(torch.linalg.cross(a, b), torch.linalg.vecdot(a, b), torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(3, 4), torch.ones(4)]))
try:
    torch.linalg.cross(torch.ones(2, 2), torch.ones(2, 2))
except Exception as e:
    print(type(e).__name__, e)
#%% solve with left False and batch broadcast
A = torch.randn(2, 1, 3, 3, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)
B = torch.randn(4, 3, 3, dtype=torch.float64)
X = torch.linalg.solve(A, B)
print(X.shape, torch.allclose(A @ X, B))
X2 = torch.linalg.solve(A, B, left=False)
print(torch.allclose(X2 @ A, B))
#%% inv grad and singular error
A = torch.tensor([[2., 1.], [1., 1.]], requires_grad=True)
torch.linalg.inv(A)[0, 1].backward()
print(A.grad)
try:
    torch.linalg.inv(torch.ones(2, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.inv(torch.ones(2, 3))
except Exception as e:
    print(type(e).__name__, e)
#%% linalg int input errors
try:
    torch.linalg.solve(torch.eye(2, dtype=torch.long), torch.ones(2, dtype=torch.long))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.det(torch.eye(2, dtype=torch.int32))
except Exception as e:
    print(type(e).__name__, e)
#%% eigh of complex hermitian
A = torch.tensor([[2, 1j], [-1j, 2]], dtype=torch.complex64)
L, V = torch.linalg.eigh(A)
print(L, L.dtype, V.dtype)
#%% diagonal and vander
print(torch.linalg.diagonal(torch.arange(9).reshape(3, 3), offset=1), torch.linalg.vander(torch.tensor([1, 2, 3])), torch.linalg.vander(torch.tensor([1., 2.]), N=4))
#%% matmul errors
for f in (lambda: torch.ones(2, 3) @ torch.ones(2, 3), lambda: torch.mm(torch.ones(2), torch.ones(2)), lambda: torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2)), lambda: torch.ones(3) @ torch.ones(4), lambda: torch.matmul(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64)), lambda: torch.mv(torch.ones(2, 3), torch.ones(2))):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
