import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, n=4):
    if isinstance(t, torch.Tensor):
        return t.detach().round(decimals=n).tolist()
    return round(float(t), n)


EDGES = torch.tensor([[0, 1, 1, 2, 3, 4, 4, 5, 2, 0],
                      [1, 0, 2, 1, 4, 3, 5, 4, 5, 3]])
N = 6


def norm_adj(edges, n):
    loops = torch.arange(n).repeat(2, 1)
    e = torch.cat([edges, loops], dim=1)
    deg = torch.zeros(n).index_add_(0, e[0], torch.ones(e.shape[1]))
    w = deg[e[0]].rsqrt() * deg[e[1]].rsqrt()
    return torch.sparse_coo_tensor(e, w, (n, n)).coalesce()

#%% a normalised sparse adjacency: values, indices and dense view
A = norm_adj(EDGES, N)
print(A.is_coalesced(), A.indices().shape, r(A.values()[:6]), r(A.to_dense().sum(1)))
print(r(torch.sparse.sum(A, dim=1).to_dense()), A.layout, A.to_sparse_csr().crow_indices().tolist())

#%% a two-layer GCN trained on node labels with a mask
torch.manual_seed(0)
A = norm_adj(EDGES, N)
X = torch.randn(N, 3)
y = torch.tensor([0, 0, 0, 1, 1, 1])
mask = torch.tensor([True, False, True, True, False, True])
W1, W2 = nn.Linear(3, 8), nn.Linear(8, 2)
opt = torch.optim.Adam([*W1.parameters(), *W2.parameters()], lr=0.05)
for epoch in range(30):
    h = F.relu(torch.sparse.mm(A, W1(X)))
    out = torch.sparse.mm(A, W2(F.dropout(h, 0.2, training=True)))
    loss = F.cross_entropy(out[mask], y[mask])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        print(epoch, r(loss))
with torch.no_grad():
    pred = torch.sparse.mm(A, W2(F.relu(torch.sparse.mm(A, W1(X))))).argmax(1)
print(pred.tolist(), r(W1.weight.grad.norm()))

#%% message passing with scatter: sum, mean and max aggregation
torch.manual_seed(1)
x = torch.randn(N, 2)
src, dst = EDGES
msg = x[src] * 2
s = torch.zeros(N, 2).index_add_(0, dst, msg)
m = torch.zeros(N, 2).scatter_reduce_(0, dst[:, None].expand(-1, 2), msg, reduce="mean", include_self=False)
mx = torch.full((N, 2), -1e9).scatter_reduce(0, dst[:, None].expand(-1, 2), msg, reduce="amax")
print(r(s), r(m), r(mx))
xg = x.clone().requires_grad_()
agg = torch.zeros(N, 2).scatter_reduce(0, dst[:, None].expand(-1, 2), xg[src], reduce="amax", include_self=False)
agg.pow(2).sum().backward()
print(r(xg.grad))

#%% graph utilities: degree histogram, connected pairs, cdist neighbours, topk
torch.manual_seed(2)
deg = torch.bincount(EDGES[0], minlength=N)
print(deg.tolist(), torch.unique(EDGES, dim=1).shape, torch.unique(EDGES[0], return_counts=True))
pts = torch.randn(N, 2)
d = torch.cdist(pts, pts)
d.fill_diagonal_(float("inf"))
vals, idx = d.topk(2, dim=1, largest=False)
print(r(vals), idx.tolist())
adj = torch.zeros(N, N, dtype=torch.bool)
adj[EDGES[0], EDGES[1]] = True
print(torch.equal(adj, adj.T), adj.sum().item(), (adj & adj.T).nonzero().shape)
sp = adj.float().to_sparse()
print(sp._nnz(), (sp @ torch.ones(N, 1)).squeeze(1).tolist())
