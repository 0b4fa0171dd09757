import torch
#%% non-square input errors
for fn in (torch.linalg.det, torch.linalg.inv, torch.linalg.eigh, torch.linalg.cholesky, torch.linalg.eigvals):
    try:
        fn(torch.ones(2, 3))
    except RuntimeError as e:
        print(fn.__name__, "|", e)
#%% dtype and dim errors
try:
    torch.linalg.inv(torch.eye(2, dtype=torch.int64))
except RuntimeError as e:
    print(e)
try:
    torch.linalg.det(torch.ones(3))
except RuntimeError as e:
    print(e)
try:
    torch.linalg.svd(torch.ones(3))
except RuntimeError as e:
    print(e)
try:
    torch.linalg.solve(torch.eye(3), torch.ones(4))
except RuntimeError as e:
    print(e)
#%% matmul shape errors users hit
for a, b in ((torch.ones(2, 3), torch.ones(2, 3)), (torch.ones(3), torch.ones(4)), (torch.ones(2, 2, 3), torch.ones(4, 5))):
    try:
        torch.matmul(a, b)
    except RuntimeError as e:
        print(e)
try:
    torch.mm(torch.ones(2, 3), torch.ones(4, 2))
except RuntimeError as e:
    print(e)
try:
    torch.mm(torch.ones(3), torch.ones(3, 2))
except RuntimeError as e:
    print(e)
try:
    torch.bmm(torch.ones(2, 3, 4), torch.ones(3, 4, 5))
except RuntimeError as e:
    print(e)
try:
    torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))
except RuntimeError as e:
    print(e)
#%% norms of various orders
v = torch.tensor([3.0, -4.0, 0.0])
print(torch.linalg.vector_norm(v), torch.linalg.vector_norm(v, 1), torch.linalg.vector_norm(v, float("inf")), torch.linalg.vector_norm(v, 0), torch.linalg.vector_norm(v, -float("inf")))
M = torch.arange(6.0).reshape(2, 3)
print(torch.linalg.matrix_norm(M), torch.linalg.matrix_norm(M, 2), torch.linalg.matrix_norm(M, -2), torch.norm(M), torch.norm(M, dim=1), M.norm(p=1))
try:
    torch.linalg.matrix_norm(v)
except RuntimeError as e:
    print(e)
