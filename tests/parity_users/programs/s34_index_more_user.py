import torch

#%% setitem autograd
x = torch.zeros(4, requires_grad=True)
y = x.clone()
y[1:3] = torch.tensor([2., 3.], requires_grad=True) * 2
y[0] = x[3] * 5
y.sum().backward()
print(y, x.grad, y.grad_fn)
#%% setitem with bool mask and tensor value broadcasting
x = torch.arange(12.).reshape(3, 4)
x[x[:, 0] > 3] = torch.tensor([-1., -2., -3., -4.])
print(x)
x[:, torch.tensor([True, False, True, False])] = torch.tensor([[10.], [20.], [30.]])
print(x)
x[torch.tensor([0, 2]), 1:3] = 0
print(x)
try:
    x[torch.tensor([0, 2])] = torch.ones(3, 4)
except Exception as e:
    print(type(e).__name__, e)
#%% index_put broadcasting and duplicates
x = torch.zeros(3, 3)
x[torch.tensor([0, 1]), torch.tensor([[0], [2]])] = torch.tensor(1.)
print(x)
x = torch.zeros(5)
x[torch.tensor([1, 1, 1])] = torch.tensor([1., 2., 3.])
print(x)
x.index_put_((torch.tensor([1, 1, 1]),), torch.tensor(1.), accumulate=True)
print(x)
#%% negative index tensor and long index on dims
x = torch.arange(10)
print(x[torch.tensor([-1, -10])], x[[-2]], x[torch.tensor(-3)], x[torch.tensor([[0, 1], [2, 3]])])
try:
    x[torch.tensor([-11])]
except Exception as e:
    print(type(e).__name__, e)
#%% index by tuple vs list semantics
x = torch.arange(9).reshape(3, 3)
print(x[(0, 1)], x[[0, 1]], x[[[0, 1]]] if False else x[([0, 1],)], x[(torch.tensor([0, 1]), torch.tensor([1, 2]))])
#%% slices with step and assignment shapes
x = torch.arange(10)
print(x[1:8:3], x[::4], x[8:2], x[-3:-1], x[100:], x[:-100])
x[1:8:3] = torch.tensor([100, 200, 300])
print(x)
try:
    x[1:8:3] = torch.tensor([1, 2])
except Exception as e:
    print(type(e).__name__, e)
try:
    x[::0]
except Exception as e:
    print(type(e).__name__, e)
#%% index with numpy arrays and bool scalars
import numpy as np

x = torch.arange(6).reshape(2, 3)
print(x[np.array([1, 0])], x[np.array([True, False])], x[True].shape, x[False].shape, x[None, True].shape, x[np.int64(1)])
#%% masked_scatter and masked_fill broadcasting
x = torch.zeros(2, 3)
m = torch.tensor([[True, False, True], [False, True, False]])
print(x.masked_scatter(m, torch.tensor([1., 2., 3., 4.])), x.masked_fill(torch.tensor([True, False, True]), 5.), x.masked_fill(m, torch.tensor(7.)))
try:
    x.masked_fill(m, torch.tensor([1., 2.]))
except Exception as e:
    print(type(e).__name__, e)
#%% gather backward with duplicates
x = torch.tensor([[1., 2., 3.]], requires_grad=True)
torch.gather(x, 1, torch.tensor([[0, 0, 2]])).sum().backward()
print(x.grad)
x.grad = None
x[0, [0, 0, 1]].sum().backward()
print(x.grad)
x.grad = None
x.index_select(1, torch.tensor([2, 2])).sum().backward()
print(x.grad)
#%% nonzero empty and where one arg
print(torch.nonzero(torch.zeros(2, 2)), torch.nonzero(torch.zeros(3)).shape, torch.where(torch.zeros(2, dtype=torch.bool)), torch.argwhere(torch.tensor(1)), torch.nonzero(torch.tensor(5)), torch.tensor(0).nonzero().shape)
