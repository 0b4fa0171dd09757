import torch
import torch.nn as nn
import torch.nn.functional as F
import warnings
def run(label, f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f()
            out = r.shape if isinstance(r, torch.Tensor) else type(r).__name__
        except Exception as e:
            out = f"{type(e).__name__}: {e}"
    print(label, out, [(x.category.__name__, str(x.message).split(" (Triggered")[0]) for x in w])
A = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
#%% old linalg spellings twice
b = torch.ones(2, 1)
LU, piv = torch.linalg.lu_factor(A)
for _ in range(2):
    run("lu", lambda: torch.lu(A))
    run("cholesky", lambda: torch.cholesky(A))
    run("lu_solve", lambda: torch.lu_solve(b, LU, piv))
    run("qr", lambda: torch.qr(A, some=False))
    run("triangular_solve", lambda: torch.triangular_solve(b, A))
    run("cross", lambda: torch.cross(torch.ones(3), torch.ones(3)))
    run("chain_matmul", lambda: torch.chain_matmul(A, A))
    run("norm", lambda: torch.norm(A, p="fro", dim=1))
    run("range", lambda: torch.range(0, 2))
#%% storage and scatter
x = torch.ones(2, 3)
for _ in range(2):
    run("storage", lambda: x.storage().size())
    run("scatter reduce", lambda: torch.zeros(3).scatter_(0, torch.tensor([0]), torch.ones(1), reduce="add"))
    run("untyped", lambda: x.untyped_storage())
#%% nn deprecations
for _ in range(2):
    run("upsample", lambda: F.upsample(torch.ones(1, 1, 2, 2), scale_factor=2))
    run("upsample_bilinear", lambda: F.upsample_bilinear(torch.ones(1, 1, 2, 2), scale_factor=2))
    run("F.sigmoid", lambda: F.sigmoid(A))
    run("F.tanh", lambda: F.tanh(A))
    run("size_average", lambda: F.mse_loss(A, A, size_average=False))
    run("reduce", lambda: nn.MSELoss(reduce=False)(A, A))
    run("softmax nodim", lambda: F.softmax(A))
    run("log_softmax nodim", lambda: F.log_softmax(A))
    run("old weight_norm", lambda: nn.utils.weight_norm(nn.Linear(2, 2)))
    run("init.normal", lambda: nn.init.normal(torch.empty(2)))
    run("autocast cpu", lambda: torch.cpu.amp.autocast(enabled=False))
    run("meshgrid", lambda: torch.meshgrid(torch.ones(2), torch.ones(3)))
#%% tensor construction warnings
for _ in range(2):
    run("tensor of tensor", lambda: torch.tensor(torch.ones(2)))
    run("T on 3d", lambda: torch.ones(2, 3, 4).T)
    run("grad of non-leaf", lambda: (torch.ones(1, requires_grad=True) * 2).grad)
    run("set_default_tensor_type", lambda: torch.set_default_tensor_type(torch.FloatTensor))
    run("LongTensor", lambda: torch.LongTensor([1.7]))
