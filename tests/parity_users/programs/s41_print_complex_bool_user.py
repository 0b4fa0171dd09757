import torch
#%% complex tensors of several magnitudes
print(torch.tensor([1 + 1j, 100 - 0.001j]), torch.tensor([1e-8 + 1j]), torch.tensor([[0j, 1j], [-1j, 1 + 0j]]), torch.tensor([float("nan") + 1j]))
print(torch.arange(4, dtype=torch.complex64) * (1 + 2j), torch.tensor([1 + 2j]).conj(), torch.tensor([1 + 2j]).conj().is_conj(), torch.tensor([3 + 4j]).abs())
#%% bool and int tensors in 2-d/3-d
print(torch.eye(3, dtype=torch.bool), torch.arange(8).view(2, 2, 2) > 3, torch.tensor([[1, -100], [1000, 5]]), torch.tensor([[1, 2]], dtype=torch.int8))
#%% floats needing sci-mode in 2-d and negative values
print(torch.tensor([[1e-4, -2e5], [3.0, 4.0]]), torch.tensor([[-1.0, 2.0], [3.5, -4.25]]), torch.tensor([[1e-10, 0.0]]), torch.tensor([-1e-3, 1e-3]))
