import torch

#%% repr dtypes
print(torch.tensor([1, 2], dtype=torch.int16), torch.tensor([1.5], dtype=torch.float16), torch.tensor([1.5], dtype=torch.bfloat16), torch.tensor([True]), torch.tensor([1.], dtype=torch.float64), torch.tensor([1 + 2j], dtype=torch.complex128), torch.tensor([3], dtype=torch.uint8))
#%% sci mode
print(torch.tensor([1e-8, 1.0, 1e8]), torch.tensor([0.0001, 123456.]), torch.tensor([1e-5, 2e-5]), torch.tensor([123456789.]), torch.tensor([1e20]))
#%% set_printoptions precision and sci
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.5]))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.5, 250.0]))
torch.set_printoptions(sci_mode=False, precision=6)
print(torch.tensor([1e-7, 1.0]))
torch.set_printoptions(profile='default')
#%% large tensors summarize
print(torch.arange(2000))
print(torch.arange(3000.).reshape(30, 100))
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10), torch.arange(24).reshape(4, 6))
torch.set_printoptions(profile='default')
#%% linewidth
torch.set_printoptions(linewidth=30)
print(torch.arange(20.))
torch.set_printoptions(profile='default')
#%% special values
print(torch.tensor([float('nan'), float('inf'), -float('inf'), 0.0, -0.0]), torch.tensor([1., float('nan')], dtype=torch.float64), torch.tensor([float('inf'), 1e10]))
#%% empty and scalar reprs
print(torch.tensor([]), torch.zeros(0, 3), torch.zeros(2, 0), torch.tensor(3.5), torch.tensor(2, dtype=torch.int32), torch.ones(1, 1, 1))
print(repr(torch.zeros(0, dtype=torch.int64)), repr(torch.zeros(0, dtype=torch.float64)), torch.empty(0, 2, dtype=torch.bool))
#%% grad_fn and requires_grad in repr
x = torch.tensor([1., 2.], requires_grad=True)
print(x, x * 2, x.sum(), (x * 2).detach(), torch.nn.Parameter(torch.ones(2)))
print(x.mean(), x[0], x.exp(), x.view(2, 1))
#%% complex reprs
print(torch.tensor([1 + 1j, -2.5 - 0.5j]), torch.tensor([1e-5 + 1e5j]), torch.tensor([float('nan') + 1j]), torch.zeros(2, dtype=torch.complex64))
#%% int large and negative
print(torch.tensor([-1, 100000, 3]), torch.tensor([2**40, -5]), torch.tensor([[1, -1], [10, 100]]))
#%% float integral values
print(torch.tensor([1., 2., 300.]), torch.tensor([1., 2.5]), torch.tensor([-0.0, 1.0]), torch.tensor([1e-4, 1.0]), torch.tensor([0.1, 1000.0]))
print(torch.tensor([1000.5, 0.001]), torch.tensor([99999., 100000.]), torch.tensor([1e4, 1e-4]))
#%% str of dtype device shape
x = torch.zeros(2, 3)
print(x.dtype, x.device, x.shape, x.size(), x.layout, str(torch.float16), repr(torch.Size([2])), torch.device('cpu'), torch.int)
print(f"{torch.tensor(3.14159):.2f}", format(torch.tensor(2), 'd') if False else f"{torch.tensor(2)}", f"{torch.tensor([1., 2.])}")
#%% bfloat16 and half prints
print(torch.tensor([0.1, 1000.3, 3.14159], dtype=torch.bfloat16), torch.tensor([65504., 1e-4], dtype=torch.float16), torch.tensor([1/3], dtype=torch.float16))
#%% tensor in containers
print([torch.tensor(1), torch.tensor([1.5])], {'a': torch.ones(1)}, (torch.zeros(1, dtype=torch.int8),))
#%% sparse repr
i = torch.tensor([[0, 1], [1, 0]])
s = torch.sparse_coo_tensor(i, torch.tensor([3., 4.]), (2, 2))
print(s)
print(s.coalesce())
#%% nested 3d repr
print(torch.arange(12).reshape(2, 3, 2), torch.arange(8.).reshape(2, 2, 2) / 3)
#%% uint and bool large
print(torch.ones(3, 3, dtype=torch.bool), torch.tensor([255, 0], dtype=torch.uint8))
#%% meta and quantized repr
print(torch.empty(2, 3, device='meta'), torch.zeros(2, dtype=torch.float16, device='meta'))
