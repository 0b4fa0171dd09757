import math
import torch
#%% complex autograd through common functions
z = torch.tensor([1.0 + 2.0j, -0.5 + 0.3j], requires_grad=True)
for name, f in [("abs", lambda z: z.abs()), ("angle", lambda z: z.angle()), ("real", lambda z: (z * z).real), ("imag", lambda z: z.exp().imag),
                ("conj", lambda z: (z * z.conj()).real), ("log", lambda z: z.log().abs()), ("sqrt", lambda z: z.sqrt().real),
                ("sigmoid", lambda z: torch.sigmoid(z).abs()), ("tanh", lambda z: torch.tanh(z).real), ("pow", lambda z: (z ** 3).abs()),
                ("recip", lambda z: z.reciprocal().imag), ("div", lambda z: (1 / (z + 2)).real), ("sgn", lambda z: z.sgn().real), ("view_as_real", lambda z: torch.view_as_real(z)[..., 1])]:
    z.grad = None
    f(z).sum().backward()
    print(name, [complex(round(c.real, 4) + 0.0, round(c.imag, 4) + 0.0) for c in z.grad.tolist()])
#%% complex grads of real parameters and polar
r = torch.tensor([2.0, 0.5], requires_grad=True)
th = torch.tensor([0.3, -1.0], requires_grad=True)
c = torch.polar(r, th)
(c * torch.tensor([1 - 1j, 2j])).real.sum().backward()
print(r.grad.round(decimals=4), th.grad.round(decimals=4))
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.complex(a, a * a)
b.abs().sum().backward()
print(a.grad.round(decimals=4), b.dtype, b.grad_fn.name())
w = torch.randn(3, 3, dtype=torch.cfloat, requires_grad=True)
x = torch.randn(3, dtype=torch.cfloat)
((w @ x).abs() ** 2).sum().backward()
print(w.grad.shape, w.grad.dtype, torch.allclose(w.grad, 2 * torch.outer(w.detach() @ x, x.conj()), atol=1e-5))
#%% complex errors and dtype rules
z = torch.tensor([1 + 1j], requires_grad=True)
for f in [lambda: z.sum().backward(), lambda: torch.autograd.grad(z.abs().sum(), z, create_graph=True)[0].sum().backward(),
          lambda: torch.relu(z), lambda: torch.clamp(z, 0, 1), lambda: torch.floor(z), lambda: z > 0, lambda: torch.sort(z),
          lambda: torch.tensor([1j]).to(torch.float32), lambda: torch.zeros(1).add_(torch.tensor([1j])), lambda: torch.atan2(z, z),
          lambda: torch.tensor([1 + 1j], dtype=torch.complex64) + torch.tensor([1.0], dtype=torch.float64)]:
    try:
        r = f()
        print("ok", r if not isinstance(r, torch.Tensor) else (r.dtype, r.detach()))
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
#%% special functions at edges
x = torch.tensor([-math.inf, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 30.0, math.inf, math.nan])
for name in ["erf", "erfc", "erfinv", "expit", "logit", "ndtr", "ndtri", "log_ndtr", "i0", "i0e", "i1", "i1e", "gammaln", "digamma", "entr",
             "sinc", "expm1", "exp2", "log1p", "round", "bessel_j0", "bessel_j1", "spherical_bessel_j0", "erfcx", "psi", "xlogy", "xlog1py", "zeta"]:
    f = getattr(torch.special, name)
    try:
        r = f(x, torch.tensor(2.0)) if name in ("xlogy", "xlog1py", "zeta") else f(x)
        print(name, [float(f"{v:.5g}") if math.isfinite(v) else v for v in r.tolist()])
    except Exception as e:
        print(name, type(e).__name__, e)
#%% special with integer inputs and dtypes
i = torch.tensor([0, 1, 2, 5])
for name in ["erf", "expit", "gammaln", "i0", "ndtr", "sinc", "entr", "log_softmax", "softmax", "logsumexp", "multigammaln", "polygamma"]:
    f = getattr(torch.special, name)
    try:
        if name in ("log_softmax", "softmax"):
            r = f(i, 0)
        elif name == "logsumexp":
            r = f(i, 0)
        elif name == "multigammaln":
            r = f(i.double() + 2, 2)
        elif name == "polygamma":
            r = f(1, i)
        else:
            r = f(i)
        print(name, r.dtype, r.round(decimals=4))
    except Exception as e:
        print(name, type(e).__name__, e)
