import torch
#%% sparse coo basics and printing
i = torch.tensor([[0, 1, 1], [2, 0, 2]])
v = torch.tensor([3.0, 4.0, 5.0])
s = torch.sparse_coo_tensor(i, v, (2, 3))
print(s)
print(s.to_dense(), s.coalesce().indices(), s.values(), s._nnz(), s.is_sparse, s.layout, s.sparse_dim(), s.dense_dim())
print(torch.sparse.sum(s), torch.sparse.sum(s, dim=1).to_dense(), (s * 2).to_dense(), torch.sparse.mm(s, torch.ones(3, 1)))
#%% sparse uncoalesced duplicates
s = torch.sparse_coo_tensor(torch.tensor([[0, 0, 1]]), torch.tensor([1.0, 2.0, 3.0]), (3,))
print(s.is_coalesced(), s.coalesce(), s.to_dense(), (s + s).to_dense(), s.coalesce().is_coalesced())
#%% dense to sparse (CSR left out: the README says numtorch has no CSR layout)
d = torch.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
print(d.to_sparse(), d.to_sparse(1).values())
#%% quantized tensors
q = torch.quantize_per_tensor(torch.tensor([-1.0, 0.0, 0.5, 2.0]), scale=0.1, zero_point=10, dtype=torch.quint8)
print(q, q.int_repr(), q.dequantize(), q.q_scale(), q.q_zero_point(), q.dtype, q.qscheme())
qc = torch.quantize_per_channel(torch.tensor([[1.0, -1.0], [0.3, 0.7]]), torch.tensor([0.1, 0.05]), torch.tensor([0, 5]), 0, torch.qint8)
print(qc, qc.int_repr(), qc.q_per_channel_scales())
#%% half and bfloat16 print with options
h = torch.tensor([0.1, 1000.5, 1e-4, 65504.0], dtype=torch.float16)
b = torch.tensor([0.1, 1000.5, 1e-4, 3e38], dtype=torch.bfloat16)
print(h, b)
torch.set_printoptions(precision=8)
print(h, b, torch.tensor([0.1], dtype=torch.float64), torch.tensor([1 / 3]))
torch.set_printoptions(precision=1, sci_mode=False)
print(h, b, torch.tensor([1e-8, 1e8]))
torch.set_printoptions(profile="default")
#%% named tensors print and ops
t = torch.zeros(2, 3, names=("N", "C"))
print(t, t.names, t.sum("C").names, t.align_to("C", "N").shape, t.rename(None).names, t.refine_names(..., "C").names if False else None)
