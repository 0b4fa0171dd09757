import torch
import torch.nn as nn
#%% lazy modules infer shapes
torch.manual_seed(0)
m = nn.Sequential(nn.LazyLinear(3), nn.ReLU(), nn.LazyLinear(2))
print(m)
y = m(torch.randn(4, 5))
print(m, y.shape, m[0].weight.shape, type(m[0]).__name__)
c = nn.LazyConv2d(4, 3)
c(torch.randn(1, 2, 5, 5))
print(c, c.weight.shape, nn.LazyBatchNorm1d()(torch.randn(3, 6)).shape)
#%% lazy module parameters before init
m = nn.LazyLinear(3)
print(m.weight, type(m.weight).__name__, m.has_uninitialized_params())
try:
    m.weight.shape
except Exception as e:
    print(type(e).__name__, str(e)[:80])
try:
    torch.optim.SGD(m.parameters(), lr=0.1)
    print("opt ok")
except Exception as e:
    print(type(e).__name__, str(e)[:80])
#%% meta device init and to_empty
with torch.device("meta"):
    m = nn.Linear(3, 2)
print(m.weight.device, m.weight.shape, m.weight.is_meta)
m = m.to_empty(device="cpu")
print(m.weight.device, m.weight.shape)
torch.manual_seed(0)
m.reset_parameters()
print(m.weight)
x = torch.empty(2, 3, device="meta")
print((x @ torch.empty(3, 4, device="meta")).shape, x.sum(0).shape, repr(x))
#%% global module hooks
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
calls = []
h1 = register_module_forward_pre_hook(lambda mod, inp: calls.append(("pre", type(mod).__name__)))
h2 = register_module_forward_hook(lambda mod, inp, out: calls.append(("post", type(mod).__name__)))
nn.Sequential(nn.Linear(2, 2), nn.ReLU())(torch.ones(1, 2))
h1.remove()
h2.remove()
nn.ReLU()(torch.ones(1))
print(calls)
#%% skip_init and device dtype kwargs
from torch.nn.utils import skip_init
m = skip_init(nn.Linear, 3, 2, dtype=torch.float64)
print(m.weight.dtype, m.weight.shape, nn.Linear(2, 2, dtype=torch.float16).weight.dtype, nn.Conv1d(1, 1, 1, device="cpu", dtype=torch.float64).bias.dtype, nn.Embedding(3, 2, dtype=torch.bfloat16).weight.dtype)
#%% module buffers and parameters registration order mixed
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Linear(1, 1)
        self.register_buffer("z", torch.zeros(1))
        self.a = nn.Parameter(torch.ones(1))
        self.c = nn.ModuleList([nn.Linear(1, 1)])
    def forward(self, x):
        return x
m = M()
print(list(m.state_dict()), [n for n, _ in m.named_parameters()], [n for n, _ in m.named_modules()], m)
del m.a
print(list(m.state_dict()), hasattr(m, "a"))
m.a = nn.Parameter(torch.zeros(1))
print(list(m.state_dict()))
#%% module get set submodule and delattr errors
m = nn.Sequential(nn.Sequential(nn.Linear(2, 2)))
print(m.get_submodule("0.0"), m.get_parameter("0.0.bias").shape)
m.set_submodule("0.0", nn.ReLU())
print(m)
for f in (lambda: m.get_submodule("0.1"), lambda: m.get_parameter("0.weight"), lambda: m.get_buffer("x"), lambda: delattr(m, "nope")):
    try:
        f()
    except AttributeError as e:
        print(type(e).__name__, e)
