import torch
import torch.nn as nn
from torch.autograd import Function
#%% setup_context sees defaults and keywords by position
class Scale(Function):
    @staticmethod
    def forward(x, factor=2.0, shift=0.0):
        return x * factor + shift
    @staticmethod
    def setup_context(ctx, inputs, output):
        print("inputs", len(inputs), inputs[1:])
        ctx.factor = inputs[1]
    @staticmethod
    def backward(ctx, g):
        return g * ctx.factor, None, None
x = torch.tensor([1.0, 2.0], requires_grad=True)
Scale.apply(x).sum().backward(); print(x.grad)
x.grad = None
Scale.apply(x, shift=1.0, factor=3.0).sum().backward(); print(x.grad)
#%% setup_context form called wrongly
class Two(Function):
    @staticmethod
    def forward(x, y):
        return x * y
    @staticmethod
    def setup_context(ctx, inputs, output):
        pass
    @staticmethod
    def backward(ctx, g):
        return g, g
for args, kw in [((), {}), ((torch.ones(1),), {}), ((torch.ones(1), 1, 2), {}), ((torch.ones(1),), {"z": 1})]:
    try:
        Two.apply(*args, **kw)
    except TypeError as e:
        print("TypeError", e)
#%% a ctx forward written for setup_context
class Wrong(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def setup_context(ctx, inputs, output):
        pass
    @staticmethod
    def backward(ctx, g):
        return g
try:
    Wrong.apply(torch.ones(2, requires_grad=True))
except TypeError as e:
    print("TypeError", e)
#%% output of a module with a full backward hook
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
m[2].register_full_backward_hook(lambda mod, gi, go: print("bwd", [g.shape for g in gi], [g.shape for g in go]))
m[2].register_full_backward_pre_hook(lambda mod, go: print("pre", len(go)))
y = m(torch.randn(5, 3, requires_grad=True))
print(y.grad_fn.name(), type(y.grad_fn).__name__)
y.sum().backward()
