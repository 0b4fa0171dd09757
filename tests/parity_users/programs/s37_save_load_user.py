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
import io, collections
def roundtrip(obj, **kw):
    buf = io.BytesIO(); torch.save(obj, buf); buf.seek(0)
    return torch.load(buf, **kw)
#%% what weights_only accepts
cases = {'odict': collections.OrderedDict(a=torch.ones(1)), 'nested': {'a': [torch.zeros(2), (1, 2.5, 'x', None, True)], 'b': {'c': torch.tensor(3)}},
         'dtype_dev': {'dt': torch.float16, 'dev': torch.device('cpu'), 'size': torch.Size([2, 3])}, 'param': nn.Parameter(torch.ones(2)),
         'int_tensor': torch.arange(4, dtype=torch.int16), 'bool': torch.tensor([True]), 'complex': torch.tensor([1 + 1j]), 'bf16': torch.ones(2, dtype=torch.bfloat16),
         'set': {1, 2}, 'bytes': b'ab', 'slice': slice(1, 2), 'range': range(3), 'complex_num': 1 + 2j, 'module': nn.Linear(1, 1), 'np': __import__('numpy').ones(2)}
for k, v in cases.items():
    try:
        out = roundtrip(v, weights_only=True)
        print(k, 'ok', type(out).__name__, out if not isinstance(out, (dict, nn.Module)) else sorted(out) if isinstance(out, dict) else '')
    except Exception as e:
        print(k, type(e).__name__, str(e).split('\n')[0][:90])
#%% sharing, views and requires_grad survive
base = torch.arange(10.)
obj = {'a': base[2:5], 'b': base, 'c': base.view(2, 5).t(), 'p': nn.Parameter(torch.ones(2)), 'g': torch.ones(2, requires_grad=True)}
out = roundtrip(obj)
out['b'][3] = -1
print(out['a'], out['c'][1], out['a'].storage_offset(), out['c'].stride(), out['c'].is_contiguous())
print(type(out['p']).__name__, out['p'].requires_grad, out['g'].requires_grad, out['g'].is_leaf)
m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
sd = roundtrip(m.state_dict())
print(list(sd.keys()), sd['1.num_batches_tracked'].dtype, type(sd).__name__)
print(hasattr(sd, '_metadata'), sorted(sd._metadata.keys()) if hasattr(sd, '_metadata') else None)
full = roundtrip(m, weights_only=False)
print(type(full).__name__, torch.equal(full[0].weight, m[0].weight))
print(roundtrip(torch.ones(2), map_location='cpu'), roundtrip(torch.ones(2), map_location=torch.device('cpu')).device, roundtrip(torch.ones(2), map_location=lambda s, loc: s).dtype)
show(lambda: torch.load(io.BytesIO(b'not a checkpoint')))
show(lambda: torch.load(io.BytesIO(b''), weights_only=True))
