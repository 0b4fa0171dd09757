import torch
import torch.nn.functional as F


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0 if t.is_floating_point() else t


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% addmm family beta zero with nan
nan = torch.full((2, 2), float('nan'))
a = torch.tensor([[1., 2.], [3., 4.]])
print(torch.addmm(nan, a, a, beta=0), torch.addmv(torch.full((2,), float('nan')), a, torch.ones(2), beta=0), torch.addr(nan, torch.ones(2), torch.ones(2), beta=0))
print(torch.baddbmm(nan.unsqueeze(0), a.unsqueeze(0), a.unsqueeze(0), beta=0), torch.addbmm(nan, a.expand(2, 2, 2), a.expand(2, 2, 2), beta=0, alpha=0.5))
print(torch.addmm(torch.ones(2, 2), a, a, beta=2, alpha=0), torch.addmm(torch.ones(2), a, a), torch.addcdiv(torch.ones(2), torch.tensor([1., 2.]), torch.tensor([0., 4.]), value=0.5), torch.addcmul(torch.ones(2), torch.ones(2), torch.tensor([float('inf'), 1.]), value=0))
show(lambda: torch.addmm(torch.ones(2, 2, dtype=torch.int64), a.long(), a.long(), beta=0.5))
show(lambda: torch.addmm(torch.ones(3), a, a))
show(lambda: torch.addcdiv(torch.ones(2, dtype=torch.int64), torch.tensor([1, 2]), torch.tensor([1, 4])))
print(torch.addmm(torch.ones(2, 2, dtype=torch.int64), a.long(), a.long(), beta=2, alpha=3))
#%% matmul shapes and dtypes
x = torch.arange(6.).view(2, 3)
print(torch.matmul(torch.ones(3), torch.ones(3)), torch.matmul(torch.ones(3), x.T).shape, torch.matmul(torch.ones(4, 1, 2, 3), torch.ones(5, 3, 2)).shape, (torch.ones(2, 3) @ torch.ones(3)).shape)
show(lambda: torch.ones(2, 3) @ torch.ones(2, 3))
show(lambda: torch.ones(3) @ torch.ones(4))
show(lambda: torch.ones(2, 3).long() @ torch.ones(3, 2))
show(lambda: torch.mm(torch.ones(2, 3), torch.ones(3)))
show(lambda: torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2)))
show(lambda: torch.dot(torch.ones(3), torch.ones(3, dtype=torch.float64)))
show(lambda: torch.mv(torch.ones(2, 3), torch.ones(2)))
show(lambda: torch.ones(()) @ torch.ones(2))
print(torch.tensor([[1, 2]], dtype=torch.int8) @ torch.tensor([[100], [100]], dtype=torch.int8), torch.tensor([True, False]) @ torch.tensor([True, True]) if False else torch.tensor([1, 2]) @ torch.tensor([3, 4]))
print((torch.ones(2, 2, dtype=torch.float16) @ torch.ones(2, 2, dtype=torch.float16)).dtype, torch.inner(torch.ones(2, 3), torch.ones(4, 3)).shape, torch.outer(torch.tensor([1, 2]), torch.tensor([1., 2.])).dtype)
#%% einsum tensordot kron
a = torch.arange(6.).view(2, 3)
b = torch.arange(12.).view(3, 4)
print(torch.einsum('ij,jk->ik', a, b), torch.einsum('ij->', a), torch.einsum('ii', torch.eye(3)), torch.einsum('i,i', torch.ones(3), torch.ones(3)), torch.einsum('...j,jk->...k', a, b).shape)
print(torch.einsum('bij,bjk->bik', a.expand(2, 2, 3), b.expand(2, 3, 4)).shape, torch.einsum(a, [0, 1], b, [1, 2], [0, 2]).shape, torch.einsum('ij,ij->i', a, a), torch.einsum('i,j->ij', torch.ones(2), torch.ones(3)).shape, torch.einsum('ii->i', torch.arange(9.).view(3, 3)))
show(lambda: torch.einsum('ij,jk->ik', a, a))
show(lambda: torch.einsum('ij->k', a))
show(lambda: torch.einsum('ijk', a))
show(lambda: torch.einsum('ij,jk', a))
print(torch.tensordot(a, b, dims=1).shape, torch.tensordot(a, a, dims=([0, 1], [0, 1])), torch.tensordot(a, b, dims=([1], [0])).shape, torch.tensordot(a, torch.ones(4), dims=0).shape)
print(torch.kron(torch.eye(2), torch.tensor([[1., 2.]])), torch.block_diag(torch.ones(1, 2), torch.tensor([[3.]]), torch.tensor(5)), torch.chain_matmul(a, b, torch.ones(4, 1)).shape if hasattr(torch, 'chain_matmul') else '')
print(torch.cross(torch.eye(3), torch.ones(3, 3), dim=0), torch.cdist(a, a), torch.cdist(a, a, p=1), torch.cdist(a, a, p=0), torch.cdist(a.unsqueeze(0), torch.zeros(1, 1, 3), p=float('inf')))
#%% distances and similarity
x1 = torch.tensor([[1., 0.], [0., 0.], [3., 4.]])
x2 = torch.tensor([[1., 1.]])
print(r(F.cosine_similarity(x1, x2)), r(F.cosine_similarity(x1, x2, eps=1.0)), r(F.pairwise_distance(x1, x2)), r(F.pairwise_distance(x1, x2, p=1, keepdim=True)), r(F.pairwise_distance(x1, x2, eps=0)))
print(r(F.pdist(x1)), r(F.pdist(x1, p=0)), r(F.pdist(x1, p=float('inf'))), r(torch.nn.CosineSimilarity(dim=0)(x1, x1)))
show(lambda: F.cosine_similarity(x1, torch.ones(2, 2)))
show(lambda: F.pdist(x1.unsqueeze(0)))
x = torch.tensor([[0., 0.], [1., 1.]], requires_grad=True)
F.pdist(x).sum().backward()
print(x.grad)
y = torch.zeros(1, 2, requires_grad=True)
F.cosine_similarity(y, torch.ones(1, 2)).sum().backward()
print(y.grad)
#%% one hot gumbel and misc functional
print(F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([[1], [0]]), num_classes=4).shape, F.one_hot(torch.tensor([], dtype=torch.long), 3).shape)
show(lambda: F.one_hot(torch.tensor([3]), 3))
show(lambda: F.one_hot(torch.tensor([-1])))
show(lambda: F.one_hot(torch.tensor([1.])))
show(lambda: F.one_hot(torch.tensor([], dtype=torch.long)))
torch.manual_seed(0)
g = F.gumbel_softmax(torch.tensor([[1., 2., 3.]]), tau=0.5, hard=True)
print(g, g.requires_grad, r(F.gumbel_softmax(torch.tensor([[1., 2., 3.]]), tau=2.0)))
print(F.softmin(torch.tensor([1., 2.]), 0), F.softsign(torch.tensor([-2., 1.])), F.tanhshrink(torch.tensor([1.])), F.hardshrink(torch.tensor([-0.3, 0.7]), 0.5), F.softshrink(torch.tensor([-0.7, 0.7]), 0.5), F.threshold(torch.tensor([0.1, 2.]), 1., -5.))
print(r(F.gelu(torch.tensor([-1., 0.5]), approximate='tanh')), r(F.mish(torch.tensor([-1., 2.]))), r(F.hardswish(torch.tensor([-3., -1., 3.]))), r(F.hardsigmoid(torch.tensor([-3., 0., 3.]))), r(F.elu(torch.tensor([-1.]), alpha=0.5)), r(F.selu(torch.tensor([-1., 1.]))), r(F.celu(torch.tensor([-1.]), alpha=2.)), r(F.softplus(torch.tensor([1., 30.]), beta=2, threshold=10)), r(F.logsigmoid(torch.tensor([-100., 1.]))), r(F.silu(torch.tensor([-1.]))), r(F.relu6(torch.tensor([7., -1.]))), r(F.glu(torch.tensor([1., 2., 3., 4.]))), r(F.leaky_relu(torch.tensor([-2.]), 0.2)), r(F.prelu(torch.tensor([[-2., -1.]]), torch.tensor([0.1, 0.3]))))
show(lambda: F.gelu(torch.tensor([1.]), approximate='fast'))
show(lambda: F.glu(torch.tensor([1., 2., 3.])))
show(lambda: F.softmax(torch.tensor([1., 2.])))
#%% addmm scalars on integer tensors
a = torch.tensor([[1, 2], [3, 4]])
i = torch.ones(2, 2, dtype=torch.int64)
for f in (lambda: torch.addmm(i, a, a, beta=0.5), lambda: torch.addmm(i, a, a, alpha=1.5), lambda: torch.addmm(i, a, a, beta=2.7, alpha=-1.5), lambda: torch.addmm(i, a, a, beta=-0.5), lambda: i.clone().addmm_(a, a, beta=0.5, alpha=2.2), lambda: torch.addmm(i.int(), a.int(), a.int(), alpha=2.5), lambda: torch.addmm(i.to(torch.uint8), a.to(torch.uint8), a.to(torch.uint8), beta=0.5)):
    o = f()
    print(o, o.dtype)
af = a.float()
for f in (lambda: torch.addmm(af.double(), af.double(), af.double(), beta=1j), lambda: torch.addmm(a, a, a, alpha=1j), lambda: torch.addmv(af[0], af, af[0], beta=1j), lambda: torch.addmm(af.half(), af.half(), af.half(), beta=1j), lambda: torch.addmm(af, af, af, beta=1 + 0j), lambda: torch.addmm(a.int(), a.int(), a.int(), beta=2 ** 40), lambda: torch.addmm(a.to(torch.uint8), a.to(torch.uint8), a.to(torch.uint8), beta=-1), lambda: torch.addmm(a.to(torch.uint8), a.to(torch.uint8), a.to(torch.uint8), beta=300), lambda: torch.addr(af, af[0], af[1], beta=1j), lambda: torch.baddbmm(af[None], af[None], af[None], alpha=2j), lambda: torch.addbmm(a, a[None], a[None], beta=2 ** 40), lambda: torch.addmm(a.bool(), a.bool(), a.bool(), beta=0.5), lambda: torch.addmm(af.cfloat(), af.cfloat(), af.cfloat(), beta=1j)):
    show(f)
