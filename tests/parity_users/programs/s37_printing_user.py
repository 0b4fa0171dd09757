import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% repr across dtypes and magnitudes
print(torch.tensor([1e-5, 1., 1000.]))
print(torch.tensor([1e-9, 1e9]))
print(torch.tensor([123456789.]), torch.tensor([0.1, 100000.]), torch.tensor([1e20, -1e-20]))
print(torch.tensor([1., 2., 3.]), torch.tensor([1.5, float('nan'), float('inf'), -float('inf')]))
print(torch.tensor([[1, -2000], [3, 4]]), torch.tensor([2 ** 40]), torch.tensor([True, False]))
print(torch.tensor([1.5, 2.25], dtype=torch.float16), torch.tensor([1.5, 2.25], dtype=torch.bfloat16), torch.tensor([3.1415926535], dtype=torch.float64))
print(torch.tensor([1 + 2j, -0.5j]), torch.tensor([1e-8 + 1j]), torch.tensor([], dtype=torch.int32), torch.zeros(2, 0))
print(torch.tensor(3.5), torch.tensor(7), torch.tensor(-0.0), torch.tensor([0.1, -0.0]))
print(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([1, 2], dtype=torch.int16), torch.tensor([1., 2.], dtype=torch.float64))
print(torch.arange(2000.))
print(torch.arange(1200).reshape(30, 40))
print(torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(0)))
print(torch.ones(2, 2, requires_grad=True) * 2, nn.Parameter(torch.zeros(2)))
print(repr(torch.tensor([0.0001, 0.001])), str(torch.tensor([12345.6789])))
#%% set_printoptions variants
x = torch.tensor([[1.123456789, 22.5, -3e-4], [1e5, 0.5, 7.]])
torch.set_printoptions(precision=2)
print(x)
torch.set_printoptions(sci_mode=True)
print(x, torch.tensor([1., 2.]))
torch.set_printoptions(sci_mode=False)
print(x, torch.tensor([1e-10, 1e10]))
torch.set_printoptions(threshold=5, edgeitems=1)
print(torch.arange(10.), torch.arange(20).reshape(4, 5))
torch.set_printoptions(linewidth=30, threshold=1000, edgeitems=3)
print(torch.arange(15.) / 3)
torch.set_printoptions(profile='short')
print(torch.arange(10.) / 3, torch.arange(1000))
torch.set_printoptions(profile='full')
print(torch.arange(1005)[-3:], torch.tensor([1 / 3]))
torch.set_printoptions(profile='default')
print(torch.tensor([1 / 3]))
torch.set_printoptions(precision=6)
print(torch.tensor([1 / 3, 2.]), torch.tensor([1 / 3], dtype=torch.float64))
torch.set_printoptions(profile='default')
#%% other printing
print(torch.Size([2, 3]), torch.float32, torch.device('cpu'), torch.int64, torch.strided, torch.contiguous_format)
print(torch.randn(2, generator=torch.Generator().manual_seed(1)).tolist())
print(f'{torch.tensor(2.5):.3f}', f'{torch.tensor(3)}', '{:>8}'.format(str(torch.tensor(1.))))
show(lambda: f'{torch.tensor([1., 2.]):.2f}')
print(nn.Linear(3, 2), nn.Sequential(nn.Conv2d(1, 2, 3, stride=2, bias=False), nn.BatchNorm2d(2, momentum=None), nn.LeakyReLU(0.2, inplace=True)))
print(nn.LSTM(3, 4, num_layers=2, dropout=0.1, bidirectional=True), nn.Embedding(10, 3, padding_idx=0), nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).self_attn)
print(nn.ModuleDict({'a': nn.ReLU(), 'b': nn.Identity()}), nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(2, 3))]))
print(torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1, momentum=0.9))
print(torch.finfo(torch.float32), torch.iinfo(torch.int8))
print(torch.tensor([1., 2.]).storage() if False else torch.tensor([1., 2.]).untyped_storage())
