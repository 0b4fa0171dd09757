import torch


def run(cases):
    for k, f in enumerate(cases):
        try:
            print(k, f())
        except Exception as e:
            print(k, type(e).__name__, str(e).split("\n")[0][:250])
#%% joining and broadcasting 0
a = torch.ones(2, 3)
run([
   lambda: torch.cat([a, a.int()]).dtype, lambda: torch.cat([a, torch.ones(2, 3, dtype=torch.float64)], 1).dtype, lambda: torch.cat([a.bool(), a.int()]).dtype, lambda: torch.cat([a, a], dim=2),
   lambda: torch.cat([a, a], dim=-3), lambda: torch.cat([a]), lambda: torch.cat([]), lambda: torch.cat((a, torch.ones(2, 4))), lambda: torch.cat([a, torch.empty(0)]).shape, lambda: torch.cat([a, torch.ones(3)]),
])
#%% joining and broadcasting 1
a = torch.ones(2, 3)
run([
   lambda: torch.stack([a, a.double()]).dtype, lambda: torch.stack([]), lambda: torch.stack([a, a], dim=3), lambda: torch.stack([a, a], -1).shape, lambda: torch.hstack([a, a]).shape, lambda: torch.vstack([torch.ones(3), torch.ones(3)]).shape,
   lambda: torch.dstack([a, a]).shape, lambda: torch.column_stack([torch.ones(2), a]).shape, lambda: torch.row_stack([a, a]).shape, lambda: torch.concat([a, a]).shape, lambda: torch.concatenate([a, a], axis=1).shape,
])
#%% joining and broadcasting 2
a = torch.ones(2, 3)
run([
   lambda: torch.cat([a, a], out=torch.empty(1)), lambda: torch.cat(a), lambda: torch.stack(a), lambda: torch.cat([a, 1]), lambda: torch.block_diag(a, torch.ones(1)).shape, lambda: torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3])),
   lambda: torch.combinations(torch.tensor([1, 2, 3]), 2), lambda: torch.atleast_2d(torch.tensor(1.)).shape, lambda: torch.atleast_3d(torch.ones(2)).shape, lambda: torch.broadcast_tensors(torch.ones(2, 1), torch.ones(3))[0].shape,
])
#%% joining and broadcasting 3
a = torch.ones(2, 3)
run([
   lambda: torch.broadcast_shapes((2, 1), (3,)), lambda: torch.broadcast_shapes((2,), (3,)), lambda: torch.broadcast_to(a, (2, 2, 3)).shape, lambda: torch.broadcast_to(a, (3,)),
])
