import torch
import torch.linalg as LA
#%% solve family and errors
A = torch.tensor([[4.0, 1.0], [2.0, 3.0]], dtype=torch.float64)
b = torch.tensor([1.0, 2.0], dtype=torch.float64)
print(LA.solve(A, b), LA.solve(A, b.view(2, 1)).shape, LA.solve(A, b, left=False))
print(LA.solve_ex(A, b), LA.inv_ex(A))
try:
    LA.solve(torch.zeros(2, 2), torch.ones(2))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    LA.inv(torch.ones(2, 3))
except RuntimeError as e:
    print(e)
try:
    LA.solve(A, torch.ones(3))
except RuntimeError as e:
    print(e)
print(LA.lstsq(torch.tensor([[1.0, 0], [0, 1], [1, 1]]), torch.tensor([[1.0], [2], [3]])).solution)
#%% decompositions signs and shapes
M = torch.tensor([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]], dtype=torch.float64)
L = LA.cholesky(M)
print(L, LA.cholesky(M, upper=True).T.equal(L))
w, V = LA.eigh(M)
print(w, (V @ torch.diag(w) @ V.T - M).abs().max() < 1e-12)
Q, R = LA.qr(torch.arange(6.0, dtype=torch.float64).view(3, 2) + 1)
print(Q.shape, R, LA.qr(torch.ones(3, 2), mode="r")[0].numel(), LA.qr(torch.ones(3, 2), mode="complete").Q.shape)
S = LA.svdvals(M)
print(S, LA.matrix_rank(M), LA.matrix_rank(torch.ones(3, 3)), LA.cond(M))
P, Lu, U = LA.lu(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(P, Lu, U)
try:
    LA.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]]))
except RuntimeError as e:
    print(type(e).__name__, e)
print(LA.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]])).info)
#%% norms and determinants
x = torch.tensor([[3.0, -4.0], [1.0, 2.0]])
print(LA.norm(x), LA.norm(x, "fro"), LA.norm(x, "nuc"), LA.norm(x, 1), LA.norm(x, -1), LA.norm(x, float("inf")), LA.norm(x, 2))
print(LA.vector_norm(x, 0), LA.vector_norm(x, 3, dim=1), LA.vector_norm(x, float("-inf")), LA.matrix_norm(x, ord=-2))
print(LA.det(x), LA.slogdet(x), torch.logdet(torch.eye(2) * 2), LA.det(torch.zeros(0, 0)))
print(torch.norm(x, p="fro", dim=1), torch.norm(x, p=1), torch.norm(torch.tensor([3.0, 4.0])), x.norm(dim=0, keepdim=True))
try:
    LA.norm(x, "bogus")
except RuntimeError as e:
    print(e)
#%% matrix functions
A2 = torch.tensor([[1.0, 2.0], [0.0, 1.0]], dtype=torch.float64)
print(LA.matrix_power(A2, 3), LA.matrix_power(A2, -2), LA.matrix_power(A2, 0))
print(LA.matrix_exp(A2), LA.pinv(torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)))
print(LA.cross(torch.tensor([1.0, 0, 0]), torch.tensor([0.0, 1, 0])), LA.vecdot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])))
print(LA.multi_dot([torch.ones(2, 3), torch.ones(3), ]), LA.householder_product(torch.eye(2), torch.tensor([1.0])) + 0.0)  # LAPACK's -0. (report)
print(LA.tensorinv(torch.eye(4).view(4, 2, 2), ind=1).shape, LA.tensorsolve(torch.eye(6).view(2, 3, 6), torch.ones(2, 3)).shape)
print(LA.vander(torch.tensor([1.0, 2.0, 3.0])), LA.diagonal(torch.arange(9.0).view(3, 3), offset=1))
#%% linalg gradients
A3 = torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64, requires_grad=True)
LA.det(A3).backward()
print(A3.grad.round(decimals=10) + 0.0)
A3.grad = None
LA.inv(A3).sum().backward()
print(A3.grad.round(decimals=10) + 0.0)
A3.grad = None
LA.eigvalsh(A3).pow(2).sum().backward()
print(A3.grad.round(decimals=10) + 0.0)
A3.grad = None
LA.svdvals(A3).sum().backward()
print(A3.grad.round(decimals=10) + 0.0)
print(torch.autograd.gradcheck(lambda a: LA.solve(a, torch.ones(2, dtype=torch.float64)), (A3,)))
#%% complex linalg and eig
C = torch.tensor([[0.0, -1.0], [1.0, 0.0]])
print(LA.eigvals(C), LA.eig(C)[0].dtype)
H = torch.tensor([[2.0, 1j], [-1j, 2.0]], dtype=torch.complex128)
print(LA.eigvalsh(H), torch.view_as_real(LA.det(H)).round(decimals=10) + 0.0, LA.inv(H), H.mH.equal(H))
print(torch.tensor([1 + 1j]).conj().resolve_conj().is_conj(), torch.view_as_complex(torch.tensor([[1.0, 2.0]])))
#%% fft transforms and norms
x = torch.tensor([1.0, 2.0, 0.0, -1.0])
print(torch.fft.fft(x), torch.fft.ifft(torch.fft.fft(x)).real, torch.fft.rfft(x), torch.fft.irfft(torch.fft.rfft(x), n=4))
print(torch.fft.fft(x, norm="ortho"), torch.view_as_real(torch.fft.fft(x, n=6)).round(decimals=5) + 0.0, torch.fft.fft(x, n=2))
print(torch.fft.hfft(torch.tensor([1.0, 2j, 3.0])), torch.fft.ihfft(x))
print(torch.fft.fftfreq(5), torch.fft.rfftfreq(6, d=0.5), torch.fft.fftshift(torch.arange(6)), torch.fft.ifftshift(torch.arange(5)))
X = torch.arange(12.0).view(3, 4)
print(torch.fft.fft2(X).abs().round(decimals=3), torch.fft.rfftn(X, dim=(0, 1)).shape, torch.fft.irfft2(torch.fft.rfft2(X), s=(3, 4)).round(decimals=4))
try:
    torch.fft.fft(x, norm="bogus")
