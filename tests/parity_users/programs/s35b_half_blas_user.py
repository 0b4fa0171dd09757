import torch


def show(f):
    try:
        out = f()
        print(out.tolist(), out.dtype, out.grad_fn.name() if out.grad_fn else None)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% fused half addmm family
for dt in (torch.float16, torch.bfloat16):
    b = torch.linspace(0, 100, 1000, dtype=dt)
    M = b[:4].reshape(2, 2)
    show(lambda: torch.addmm(M, M, M))
    show(lambda: M.addmm(M, M))
    show(lambda: torch.baddbmm(M[None], M[None], M[None]))
    show(lambda: torch.addbmm(M, torch.stack([M, M * 2]), torch.stack([M, M])))
    show(lambda: torch.addmv(M[0], M, M[1]))
    torch.manual_seed(1)
    A, B, C = torch.randn(5, 7).to(dt), torch.randn(7, 6).to(dt), torch.randn(5, 6).to(dt)
    show(lambda: torch.addmm(C, A, B))
    show(lambda: torch.addmm(C[0], A, B, beta=0.5, alpha=1.5))
    show(lambda: torch.baddbmm(C, torch.stack([A, A]), torch.stack([B, -B]), alpha=0.3))
    show(lambda: torch.addbmm(C, torch.stack([A, -A, A]), torch.stack([B, B, B * 3])))
    show(lambda: torch.addmv(C[:, 0], A, B[:, 0]))
#%% grad_fn names and gradients
for dt in (torch.float32, torch.float16):
    c = torch.ones(2, 2, dtype=dt, requires_grad=True)
    a = torch.ones(3, 2, 2, dtype=dt)
    show(lambda: torch.addbmm(c, a, a, beta=0.5))
    show(lambda: torch.addmv(c[0], a[0], a[0, 0]))
    show(lambda: torch.addmm(c, a[0], a[0], alpha=2))
    torch.addbmm(c, a, a, beta=0.5).sum().backward()
    print(c.grad)
