import torch
import torch.nn as nn
#%% return types printing
x = torch.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, 4.0]])
print(x.max(1))
print(torch.sort(x, 1), torch.topk(x, 1))
r = x.min(0)
print(r.values, r.indices, r[0], len(r), type(r).__name__)
print(torch.linalg.eigh(torch.eye(2)), torch.aminmax(x), torch.median(x, 1), torch.std_mean(x, 1), torch.var_mean(x))
#%% printoptions sci and complex
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e10, 1.0, 1e-10]), torch.tensor([123456789.123]), torch.tensor([1e-5 + 1e5j]))
torch.set_printoptions(sci_mode=True, precision=2)
print(torch.tensor([1.0, 0.5]), torch.tensor([1 + 2j]), torch.tensor(3.14159))
torch.set_printoptions(profile="default")
torch.set_printoptions(precision=10)
print(torch.tensor([1 / 3], dtype=torch.float64), torch.tensor([1 / 3]))
torch.set_printoptions(profile="default")
#%% module repr extra_repr
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8, momentum=0.2)
        self.act = nn.LeakyReLU(0.1, inplace=True)
        self.drop = nn.Dropout2d(0.3)
        self.heads = nn.ModuleList([nn.Linear(8, 2) for _ in range(2)])
        self.table = nn.ModuleDict({"a": nn.Identity(), "b": nn.Flatten(0)})
        self.p = nn.ParameterList([nn.Parameter(torch.ones(2))])
    def extra_repr(self):
        return "custom=1"
print(Block())
print(nn.LSTM(3, 4, num_layers=2, batch_first=True, dropout=0.1), nn.GRU(2, 2, bidirectional=True), nn.Embedding(10, 3, padding_idx=0, max_norm=1.0), nn.TransformerEncoderLayer(8, 2, 16))
print(nn.MultiheadAttention(8, 2), nn.Upsample(scale_factor=2.0), nn.AdaptiveAvgPool2d((1, None)), nn.MaxPool2d(2, ceil_mode=True), nn.ConvTranspose2d(2, 3, 3, output_padding=1, stride=2), nn.GroupNorm(2, 4), nn.LayerNorm([4, 5], elementwise_affine=False))
#%% masked scatter and in-place on views
x = torch.zeros(2, 4)
m = torch.tensor([[True, False, True, False], [False, True, True, True]])
print(x.masked_scatter(m, torch.arange(1.0, 9.0)), x.masked_scatter_(m, torch.tensor([9.0, 8.0, 7.0, 6.0, 5.0])))
v = x[:, 1:3]
v.masked_fill_(v > 6, -1)
v.clamp_(min=0).add_(0.5)
print(x, v.is_contiguous(), v.stride())
x.t()[0].fill_(3)
print(x)
try:
    x.masked_scatter_(m, torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
#%% int tensors in-place and division
a = torch.tensor([7, -7, 5], dtype=torch.int32)
b = a.clone()
b //= 2
c = a.clone()
c %= 3
print(b, c, a.div(2, rounding_mode="trunc"), a.div(2, rounding_mode="floor"), torch.fmod(a, 3), torch.remainder(a, -3), a >> 1, a << 2, a & 3, ~a, -a, a.abs())
for f in (lambda: a.clone().div_(2), lambda: torch.tensor([1, 2]) // 0, lambda: torch.tensor([1.0]) // 0, lambda: torch.tensor([5]) % 0):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% complex ops
z = torch.tensor([1 + 2j, -3 + 0.5j, 0j])
print(z.abs(), z.angle(), z.conj(), z.real, z.imag, z * z.conj(), z.exp(), torch.view_as_real(z), torch.polar(torch.tensor([2.0]), torch.tensor([0.5])), z.sum(), z.mean(), z.is_complex())
print(torch.complex(torch.tensor([1.0]), torch.tensor([2.0])), torch.view_as_complex(torch.tensor([[1.0, 2.0]])), z.sqrt(), (z + 1).log(), z.sgn(), z.reciprocal())
w = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
(w * w.conj()).real.sum().backward()
print(w.grad)
try:
    z < z
except Exception as e:
    print(type(e).__name__, e)
#%% arange linspace corners
print(torch.arange(0, 1, 0.1).shape, torch.arange(1, 0, -0.25), torch.arange(5, dtype=torch.float32).dtype, torch.arange(0.0, 3), torch.arange(10)[-1], torch.linspace(0, 1, 5), torch.linspace(-1, 1, 1), torch.logspace(0, 2, 3), torch.arange(-3, 3, 2))
for f in (lambda: torch.arange(0, 1, 0), lambda: torch.arange(1, 0), lambda: torch.linspace(0, 1, -1), lambda: torch.arange(0, 10, -1)):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% creation dtypes from python data
print(torch.tensor([1, 2.0]).dtype, torch.tensor([True, 1]).dtype, torch.tensor([1, 2j]).dtype, torch.tensor([[1], [2]]).shape, torch.tensor([]).dtype, torch.tensor(2**40).dtype, torch.as_tensor([1, 2], dtype=torch.float16), torch.full((2,), 7).dtype, torch.full((2,), True).dtype, torch.zeros_like(torch.ones(2, dtype=torch.int8)).dtype)
for f in (lambda: torch.tensor([[1, 2], [3]]), lambda: torch.tensor([1, "a"]), lambda: torch.tensor(2**64), lambda: torch.zeros(-1), lambda: torch.ones(2, 3, dtype="float32"), lambda: torch.empty((2, 3.5))):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
