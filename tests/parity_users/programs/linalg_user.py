import torch
def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0
#%% solve batched
torch.manual_seed(0)
A = torch.randn(3, 4, 4, dtype=torch.float64) + 4 * torch.eye(4, dtype=torch.float64)
b = torch.randn(3, 4, 2, dtype=torch.float64)
x = torch.linalg.solve(A, b)
print(x.shape, r(x))
print(torch.allclose(A @ x, b))
#%% solve vector rhs broadcast
A = torch.tensor([[3.0, 1.0], [1.0, 2.0]])
b = torch.tensor([9.0, 8.0])
print(torch.linalg.solve(A, b))
print(torch.linalg.solve(A.expand(2, 2, 2), b).shape)
#%% solve singular
try:
    torch.linalg.solve(torch.zeros(2, 2), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
#%% solve shape mismatch
try:
    torch.linalg.solve(torch.eye(3), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
#%% solve non square
try:
    torch.linalg.solve(torch.ones(2, 3), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
#%% solve gradient
A = torch.tensor([[4.0, 1.0], [2.0, 3.0]], requires_grad=True)
b = torch.tensor([1.0, 2.0], requires_grad=True)
torch.linalg.solve(A, b).sum().backward()
print(r(A.grad), r(b.grad))
#%% inv and det
A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
print(r(torch.linalg.inv(A)), torch.linalg.det(A), torch.det(A))
sign, logabs = torch.linalg.slogdet(A)
print(sign, r(logabs))
torch.linalg.det(A).backward()
print(A.grad)
#%% inv singular
try:
    torch.linalg.inv(torch.ones(3, 3))
except Exception as e:
    print(type(e).__name__, e)
#%% inv_ex
inv, info = torch.linalg.inv_ex(torch.ones(2, 2))
print(info)
#%% lstsq
torch.manual_seed(1)
A = torch.randn(6, 3, dtype=torch.float64)
B = torch.randn(6, 2, dtype=torch.float64)
res = torch.linalg.lstsq(A, B)
print(type(res).__name__, res.solution.shape, r(res.solution))
print(res.residuals.shape, res.rank, res.singular_values.shape)
res2 = torch.linalg.lstsq(A, B, driver="gelsd")
print(r(res2.solution), res2.rank, r(res2.singular_values))
#%% lstsq bad driver
try:
    torch.linalg.lstsq(torch.randn(3, 2), torch.randn(3, 1), driver="nope")
except Exception as e:
    print(type(e).__name__, e)
#%% cholesky
A = torch.tensor([[4.0, 2.0], [2.0, 3.0]])
L = torch.linalg.cholesky(A)
print(r(L), r(torch.linalg.cholesky(A, upper=True)))
print(r(torch.cholesky_solve(torch.tensor([[1.0], [2.0]]), L)))
print(r(torch.cholesky_inverse(L)))
#%% cholesky not pd
try:
    torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]]))
except Exception as e:
    print(type(e).__name__, e)
L, info = torch.linalg.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]]))
print(info)
#%% cholesky gradient
X = torch.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=torch.float64, requires_grad=True)
torch.linalg.cholesky(X).sum().backward()
print(r(X.grad))
#%% qr
A = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64)
Q, R = torch.linalg.qr(A)
print(Q.shape, R.shape, torch.allclose(Q @ R, A))
print(r(R.abs()))
Q2, R2 = torch.linalg.qr(A, mode="complete")
print(Q2.shape, R2.shape)
Q3, R3 = torch.linalg.qr(A, mode="r")
print(Q3.shape, R3.shape)
#%% qr bad mode
try:
    torch.linalg.qr(torch.eye(2), mode="full")
except Exception as e:
    print(type(e).__name__, e)
