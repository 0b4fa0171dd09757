import torch


def r(t, d=3):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])


def grads(fn, *shapes, dtype=torch.float64, seed=0, spd=False):
    torch.manual_seed(seed)
    xs = []
    for s in shapes:
        x = torch.randn(*s, dtype=dtype)
        if spd:
            x = x @ x.mT + torch.eye(s[-1], dtype=dtype)
        xs.append(x.requires_grad_())
    out = fn(*xs)
    outs = out if isinstance(out, tuple) else (out,)
    torch.manual_seed(seed + 100)
    total = sum((o * torch.randn(o.shape, dtype=o.dtype)).sum() if o.is_floating_point() or o.is_complex() else 0 for o in outs)
    if total.is_complex():
        total = total.real
    gs = torch.autograd.grad(total, xs, allow_unused=True)
    return [None if g is None else r(g) for g in gs]
#%% decompositions
print(grads(lambda a: torch.linalg.qr(a), (2, 4, 3)))
show(lambda: grads(lambda a: torch.linalg.qr(a, mode='r')[1], (3, 3)))
show(lambda: grads(lambda a: torch.linalg.qr(a, mode='complete'), (4, 2)))
print(grads(lambda a: torch.linalg.qr(a, mode='complete'), (2, 4)))
print(grads(lambda a: torch.linalg.cholesky(a), (2, 3, 3), spd=True))
print(grads(lambda a: torch.linalg.cholesky(a, upper=True), (3, 3), spd=True))
print(grads(lambda a: torch.linalg.svd(a, full_matrices=False), (3, 2)))
show(lambda: grads(lambda a: torch.linalg.svd(a), (3, 2)))
print(grads(lambda a: torch.linalg.svdvals(a), (2, 2, 4)))
print(grads(lambda a: torch.linalg.eigvalsh(a, UPLO='U'), (3, 3), spd=True))
print(grads(lambda a: torch.linalg.lu_factor(a)[0], (3, 3)))
print(grads(lambda a: torch.linalg.lu(a)[1:], (3, 4)))
#%% solves and inverses
print(grads(lambda a, b: torch.linalg.solve(a, b, left=False), (3, 3), (2, 3)))
print(grads(lambda a, b: torch.linalg.solve_triangular(a.triu() + 3 * torch.eye(3, dtype=a.dtype), b, upper=True, unitriangular=False), (3, 3), (3, 2)))
print(grads(lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True), (3, 3), (2, 3)))
print(grads(lambda a, b: torch.linalg.lstsq(a, b).solution, (4, 2), (4, 3)))
print(grads(lambda a: torch.linalg.pinv(a), (2, 4)))
print(grads(lambda a: torch.linalg.pinv(a, hermitian=True), (3, 3), spd=True))
print(grads(lambda a: torch.linalg.inv_ex(a)[0], (2, 2)))
print(grads(lambda a, b: torch.cholesky_solve(b, torch.linalg.cholesky(a)), (3, 3), (3, 1), spd=True))
print(grads(lambda a: torch.linalg.tensorinv(a.reshape(4, 2, 2), ind=1), (4, 4)))
print(grads(lambda a, b: torch.linalg.tensorsolve(a.reshape(2, 3, 6), b), (6, 6), (2, 3)))
#%% functions of matrices
print(grads(lambda a: torch.linalg.matrix_exp(a), (2, 3, 3)))
print(grads(lambda a: torch.linalg.matrix_power(a, 3), (3, 3)))
print(grads(lambda a: torch.linalg.matrix_power(a, -2), (2, 2)))
print(grads(lambda a: torch.linalg.det(a), (3, 2, 2)))
print(grads(lambda a: torch.linalg.slogdet(a)[1], (3, 3)))
print(grads(lambda a: torch.logdet(a), (3, 3), spd=True))
print(grads(lambda a: torch.linalg.matrix_norm(a, 'nuc'), (3, 4)))
print(grads(lambda a: torch.linalg.matrix_norm(a, 2), (3, 3)))
print(grads(lambda a: torch.linalg.matrix_norm(a, -2), (2, 2)))
print(grads(lambda a: torch.linalg.cond(a), (3, 3)))
print(grads(lambda a: torch.linalg.vector_norm(a, 3.5, dim=1), (2, 3)))
print(grads(lambda a: torch.linalg.multi_dot([a, a.T, a]), (2, 3)))
print(grads(lambda a, b: torch.linalg.cross(a, b), (2, 3), (2, 3)))
print(grads(lambda a: torch.trace(a @ a), (3, 3)))
#%% result layouts
s = torch.tensor([[2., 0.], [1., 3.]])
x = torch.linalg.solve_triangular(s, torch.ones(2, 3), upper=False)
print(x.flatten().view(2, 3), min(x.stride()) > 0)
print(torch.linalg.solve_triangular(s.T, torch.ones(3, 2), upper=True, left=False).stride())
#%% complex grads
print(grads(lambda a: torch.linalg.det(a), (2, 2), dtype=torch.complex128))
print(grads(lambda a: torch.linalg.inv(a), (2, 2), dtype=torch.complex128))
print(grads(lambda a, b: torch.linalg.solve(a, b), (2, 2), (2, 1), dtype=torch.complex128))
print(grads(lambda a: torch.linalg.qr(a)[1], (3, 2), dtype=torch.complex128))
print(grads(lambda a: torch.linalg.eigvalsh(a + a.mH), (2, 2), dtype=torch.complex128))
print(grads(lambda a: torch.linalg.svdvals(a), (2, 3), dtype=torch.complex128))
print(grads(lambda a: torch.linalg.matrix_exp(a), (2, 2), dtype=torch.complex128))
print(grads(lambda a: torch.linalg.cholesky(a @ a.mH + torch.eye(2, dtype=a.dtype)), (2, 2), dtype=torch.complex128))
print(grads(lambda a: torch.linalg.eigvals(a).abs(), (3, 3)))
print(grads(lambda a: torch.linalg.eig(a)[0].real, (2, 2)))
