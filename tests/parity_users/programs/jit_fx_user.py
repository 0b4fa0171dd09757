import torch
import torch.nn as nn
import torch.nn.functional as F
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)
    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))
#%% jit script function
@torch.jit.script
def f(x: torch.Tensor, n: int) -> torch.Tensor:
    for _ in range(n):
        x = x * 2
    return x
print(f(torch.ones(2), 3), type(f).__name__ if False else callable(f))
#%% jit script module
torch.manual_seed(0)
m = MLP()
s = torch.jit.script(m)
x = torch.randn(2, 3)
print(torch.allclose(s(x), m(x)), isinstance(s, torch.nn.Module))
print(sorted(k for k in s.state_dict()))
#%% jit trace
torch.manual_seed(0)
m = MLP()
t = torch.jit.trace(m, torch.randn(1, 3))
x = torch.randn(5, 3)
print(torch.allclose(t(x), m(x)))
#%% jit save load
import io
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
s = torch.jit.script(m)
buf = io.BytesIO()
torch.jit.save(s, buf)
buf.seek(0)
l = torch.jit.load(buf)
x = torch.randn(2, 3)
print(torch.allclose(l(x), m(x)))
#%% jit ignore and unused
class M(nn.Module):
    @torch.jit.ignore
    def helper(self, x):
        return x + 1
    def forward(self, x):
        return self.helper(x) * 2
print(torch.jit.script(M())(torch.ones(2)))
print(torch.jit.is_scripting(), torch.jit.is_tracing())
#%% compile function
def g(x, y):
    return (x.sin() + y.cos()).sum()
cg = torch.compile(g)
a, b = torch.tensor([0.5, 1.0]), torch.tensor([2.0, 0.0])
print(torch.allclose(cg(a, b), g(a, b)))
#%% compile module and backward
torch.manual_seed(0)
m = MLP()
cm = torch.compile(m)
x = torch.randn(4, 3)
y = cm(x).pow(2).sum()
y.backward()
print(m.fc1.weight.grad is not None, torch.allclose(cm(x), m(x)))
print(type(cm).__name__, sorted(k for k in cm.state_dict())[:2])
#%% compile options
def h(x):
    return x * 3
for kw in [dict(mode="reduce-overhead"), dict(fullgraph=True), dict(dynamic=True), dict(backend="eager")]:
    print(torch.compile(h, **kw)(torch.ones(1)))
for kw in [dict(mode="bogus"), dict(backend="nope"), dict(mode="default", options={}), dict(mode="bogus", backend="eager")]:
    try:
        print(torch.compile(h, **kw)(torch.ones(1)))
    except Exception as e:
        print(type(e).__name__, e)
#%% compiler disable and reset
@torch.compiler.disable
def raw(x):
    return x + 1
print(torch.compile(lambda x: raw(x) * 2)(torch.ones(2)))
torch._dynamo.reset()
print(torch.compiler.is_compiling())
#%% fx symbolic trace
from torch.fx import symbolic_trace
torch.manual_seed(0)
m = MLP()
gm = symbolic_trace(m)
print([n.op for n in gm.graph.nodes])
print([n.target if isinstance(n.target, str) else getattr(n.target, "__name__", str(n.target)) for n in gm.graph.nodes])
x = torch.randn(2, 3)
print(torch.allclose(gm(x), m(x)))
print(gm.code.strip().splitlines()[0])
#%% fx graph transform
from torch.fx import symbolic_trace
def fn(x):
    return torch.relu(x) + 1
gm = symbolic_trace(fn)
for n in gm.graph.nodes:
    if n.op == "call_function" and n.target is torch.relu:
        n.target = torch.sigmoid
gm.recompile()
print(gm(torch.zeros(2)))
print(len(list(gm.graph.nodes)))
#%% fx interpreter and shape prop
from torch.fx import symbolic_trace
from torch.fx.passes.shape_prop import ShapeProp
torch.manual_seed(0)
gm = symbolic_trace(MLP())
ShapeProp(gm).propagate(torch.randn(5, 3))
print([(n.name, tuple(n.meta["tensor_meta"].shape)) for n in gm.graph.nodes if "tensor_meta" in n.meta])
print(torch.fx.Interpreter(gm).run(torch.ones(1, 3)).shape)
#%% fx control flow error
from torch.fx import symbolic_trace
def bad(x):
    if x.sum() > 0:
        return x
    return -x
try:
    symbolic_trace(bad)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
