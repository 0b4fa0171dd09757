import torch
#%% determinants of small integer matrices print like integers
for m in ([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], [[2.0, -1.0], [1.0, 3.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]], [[0.0, 1.0], [1.0, 0.0]]):
    A = torch.tensor(m)
    print(torch.linalg.det(A), torch.linalg.det(A.double()), torch.det(A).item(), A.det().double().item())
#%% batched and singular determinants, slogdet, inverse
B = torch.stack([torch.eye(3) * 2, torch.ones(3, 3), torch.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [2.0, 0.0, 1.0]])])
print(torch.linalg.det(B), torch.linalg.slogdet(B))
print(torch.linalg.inv(torch.tensor([[4.0, 7.0], [2.0, 6.0]])), torch.linalg.matrix_rank(B))
