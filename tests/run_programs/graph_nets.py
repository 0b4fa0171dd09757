"""pytorch/examples' gcn and gat patterns on a small Cora-format graph (written by
bench/programs/fabricate.py's ``cora`` into DIR): ``np.genfromtxt`` of the two files, a sparse
diagonal scaling of the features, the adjacency built with ``sparse_coo_tensor`` plus ``eye`` and
normalised with sparse diagonal products, ``torch.spmm`` layers (gcn), masked multi-head
attention with ``torch.where`` over the dense adjacency (gat), Adam with weight decay, dropout.

    python graph_nets.py DIR EPOCHS
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def load(path):
    content = np.genfromtxt(os.path.join(path, "cora.content"), dtype=np.dtype(str))
    cites = np.genfromtxt(os.path.join(path, "cora.cites"), dtype=np.int32)
    feats = torch.FloatTensor(content[:, 1:-1].astype(np.int32))
    scale = 1 / torch.sum(feats, dim=1)
    scale[scale == float("inf")] = 0
    feats = torch.diag(scale).to_sparse() @ feats
    _, labels = np.unique(content[:, -1], return_inverse=True)
    ids = {int(i): k for k, i in enumerate(content[:, 0].astype(np.int32))}
    edges = np.array([[ids[a], ids[b]] for a, b in cites], dtype=np.int32)
    n = len(ids)
    adj = torch.sparse_coo_tensor(edges.T, torch.ones(len(edges)), (n, n), dtype=torch.int64)
    adj = torch.eye(n) + adj
    deg = torch.sqrt(1 / torch.sum(adj, dim=1))
    deg[deg == float("inf")] = 0
    deg = torch.diag(deg).to_sparse()
    return feats, torch.LongTensor(labels), adj, deg @ adj @ deg


class GraphConv(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.kernel = nn.Parameter(torch.Tensor(n_in, n_out))
        nn.init.xavier_normal_(self.kernel)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x, adj):
        return torch.spmm(adj, torch.mm(x, self.kernel)) + self.bias


class GCN(nn.Module):
    def __init__(self, n_in, hidden, n_out):
        super().__init__()
        self.gc1, self.gc2, self.drop = GraphConv(n_in, hidden), GraphConv(hidden, n_out), nn.Dropout(0.5)

    def forward(self, x, adj):
        return F.log_softmax(self.gc2(self.drop(F.relu(self.gc1(x, adj))), adj), dim=1)


class GAT(nn.Module):
    def __init__(self, n_in, hidden, n_out, heads):
        super().__init__()
        self.heads, self.hidden = heads, hidden
        self.W = nn.Parameter(torch.empty(n_in, hidden * heads))
        self.a = nn.Parameter(torch.empty(heads, 2 * hidden, 1))
        nn.init.xavier_normal_(self.W)
        nn.init.xavier_normal_(self.a)
        self.out = nn.Linear(hidden * heads, n_out)
        self.leaky = nn.LeakyReLU(0.2)

    def forward(self, x, adj):
        h = F.dropout(torch.mm(x, self.W), 0.3, training=self.training)
        h = h.view(-1, self.heads, self.hidden).permute(1, 0, 2)
        src = torch.matmul(h, self.a[:, :self.hidden, :])
        dst = torch.matmul(h, self.a[:, self.hidden:, :])
        e = self.leaky(src + dst.mT)
        e = torch.where(adj > 0, e, -9e16 * torch.ones_like(e))
        att = F.dropout(F.softmax(e, dim=-1), 0.3, training=self.training)
        h = torch.matmul(att, h).permute(1, 0, 2).contiguous().view(-1, self.heads * self.hidden)
        return F.log_softmax(self.out(F.elu(h)), dim=1)


def main():
    torch.manual_seed(3)
    feats, labels, adj, norm = load(sys.argv[1])
    print("features", tuple(feats.shape), feats.layout, "adjacency", norm.layout,
          f"{feats.sum().item():.4f} {norm.to_dense().sum().item():.4f}")
    idx = torch.randperm(len(labels))
    train, val = idx[:len(idx) // 2], idx[len(idx) // 2:]
    classes = int(labels.max()) + 1
    for name, model, graph, x in (("gcn", GCN(feats.shape[1], 16, classes), norm,
                                   feats.to_sparse()),
                                  ("gat", GAT(feats.shape[1], 8, classes, 2), adj, feats)):
        opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
        for epoch in range(int(sys.argv[2])):
            model.train()
            opt.zero_grad()
            loss = F.nll_loss(model(x, graph)[train], labels[train])
            loss.backward()
            opt.step()
            model.eval()
            with torch.no_grad():
                out = model(x, graph)[val]
                acc = (out.argmax(1) == labels[val]).float().mean().item()
            print(f"{name} epoch {epoch} loss {loss.item():.6f} val_loss "
                  f"{F.nll_loss(out, labels[val]).item():.6f} acc {acc:.4f}")


if __name__ == "__main__":
    main()
