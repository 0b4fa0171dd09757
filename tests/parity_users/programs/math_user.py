import torch
r = lambda t: (t * 1e4).round()
#%% linalg
torch.manual_seed(0)
A = torch.randn(3, 3, dtype=torch.float64)
S = A @ A.T + 3 * torch.eye(3, dtype=torch.float64)
print(r(torch.linalg.inv(S)), r(torch.linalg.det(A)), r(torch.linalg.slogdet(A).logabsdet), r(torch.linalg.cholesky(S)), r(torch.linalg.solve(S, torch.ones(3, dtype=torch.float64))))
print(r(torch.linalg.norm(A)), r(torch.linalg.norm(A, ord=2)), r(torch.linalg.matrix_norm(A, "nuc")), r(torch.linalg.vector_norm(A, ord=float("inf"), dim=1)), torch.linalg.matrix_rank(A), r(torch.linalg.eigvalsh(S)), r(torch.linalg.svdvals(A)))
print(r(torch.linalg.pinv(A[:2])), r(torch.linalg.lstsq(A, torch.ones(3, 1, dtype=torch.float64)).solution), r(torch.linalg.matrix_power(A, 3)), r(torch.linalg.matrix_exp(A / 4)), r(torch.linalg.cross(A[0], A[1])))
Q, R = torch.linalg.qr(A)
print(r(Q.abs()), r(R.abs()), r(torch.linalg.eigvals(A).abs().sort().values), torch.linalg.eig(A).eigenvalues.dtype)
#%% linalg errors
torch.linalg.inv(torch.zeros(2, 2))
#%% cholesky error
torch.linalg.cholesky(-torch.eye(2))
#%% solve shape error
torch.linalg.solve(torch.eye(3), torch.ones(2))
#%% matmul errors
torch.ones(2, 3) @ torch.ones(2, 3)
#%% matmul dtype mix
torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)
#%% matmul shapes
print(torch.matmul(torch.ones(3), torch.ones(3)), torch.matmul(torch.ones(2, 3, 4), torch.ones(4)).shape, torch.matmul(torch.ones(4), torch.ones(2, 4, 5)).shape, torch.bmm(torch.ones(2, 1, 3), torch.ones(2, 3, 1)).shape, torch.ones(2, 3).mm(torch.ones(3, 1)), torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(3, 2)), torch.outer(torch.arange(2), torch.arange(3)), torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=1), torch.inner(torch.ones(2), torch.ones(2)), torch.kron(torch.eye(2), torch.ones(1, 2)))
print(torch.ones(3, dtype=torch.int64) @ torch.arange(3), torch.dot(torch.tensor([1, 2]), torch.tensor([3, 4])))
#%% fft
x = torch.arange(8, dtype=torch.float32)
print(r(torch.fft.fft(x).abs()), r(torch.fft.rfft(x, norm="ortho").real), torch.fft.fftfreq(5), torch.fft.rfftfreq(6, d=0.5), r(torch.fft.ifft(torch.fft.fft(x)).real), torch.fft.fft(x).dtype)
print(r(torch.fft.fft2(x.view(2, 4)).abs()), r(torch.fft.irfft(torch.fft.rfft(x), n=8)), torch.fft.fftshift(torch.arange(6)), r(torch.fft.hfft(torch.tensor([1.0, 2.0, 3.0]))), torch.fft.fft(torch.arange(4)).dtype, torch.fft.fft(x.double()).dtype)
#%% stft
x = torch.sin(torch.arange(64.0) / 3)
s = torch.stft(x, n_fft=16, hop_length=4, window=torch.hann_window(16), return_complex=True)
print(s.shape, s.dtype, r(s.abs().sum()), r(torch.istft(s, n_fft=16, hop_length=4, window=torch.hann_window(16), length=64)[:8]) + 0.0)
#%% special
x = torch.tensor([-1.5, 0.1, 0.5, 2.0, 10.0])
print(r(torch.special.erf(x)), r(torch.special.erfinv(torch.tensor([-0.5, 0.0, 0.9]))), r(torch.special.expit(x)), r(torch.special.logit(torch.tensor([0.2, 0.5]))), r(torch.special.gammaln(x)), r(torch.special.digamma(x)), r(torch.special.xlogy(x, x.abs())))
print(r(torch.special.i0(x)), r(torch.special.i1e(x)), r(torch.special.ndtr(x)), r(torch.special.ndtri(torch.tensor([0.1, 0.5]))), r(torch.special.log_ndtr(x)), r(torch.special.sinc(x)), r(torch.special.entr(torch.tensor([0.0, 0.5, -1.0]))), r(torch.special.polygamma(1, torch.tensor([0.5, 2.0]))), r(torch.special.multigammaln(torch.tensor([2.5]), 2)))
print(r(torch.special.bessel_j0(x)), r(torch.special.zeta(torch.tensor([2.0, 3.0]), torch.tensor([1.0]))), r(torch.special.log_softmax(x, 0)), r(torch.lgamma(torch.tensor([-0.5, 0.0]))), torch.special.gammainc(torch.tensor([1.0]), torch.tensor([2.0])).dtype)
#%% special int
print(torch.special.erf(torch.tensor([0, 1])), torch.special.expit(torch.tensor([0])), torch.exp(torch.tensor([1])).dtype, torch.sqrt(torch.tensor([4], dtype=torch.int8)).dtype)
#%% random
torch.manual_seed(123)
print(torch.rand(3), torch.randn(2, dtype=torch.float64), torch.randint(0, 10, (4,)), torch.randperm(5), torch.randint(5, (2,), dtype=torch.int32).dtype)
print(torch.normal(torch.zeros(2), torch.ones(2)), torch.normal(2.0, 3.0, size=(2,)), torch.bernoulli(torch.full((4,), 0.5)), torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 4, replacement=True))
print(torch.empty(3).uniform_(-1, 1), torch.empty(2).exponential_(), torch.empty(3).random_(0, 5), torch.rand_like(torch.ones(2, dtype=torch.float64)).dtype, torch.randn_like(torch.ones(2)).shape)
g = torch.Generator().manual_seed(7)
print(torch.rand(2, generator=g), g.initial_seed(), torch.initial_seed())
st = torch.get_rng_state()
a = torch.rand(2)
torch.set_rng_state(st)
print(torch.equal(a, torch.rand(2)))
#%% random errors
torch.randint(5, 3, (2,))
#%% multinomial error
torch.multinomial(torch.tensor([0.5, 0.5]), 3)
#%% distributions
from torch.distributions import Normal, Categorical, Bernoulli, Uniform, MultivariateNormal, Beta, kl_divergence
torch.manual_seed(0)
n = Normal(torch.zeros(2), torch.ones(2))
print(n.sample().shape, n.sample((3,)).shape, r(n.log_prob(torch.tensor([0.5, -1.0]))), r(n.entropy()), n.batch_shape, n.event_shape, n)
c = Categorical(logits=torch.tensor([0.1, 0.2, 0.3]))
print(c.sample((4,)), r(c.log_prob(torch.tensor(1))), r(c.probs), r(c.entropy()), Bernoulli(probs=0.3).sample((3,)), Uniform(0, 2).rsample((2,)).requires_grad)
mv = MultivariateNormal(torch.zeros(2), torch.eye(2))
print(r(mv.log_prob(torch.ones(2))), r(kl_divergence(n, Normal(torch.ones(2), 2 * torch.ones(2)))), r(Beta(2.0, 3.0).mean))
#%% distribution validate
from torch.distributions import Normal
Normal(torch.zeros(1), -torch.ones(1))
