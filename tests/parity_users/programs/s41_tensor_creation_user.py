import torch
#%% creation functions and their dtypes
print(torch.arange(5), torch.arange(0, 1, 0.25), torch.arange(5, dtype=torch.float64), torch.linspace(0, 1, 5), torch.logspace(0, 2, 3))
print(torch.full((2, 2), 7), torch.full((2,), 7.0), torch.full((2,), True), torch.zeros_like(torch.ones(2, dtype=torch.int32)), torch.eye(2, 3))
print(torch.tensor([[1, 2], [3, 4]]).new_ones(3), torch.empty(0).new_tensor([1, 2]), torch.tensor(3.0).new_full((2,), 5), torch.ones(2).new_zeros((1, 2), dtype=torch.int8))
#%% creation errors
for f in (lambda: torch.arange(0, 10, 0), lambda: torch.arange(10, 0, 1), lambda: torch.zeros(-1), lambda: torch.tensor([[1, 2], [3]]), lambda: torch.linspace(0, 1, -2), lambda: torch.full((2,), "a"), lambda: torch.eye(-1)):
    try:
        print(f())
    except (RuntimeError, ValueError, TypeError) as e:
        print(type(e).__name__, e)
#%% from lists with mixed types and numpy
import numpy as np
print(torch.tensor([1, 2.5, True]), torch.tensor([[True, False]]).dtype, torch.tensor(np.array([1, 2], dtype=np.int16)), torch.as_tensor([1.5, 2]), torch.from_numpy(np.arange(3.0)))
print(torch.tensor([]).dtype, torch.tensor([[]]).shape, torch.tensor(2**31).dtype, torch.tensor([1e40]).dtype, torch.tensor([1e40]))
