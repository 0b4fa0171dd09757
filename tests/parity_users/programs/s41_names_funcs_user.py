import torch
#%% looping over functions and printing their names
for fn in (torch.linalg.norm, torch.linalg.det, torch.linalg.inv, torch.fft.fft, torch.fft.rfft, torch.special.expit, torch.special.erf, torch.sin, torch.relu, torch.matmul, torch.linalg.matmul):
    print(fn.__name__)
#%% results table
x = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
for fn in (torch.linalg.det, torch.linalg.matrix_norm, torch.linalg.eigvalsh, torch.linalg.svdvals):
    print(f"{fn.__name__:>22}: {fn(x)}")
for fn in (torch.special.logit, torch.special.ndtr, torch.special.log1p, torch.special.entr):
    print(fn.__name__, fn(torch.tensor([0.25, 0.5])))