print(torch.special.softmax(i, 0, dtype=torch.float64).dtype, torch.special.xlogy(2, torch.tensor([3.0])), torch.special.zeta(torch.tensor([2.0]), 1))
print(torch.special.logit(torch.tensor([0.0, 0.3, 1.0]), eps=0.1), torch.special.gammainc(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 3.0])).round(decimals=4), torch.special.gammaincc(torch.tensor([2.0]), torch.tensor([0.0])))
#%% special gradients
x = torch.tensor([0.3, 1.5, 4.0], dtype=torch.float64, requires_grad=True)
for name in ["erf", "erfc", "erfinv", "gammaln", "digamma", "i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "expit", "logit", "sinc", "entr", "erfcx", "xlog1py"]:
    f = getattr(torch.special, name)
    arg = x / 5 if name in ("erfinv", "ndtri", "logit") else x
    try:
        y = f(arg, torch.tensor(0.5, dtype=torch.float64)) if name == "xlog1py" else f(arg)
        g, = torch.autograd.grad(y.sum(), x)
        print(name, [round(v, 6) for v in g.tolist()], y.grad_fn.name())
    except Exception as e:
        print(name, type(e).__name__, str(e)[:80])
#%% sparse coo arithmetic and reductions
i = torch.tensor([[0, 1, 1, 2], [2, 0, 2, 1]])
v = torch.tensor([1.0, -2.0, 3.0, 4.0])
s = torch.sparse_coo_tensor(i, v, (3, 3)).coalesce()
print(s * 3, (s / 2).to_dense(), (-s).values(), (s * -1.5).coalesce().values())
# (elementwise math, narrow_copy, index_select and sparse @ sparse: README's unsupported list)
print(torch.sparse.sum(s, dim=1).to_dense(), torch.sparse.sum(s, dim=(0, 1)), s.sum(), s.to_dense().sum(0))
print(s.t().coalesce().indices(), s.transpose(0, 1).shape, s.to_dense()[1], s.size(), s.dtype, s.device, s.is_sparse, s.layout)
d = torch.arange(9.0).view(3, 3)
print(torch.sparse.addmm(torch.ones(3, 3), s, d), torch.mm(s, d), s @ torch.ones(3), torch.mv(s, torch.arange(3.0)), torch.ones(3) @ s)
print(s.double().dtype, s.to(torch.float64).values().dtype, s.clone().coalesce().values(), s.detach().is_coalesced())
print(torch.sparse_coo_tensor(size=(2, 2)), torch.zeros(3, layout=torch.sparse_coo).coalesce().indices().shape)
#%% sparse hybrid and construction variants
h = torch.sparse_coo_tensor(torch.tensor([[0, 2]]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]), (3, 2))
print(h.sparse_dim(), h.dense_dim(), h.to_dense(), h.coalesce().values().shape)
print(torch.sparse_coo_tensor(torch.tensor([[0, 0, 1]]), torch.tensor([1.0, 2.0, 3.0])).coalesce(), torch.sparse_coo_tensor(torch.tensor([[1]]), torch.tensor([5]), (3,)).dtype)
e = torch.sparse_coo_tensor(size=(2, 3))
print(e, e._nnz(), e.to_dense())
print(torch.eye(3).to_sparse().coalesce().indices(), torch.tensor([[0, 1], [2, 0]]).to_sparse().values())
for bad in [lambda: torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([1.0]), (2,)),
            lambda: torch.sparse_coo_tensor(torch.tensor([[0.0, 1.0]]), torch.tensor([1.0, 2.0]), (2,)),
            lambda: torch.sparse_coo_tensor(torch.tensor([[-1, 1]]), torch.tensor([1.0, 2.0]), (2,)),
            lambda: torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([1.0, 2.0]), (2, 3)),
            lambda: torch.sparse.mm(torch.eye(2).to_sparse(), torch.ones(3, 2))]:
    try:
        r = bad()
        print("ok", r)
    except (RuntimeError, IndexError, TypeError, NotImplementedError) as e:
        print(type(e).__name__, str(e).split("\n")[0][:150])
#%% sparse gradients through mm and to_dense
torch.manual_seed(0)
w = torch.randn(3, 3).to_sparse().requires_grad_()
x = torch.randn(3, 2, requires_grad=True)
y = torch.sparse.mm(w, x)
(y * torch.arange(6.0).view(3, 2)).sum().backward()
print(w.grad.coalesce().values().round(decimals=4), x.grad.round(decimals=4), w.grad.is_sparse)
v = torch.tensor([1.0, 2.0], requires_grad=True)
s = torch.sparse_coo_tensor(torch.tensor([[0, 2]]), v, (4,))
(s.to_dense() * torch.tensor([1.0, 10.0, 100.0, 1000.0])).sum().backward()
print(v.grad, s.grad_fn.name() if s.grad_fn else None)
v.grad = None
s = torch.sparse_coo_tensor(torch.tensor([[0, 2]]), v, (4,))
torch.sparse.sum(s * 2).backward()
print(v.grad, s.coalesce().grad_fn.name())
