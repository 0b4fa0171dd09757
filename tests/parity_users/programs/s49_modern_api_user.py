import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils import _pytree as pytree

#%% custom op through torch.library.custom_op with autograd
@torch.library.custom_op("mylib::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, s: float) -> torch.Tensor:
    return torch.tanh(x) * s


@scaled_tanh.register_fake
def _(x, s):
    return torch.empty_like(x)


def setup(ctx, inputs, output):
    x, s = inputs
    ctx.save_for_backward(output)
    ctx.s = s


def backward(ctx, g):
    (out,) = ctx.saved_tensors
    return g * (ctx.s - out * out / ctx.s), None


scaled_tanh.register_autograd(backward, setup_context=setup)
x = torch.linspace(-1, 1, 5, requires_grad=True)
y = scaled_tanh(x, 2.0)
y.sum().backward()
print(y, x.grad)
print(torch.ops.mylib.scaled_tanh(torch.zeros(2), 3.0))

#%% custom op mutating its argument
@torch.library.custom_op("mylib::fill_half", mutates_args=("out",))
def fill_half(x: torch.Tensor, out: torch.Tensor) -> None:
    out.copy_(x / 2)


buf = torch.zeros(3)
fill_half(torch.tensor([2., 4., 6.]), buf)
print(buf)

#%% pytree utilities on nested outputs
tree = {"a": [torch.ones(2), (3, torch.zeros(1))], "b": None}
leaves, spec = pytree.tree_flatten(tree)
print(len(leaves), [type(v).__name__ for v in leaves])
doubled = pytree.tree_map(lambda v: v * 2 if isinstance(v, torch.Tensor) else v, tree)
print(doubled)
print(pytree.tree_unflatten([10, 20, 30, 40], spec) if len(leaves) == 4 else leaves)
print(pytree.tree_map_only(torch.Tensor, lambda t: t.shape, tree))

#%% default device context and set_default_dtype
with torch.device("cpu"):
    t = torch.ones(2)
    m = nn.Linear(2, 2)
print(t.device, m.weight.device)
old = torch.get_default_dtype()
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.5]).dtype, nn.Linear(1, 1).weight.dtype, torch.arange(3.).dtype, torch.tensor([1j]).dtype)
torch.set_default_dtype(old)
print(torch.get_default_dtype())

#%% sdpa backends context and attention masks
from torch.nn.attention import sdpa_kernel, SDPBackend
q = torch.randn(2, 3, 4, 8)
k = torch.randn(2, 3, 6, 8)
v = torch.randn(2, 3, 6, 8)
with sdpa_kernel([SDPBackend.MATH]):
    a = F.scaled_dot_product_attention(q, k, v)
with sdpa_kernel(SDPBackend.MATH):
    b = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(4, 6, dtype=torch.bool).tril())
print(a.shape, torch.allclose(a, F.scaled_dot_product_attention(q, k, v), atol=1e-6), b[0, 0, 0])
c = F.scaled_dot_product_attention(q, q, q, is_causal=True, scale=0.5)
print(c[1, 2].round(decimals=4))
e = F.scaled_dot_product_attention(q[:, :1], k, v, enable_gqa=False)
print(e.shape)
g = F.scaled_dot_product_attention(torch.randn(1, 4, 3, 8), torch.randn(1, 2, 3, 8), torch.randn(1, 2, 3, 8), enable_gqa=True)
print(g.shape)

#%% tensor subclass with __torch_function__ logging ops
class Logged(torch.Tensor):
    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs or {})


t = torch.arange(4.).as_subclass(Logged)
r = (t * 2 + 1).sum()
print(type(r).__name__, r, Logged.calls[:4])

#%% torch.compile on functions and modules runs and matches eager
def f(x):
    return torch.sin(x) ** 2 + torch.cos(x) ** 2


cf = torch.compile(f)
print(torch.allclose(cf(torch.randn(5)), torch.ones(5)))
m = nn.Sequential(nn.Linear(3, 4), nn.GELU(), nn.Linear(4, 1))
cm = torch.compile(m, mode="reduce-overhead", dynamic=True)
x = torch.randn(2, 3)
print(torch.allclose(cm(x), m(x), atol=1e-6), type(cm).__name__, cm._orig_mod is m)
print(list(cm.state_dict().keys())[:2])

#%% functional_call with a swapped parameter dict
from torch.func import functional_call
lin = nn.Linear(2, 1)
params = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
print(functional_call(lin, params, (torch.tensor([[1., 2.]]),)))
print(lin.weight.shape, torch.equal(lin.weight, torch.ones(1, 2)))

#%% safe globals for custom classes in checkpoints
import io


class Cfg:
    def __init__(self, n):
        self.n = n


buf = io.BytesIO()
torch.save({"cfg": Cfg(3), "w": torch.ones(1)}, buf)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:  # noqa: BLE001
    print(type(e).__name__, "Cfg" in str(e), "weights_only" in str(e))
buf.seek(0)
with torch.serialization.safe_globals([Cfg]):
    ck = torch.load(buf)
print(ck["cfg"].n, ck["w"])
buf.seek(0)
print(torch.load(buf, weights_only=False)["cfg"].n)

#%% nn.Buffer and register_buffer persistent flag
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Buffer(torch.ones(2))
        self.b = nn.Buffer(torch.zeros(1), persistent=False)
        self.register_buffer("c", torch.full((1,), 7.0), persistent=False)


mm = M()
print(list(mm.state_dict().keys()), [n for n, _ in mm.named_buffers()], type(mm.a).__name__)
