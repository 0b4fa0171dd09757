import math
import torch


def r(t, d=4):
    t = t.detach()
    if t.is_complex():
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    return t.round(decimals=d) + 0.0 if t.is_floating_point() else t


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% special edge values
S = torch.special
x = torch.tensor([-2., -0.5, 0., 0.5, 1., 3., float('inf'), float('nan')])
for name in ('erf', 'erfc', 'erfcx', 'erfinv', 'expit', 'logit', 'i0', 'i0e', 'i1', 'i1e', 'ndtr', 'ndtri', 'log_ndtr', 'digamma', 'gammaln', 'entr', 'sinc', 'expm1', 'exp2', 'log1p', 'round', 'bessel_j0', 'bessel_j1', 'bessel_y0', 'modified_bessel_i0', 'modified_bessel_k0', 'scaled_modified_bessel_k1', 'spherical_bessel_j0', 'airy_ai'):
    show(lambda: (name, getattr(S, name)(x)))
#%% special binary
a = torch.tensor([0., 1., 2., 0.5])
b = torch.tensor([0., 0., 3., -1.])
print(r(S.xlogy(a, b)), r(S.xlog1py(a, b)), r(S.zeta(torch.tensor([2., 3., 1., 0.5]), torch.tensor([1., 2., 1., 1.]))))
print(r(S.polygamma(1, torch.tensor([0.5, 1., 2.]))), r(S.polygamma(3, torch.tensor([0.5, 2.]))), r(S.multigammaln(torch.tensor([2.5, 3.]), 2)))
print(r(S.gammainc(torch.tensor([1., 2.]), torch.tensor([0.5, 3.]))), r(S.gammaincc(torch.tensor([1., 2.]), torch.tensor([0.5, 3.]))), r(S.logit(torch.tensor([0., 0.3, 1.]), eps=0.1)))
print(r(S.softmax(torch.tensor([1, 2, 3]), 0, dtype=torch.float64)), r(S.log_softmax(torch.tensor([1., 2.]), 0)), r(S.logsumexp(torch.tensor([[1., 2.], [-float('inf'), -float('inf')]]), 1)))
print(r(S.chebyshev_polynomial_t(torch.tensor([0.5, 2.]), 3)), r(S.hermite_polynomial_h(torch.tensor([0.5, 2.]), 4)), r(S.legendre_polynomial_p(torch.tensor([0.5]), torch.tensor([0, 1, 5]))), r(S.laguerre_polynomial_l(torch.tensor([1.5]), 3)))
show(lambda: S.multigammaln(torch.tensor([0.5]), 2))
show(lambda: S.polygamma(-1, torch.tensor([1.])))
show(lambda: S.zeta(2, 1))
print(S.zeta(torch.tensor(2.), 1), S.xlogy(2, torch.tensor([3.])), S.xlogy(torch.tensor([0]), torch.tensor([0])))
#%% int inputs to float functions
i = torch.tensor([1, 2, 4])
for f in (torch.sqrt, torch.exp, torch.sin, torch.sigmoid, torch.erf, torch.lgamma, torch.digamma, S.i0, torch.log2, torch.rsqrt, torch.reciprocal, torch.special.entr, torch.nn.functional.softplus if False else torch.tanh):
    show(lambda: (f.__name__, f(i), f(i).dtype))
print(torch.mean(i.float()), torch.abs(torch.tensor([-3], dtype=torch.int8)), torch.neg(torch.tensor([True])) if False else torch.sign(torch.tensor([-2, 0, 3])))
show(lambda: torch.neg(torch.tensor([True])))
show(lambda: torch.tensor([True]) - torch.tensor([False]))
print(torch.square(torch.tensor([True, False])), torch.square(torch.tensor([3], dtype=torch.uint8)), torch.abs(torch.tensor([True])))
#%% complex functions and autograd
z = torch.tensor([1 + 1j, -2 + 0.5j, 0j], dtype=torch.complex64)
print(r(z.abs()), r(z.angle()), r(torch.sgn(z)), r(z.sign() if False else z.conj()), r(z.exp()), r(z.log()), r(z.sqrt()), r(z.reciprocal()))
print(r(torch.polar(torch.tensor([1., 2.]), torch.tensor([0., math.pi / 2]))), torch.view_as_real(z).shape, torch.view_as_complex(torch.tensor([[1., 2.]])), z.real, z.imag)
show(lambda: torch.view_as_complex(torch.tensor([1., 2., 3.])))
show(lambda: z.sign())
show(lambda: z < z)
show(lambda: torch.max(z))
show(lambda: z.clamp(0, 1))
w = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
(w.abs() ** 2).sum().backward()
print(w.grad)
w.grad = None
(w * w.conj()).real.sum().backward()
print(w.grad)
w.grad = None
show(lambda: (w * 2).sum().backward())
w2 = torch.tensor([0.5 + 0.5j], requires_grad=True)
(w2.exp().abs() + w2.angle()).sum().backward()
print(r(w2.grad))
print(r(torch.tensor([1 + 1j]) ** 2), r(torch.tensor([2.]) ** torch.tensor([1j])), r(torch.pow(torch.tensor([0j]), 0)), torch.isclose(torch.tensor([1 + 1j]), torch.tensor([1 + 1.0000001j])))
#%% complex matmul and reductions
A = torch.tensor([[1 + 1j, 2], [0, 1j]])
print(A @ A, A.sum(), A.mean(), A.prod(), A.T.conj() @ A, torch.linalg.norm(A), A.var() if True else '', A.std())
print(A.dtype, torch.tensor([1j]).dtype, torch.complex(torch.tensor([1.], dtype=torch.float64), torch.tensor([2.], dtype=torch.float64)).dtype)
show(lambda: torch.complex(torch.tensor([1.]), torch.tensor([2.], dtype=torch.float64)))
show(lambda: torch.complex(torch.tensor([1]), torch.tensor([2])))
print(torch.tensor([1j]).to(torch.float32) if False else torch.tensor([3 + 4j]).abs().dtype)
show(lambda: torch.tensor([3 + 4j]).to(torch.float32))
print(torch.tensor([1.5 + 2j]).to(torch.complex128).dtype, torch.tensor([1, 2]).to(torch.complex64))
