import torch
import torch.nn as nn
import torch.nn.functional as F
#%% autocast bf16 linear
m = nn.Linear(4, 3)
x = torch.randn(2, 4)
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = m(x)
    z = y.float().softmax(-1)
print(y.dtype, z.dtype, y.shape)
print(torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
#%% autocast matmul conv
with torch.autocast(device_type="cpu"):
    a = torch.randn(3, 3) @ torch.randn(3, 3)
    c = F.conv2d(torch.randn(1, 1, 5, 5), torch.randn(2, 1, 3, 3))
    s = torch.randn(3).sum()
print(a.dtype, c.dtype, s.dtype)
#%% autocast bad device
try:
    with torch.autocast("cuda"):
        pass
except Exception as e:
    print(type(e).__name__, e)
#%% testing assert_close mismatch
try:
    torch.testing.assert_close(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 3.0]))
except AssertionError as e:
    print(e)
#%% testing assert_close dtype
try:
    torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))
except AssertionError as e:
    print(e)
#%% testing assert_close shape
try:
    torch.testing.assert_close(torch.zeros(2, 3), torch.zeros(3, 2))
except AssertionError as e:
    print(e)
#%% testing assert_close int
try:
    torch.testing.assert_close(torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]))
except AssertionError as e:
    print(e)
#%% make_tensor
t = torch.testing.make_tensor((2, 3), device="cpu", dtype=torch.float32, low=-1, high=1)
print(t.shape, t.dtype, bool((t >= -1).all() and (t <= 1).all()))
#%% gradcheck
def f(x):
    return (x.sin() * x).sum()
x = torch.randn(4, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(f, (x,)), torch.autograd.gradgradcheck(f, (x,)))
#%% gradcheck float32 warn
x = torch.randn(3, requires_grad=True)
try:
    print(torch.autograd.gradcheck(lambda t: t * 2, (x,)))
except Exception as e:
    print(type(e).__name__, str(e)[:200])
#%% gradcheck fails
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 3
x = torch.randn(3, dtype=torch.double, requires_grad=True)
try:
    torch.autograd.gradcheck(Bad.apply, (x,))
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0])
print(torch.autograd.gradcheck(Bad.apply, (x,), raise_exception=False))
#%% parametrize
import torch.nn.utils.parametrize as P
class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)
m = nn.Linear(3, 3)
P.register_parametrization(m, "weight", Sym())
print(torch.allclose(m.weight, m.weight.T), P.is_parametrized(m), P.is_parametrized(m, "weight"))
print(type(m).__name__, sorted(k for k, _ in m.named_parameters()))
print(list(m.state_dict().keys()))
P.remove_parametrizations(m, "weight")
print(type(m).__name__, sorted(k for k, _ in m.named_parameters()))
#%% orthogonal parametrization
from torch.nn.utils.parametrizations import orthogonal, weight_norm, spectral_norm
m = orthogonal(nn.Linear(4, 4))
W = m.weight
print(torch.allclose(W @ W.T, torch.eye(4), atol=1e-5))
m2 = weight_norm(nn.Linear(3, 2))
print(sorted(k for k, _ in m2.named_parameters()))
m3 = spectral_norm(nn.Linear(3, 2))
print(sorted(m3.state_dict().keys()))
#%% sdpa
q = torch.randn(2, 4, 5, 8); k = torch.randn(2, 4, 6, 8); v = torch.randn(2, 4, 6, 8)
o = F.scaled_dot_product_attention(q, k, v)
o2 = F.scaled_dot_product_attention(q, k, v, is_causal=True)
ref = torch.softmax(q @ k.transpose(-1, -2) / 8 ** 0.5, -1) @ v
print(o.shape, torch.allclose(o, ref, atol=1e-5), o2.shape)
#%% sdpa bad mask
try:
    F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(5, 6, dtype=torch.bool), is_causal=True)
except Exception as e:
    print(type(e).__name__, e)
#%% distributions usage
from torch.distributions import Normal, Categorical, kl_divergence, Independent
n = Normal(torch.zeros(3), torch.ones(3))
print(n.sample((2,)).shape, n.log_prob(torch.zeros(3)), n.entropy())
print(n)
i = Independent(n, 1)
print(i.batch_shape, i.event_shape, i.log_prob(torch.zeros(3)))
c = Categorical(logits=torch.tensor([0.0, 1.0, 2.0]))
print(c.probs, c.sample((4,)), kl_divergence(c, Categorical(probs=torch.ones(3) / 3)))
#%% distribution validation
try:
    Normal(torch.zeros(2), -torch.ones(2))
except ValueError as e:
    print(e)
#%% tensorboard-free summary: numel, element_size
x = torch.randn(3, 4, dtype=torch.float16)
print(x.numel(), x.element_size(), x.nbytes, x.itemsize, x.dim(), x.ndimension())
#%% named_tensors
try:
    t = torch.zeros(2, 3, names=("N", "C"))
    print(t.names, t.sum("C").names)
except Exception as e:
    print(type(e).__name__, e)
#%% set_default_dtype
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.0]).dtype, torch.randn(2).dtype, nn.Linear(2, 2).weight.dtype, torch.tensor(1.5).dtype)
torch.set_default_dtype(torch.float32)
#%% default device ctx
with torch.device("cpu"):
    print(torch.zeros(2).device)
print(torch.get_default_device())
#%% vmap errors
try:
    vmap(lambda x: x.item())(torch.ones(3))
except Exception as e:
    print(type(e).__name__, str(e)[:150])
#%% vmap in_dims mismatch
try:
    vmap(torch.add)(torch.ones(3, 2), torch.ones(4, 2))
except Exception as e:
    print(type(e).__name__, e)
