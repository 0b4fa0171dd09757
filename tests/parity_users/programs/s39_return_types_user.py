import torch


def run(cases):
    for k, f in enumerate(cases):
        try:
            print(k, f())
        except Exception as e:
            print(k, type(e).__name__, str(e).split("\n")[0])
#%% named tuple results 0
x = torch.tensor([[3., 1.], [2., 4.]])
run([
   lambda: x.max(0), lambda: torch.sort(x), lambda: torch.topk(x, 1), lambda: x.min(1, keepdim=True), lambda: torch.median(x, 0), lambda: torch.mode(x, 0), lambda: torch.kthvalue(x, 1),
   lambda: torch.linalg.eigh(torch.eye(2)), lambda: torch.linalg.qr(torch.eye(2)), lambda: torch.linalg.svd(torch.eye(2)), lambda: torch.linalg.slogdet(torch.eye(2)), lambda: torch.linalg.lu_factor(torch.eye(2)),
])
#%% named tuple results 1
x = torch.tensor([[3., 1.], [2., 4.]])
run([
   lambda: torch.aminmax(x), lambda: torch.frexp(x), lambda: torch.cummax(x, 0), lambda: torch.std_mean(x), lambda: torch.histogram(x.flatten(), 2), lambda: torch.unique(x, return_counts=True),
   lambda: x.max(0).values, lambda: x.max(0)[1], lambda: type(x.max(0)).__name__, lambda: len(x.max(0)),
])
#%% named tuple results 2
x = torch.tensor([[3., 1.], [2., 4.]])
run([
   lambda: tuple(x.max(0)), lambda: list(torch.sort(x, 1)), lambda: x.max(0) == x.max(0), lambda: isinstance(x.max(0), tuple),
   lambda: torch.linalg.lstsq(torch.eye(2), torch.ones(2, 1)), lambda: torch.linalg.inv_ex(torch.eye(2)), lambda: torch.linalg.cholesky_ex(torch.eye(2)), lambda: torch.geqrf(torch.eye(2)),
])
#%% named tuple results 3
x = torch.tensor([[3., 1.], [2., 4.]])
run([
   lambda: x.max(dim=0).indices.tolist(), lambda: torch.max(x, 1, True), lambda: str(torch.min(x, 0)), lambda: repr(torch.sort(torch.tensor([1]))),
])