#%% svd
A = torch.tensor([[3.0, 0.0], [4.0, 5.0]], dtype=torch.float64)
U, S, Vh = torch.linalg.svd(A)
print(r(S), torch.allclose(U @ torch.diag(S) @ Vh, A))
print(r(torch.linalg.svdvals(A)))
U, S, Vh = torch.linalg.svd(torch.randn(5, 3), full_matrices=False)
print(U.shape, S.shape, Vh.shape)
print(torch.svd(torch.randn(4, 2))[2].shape)
#%% svdvals gradient
A = torch.tensor([[2.0, 1.0], [0.0, 1.0]], dtype=torch.float64, requires_grad=True)
torch.linalg.svdvals(A).sum().backward()
print(r(A.grad))
#%% eigh
A = torch.tensor([[2.0, 1.0], [1.0, 2.0]], dtype=torch.float64)
w, V = torch.linalg.eigh(A)
print(w, r(V.abs()))
print(torch.linalg.eigvalsh(A, UPLO="U"))
#%% eig
A = torch.tensor([[0.0, -1.0], [1.0, 0.0]])
w, V = torch.linalg.eig(A)
print(w.dtype, V.dtype, sorted(w.imag.tolist()))
print(torch.linalg.eigvals(torch.tensor([[2.0, 0.0], [0.0, 3.0]])))
#%% norms
x = torch.tensor([[1.0, -2.0], [3.0, -4.0]])
print(torch.linalg.norm(x), torch.linalg.norm(x, "fro"), torch.linalg.norm(x, "nuc"))
print(torch.linalg.norm(x, 2), torch.linalg.norm(x, -2), torch.linalg.norm(x, float("inf")))
print(torch.linalg.vector_norm(x, ord=1), torch.linalg.vector_norm(x, ord=0))
print(torch.linalg.vector_norm(x, ord=3, dim=1), torch.linalg.matrix_norm(x, ord=1))
print(torch.norm(x, dim=0), torch.norm(x, p=1), x.norm(p="fro"))
#%% norm errors
try:
    torch.linalg.matrix_norm(torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.norm(torch.ones(2, 2), "bad")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.vector_norm(torch.ones(3, dtype=torch.int64))
except Exception as e:
    print(type(e).__name__, e)
#%% norm gradient at zero
x = torch.zeros(3, requires_grad=True)
torch.linalg.vector_norm(x).backward()
print(x.grad)
#%% matrix functions
A = torch.tensor([[1.0, 2.0], [0.0, 1.0]], dtype=torch.float64)
print(torch.linalg.matrix_power(A, 3), torch.linalg.matrix_power(A, -1))
print(r(torch.linalg.matrix_exp(A)))
print(torch.linalg.matrix_rank(A), torch.linalg.matrix_rank(torch.ones(3, 3)))
print(r(torch.linalg.pinv(torch.ones(2, 3))))
print(r(torch.linalg.cond(A)))
#%% cross and multi_dot
a = torch.tensor([1.0, 0.0, 0.0])
b = torch.tensor([0.0, 1.0, 0.0])
print(torch.linalg.cross(a, b), torch.cross(a.expand(2, 3), b.expand(2, 3), dim=1))
print(torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(3, 4), torch.ones(4, 1)]))
print(torch.linalg.vecdot(a, b), torch.linalg.diagonal(torch.eye(3)))
#%% lu
A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
P, L, U = torch.linalg.lu(A)
print(P, L, U)
LU, piv = torch.linalg.lu_factor(A)
print(LU, piv)
print(torch.linalg.lu_solve(LU, piv, torch.tensor([[1.0], [1.0]])))
#%% triangular solve
U = torch.tensor([[2.0, 1.0], [0.0, 4.0]])
print(torch.linalg.solve_triangular(U, torch.tensor([[3.0], [8.0]]), upper=True))
print(torch.linalg.solve_triangular(U.T, torch.tensor([[2.0, 4.0]]), upper=False, left=False))
#%% matmul shape errors
for a, b in [((2, 3), (2, 3)), ((3,), (4,)), ((2, 3, 4), (5, 4, 2)), ((), (3,))]:
    try:
        torch.matmul(torch.ones(a), torch.ones(b))
    except Exception as e:
        print(type(e).__name__, e)
try:
    torch.mm(torch.ones(2, 3), torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2))
except Exception as e:
    print(type(e).__name__, e)
#%% matmul dtype mismatch
try:
    torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.ones(2, 2, dtype=torch.int64) @ torch.ones(2, 2)
except Exception as e:
    print(type(e).__name__, e)
print(torch.ones(2, 2, dtype=torch.int64) @ torch.ones(2, 2, dtype=torch.int64))
#%% linalg errors on int
try:
    torch.linalg.inv(torch.eye(2, dtype=torch.int64))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.det(torch.ones(2, 3))
except Exception as e:
    print(type(e).__name__, e)
