import io
import torch
import torch.nn as nn
import torch.nn.functional as F
#%% compile model
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 2))
cm = torch.compile(m)
x = torch.randn(3, 4)
print(torch.allclose(cm(x), m(x), atol=1e-6), type(cm).__name__)
print(cm)
print(list(dict(cm.named_parameters()).keys()))
print(list(cm.state_dict().keys()))
cm(x).sum().backward()
print(m[0].weight.grad.shape)
#%% compile function
@torch.compile
def f(a, b):
    return torch.sin(a) + torch.cos(b)
print(f(torch.zeros(2), torch.zeros(2)))
g = torch.compile(lambda z: z * 2, fullgraph=True, dynamic=True, mode="reduce-overhead")
print(g(torch.ones(2)))
print(torch.compiler.is_compiling(), torch._dynamo.is_compiling())
torch._dynamo.reset()
#%% jit trace
torch.manual_seed(0)
m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 2))
x = torch.randn(1, 1, 4, 4)
tm = torch.jit.trace(m, x)
print(torch.allclose(tm(x), m(x)))
buf = io.BytesIO()
torch.jit.save(tm, buf)
buf.seek(0)
lm = torch.jit.load(buf)
print(torch.allclose(lm(x), m(x)))
#%% jit script function
@torch.jit.script
def fn(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        x = x * 2
    return x
print(fn(torch.ones(2), 3))
#%% jit script module
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(2, 2)
    def forward(self, x):
        if x.sum() > 0:
            return self.l(x)
        return -x
torch.manual_seed(0)
sm = torch.jit.script(M())
print(sm(torch.ones(1, 2)).shape, sm(-torch.ones(1, 2)))
#%% fx trace
import torch.fx
class N(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
    def forward(self, x):
        return F.relu(self.lin(x)).sum(dim=-1)
gm = torch.fx.symbolic_trace(N())
print(gm.code.strip())
for node in gm.graph.nodes:
    print(node.op, node.name, node.target if isinstance(node.target, str) else getattr(node.target, "__name__", node.target))
#%% export
class E(nn.Module):
    def forward(self, x):
        return x.relu() + 1
ep = torch.export.export(E(), (torch.randn(2, 3),))
print(type(ep).__name__)
print(ep.module()(torch.tensor([[-1.0, 2.0, 0.0]])))