except ValueError as e:
    print(e)
try:
    torch.fft.fft(x, n=0)
except RuntimeError as e:
    print(e)
print(torch.fft.fft(torch.tensor([1, 2, 3])).dtype, torch.fft.rfft(torch.tensor([1.0], dtype=torch.float64)).dtype)
#%% fft gradients
xr = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
torch.fft.rfft(xr).abs().sum().backward()
print(xr.grad)
xr.grad = None
torch.fft.fft(xr).real.sum().backward()
print(xr.grad)
xc = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
torch.fft.ifft(xc).abs().pow(2).sum().backward()
print(xc.grad)
#%% special functions
t = torch.tensor([0.1, 0.5, 1.0, 2.5, 10.0], dtype=torch.float64)
S = torch.special
print(S.erf(t), S.erfc(t), S.erfinv(torch.tensor([-0.5, 0.0, 0.9])), S.erfcx(t))
print(S.gammaln(t), S.digamma(t), S.polygamma(2, t), S.multigammaln(t + 2, 3))
print(S.i0(t), S.i0e(t), S.i1(t), S.i1e(t), S.ndtr(t), S.ndtri(torch.tensor([0.1, 0.5])), S.log_ndtr(-t))
print(S.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 3.0])), S.xlog1py(torch.tensor(2.0), torch.tensor(-0.5)), S.entr(torch.tensor([0.0, 0.5, -1.0])))
print(S.logit(torch.tensor([0.25, 0.0, 1.0]), eps=1e-6), S.expit(torch.tensor([-1.0, 0.0])), S.sinc(torch.tensor([0.0, 0.5])), S.round(torch.tensor([2.5, -1.5])))
print(S.zeta(torch.tensor([2.0, 3.0]), torch.tensor(1.0)), S.gammainc(torch.tensor(2.0), t), S.gammaincc(torch.tensor(2.0), t))
print(S.bessel_j0(t), S.bessel_j1(t), S.bessel_y0(t), S.modified_bessel_k0(t), S.scaled_modified_bessel_k1(t))
print(S.log_softmax(torch.tensor([1.0, 2.0]), 0), S.softmax(torch.tensor([1.0, 2.0]), 0), S.logsumexp(torch.tensor([1.0, 2.0]), 0))
print(S.chebyshev_polynomial_t(torch.tensor([0.5]), 3), S.hermite_polynomial_h(torch.tensor([0.5]), 3), S.legendre_polynomial_p(torch.tensor([0.5]), 4), S.laguerre_polynomial_l(torch.tensor([0.5]), 2))
print(S.airy_ai(torch.tensor([0.0, 1.0])), S.spherical_bessel_j0(torch.tensor([0.0, 1.0])))
#%% special gradients and int inputs
t = torch.tensor([0.5, 2.0], requires_grad=True)
(S.erf(t) + S.gammaln(t) + S.i0(t) + S.xlogy(t, t) + S.entr(t) + S.logit(t.clamp(max=0.9))).sum().backward()
print(t.grad)
print(S.erf(torch.tensor([1, 2])).dtype, S.gammaln(torch.tensor([True])), S.expit(torch.tensor([0], dtype=torch.int8)).dtype)
try:
    S.zeta(torch.tensor([2.0]), torch.tensor([1j]))
except RuntimeError as e:
    print(e)
