import torch
import torch.nn as nn
import io


def show(f):
    try:
        out = f()
        print(out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% init on shapes
for shape in [(3,), (4, 5), (2, 3, 3), (2, 3, 2, 2), ()]:
    w = torch.empty(shape)
    for name in ["uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "trunc_normal_", "ones_", "zeros_", "eye_", "dirac_", "sparse_"]:
        torch.manual_seed(0)
        try:
            if name == "sparse_":
                out = getattr(nn.init, name)(w, 0.5)
            else:
                out = getattr(nn.init, name)(w)
            print(shape, name, out.round(decimals=4) + 0.0)
        except Exception as e:
            print(shape, name, type(e).__name__, str(e).split('\n')[0])
#%% fans and gains
print(nn.init.calculate_gain('relu'), nn.init.calculate_gain('leaky_relu', 0.2), nn.init.calculate_gain('tanh'), nn.init.calculate_gain('selu'), nn.init.calculate_gain('conv2d'))
show(lambda: nn.init.calculate_gain('leaky_relu', 'a'))
show(lambda: nn.init.calculate_gain('gelu'))
print(nn.init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 2, 2)))
print(nn.init._calculate_correct_fan(torch.empty(4, 3), 'fan_out'))
show(lambda: nn.init.kaiming_uniform_(torch.empty(3, 4), mode='fan_avg'))
torch.manual_seed(1)
print(nn.init.kaiming_uniform_(torch.empty(2, 3), a=0.1, nonlinearity='leaky_relu').round(decimals=4))
print(nn.init.trunc_normal_(torch.empty(5), mean=1., std=2., a=0., b=2.).round(decimals=4))
print(nn.init.constant_(torch.empty(2, dtype=torch.int32), 3.7))
print(nn.init.uniform_(torch.empty(3, dtype=torch.float64), -2, -1).dtype)
w = torch.empty(6, 4)
nn.init.orthogonal_(w, gain=2)
print((w.t() @ w).round(decimals=3) + 0.0)
lin = nn.Linear(3, 2)
with torch.no_grad():
    nn.init.zeros_(lin.bias)
print(lin.bias, lin.bias.requires_grad)
def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.5)
        m.bias.data.fill_(0.01)
net = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
net.apply(init_weights)
print(net(torch.ones(1, 2)))
#%% save and load tutorial
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model(torch.randn(5, 3)).sum().backward()
opt.step()
print(list(model.state_dict().keys()))
print({k: tuple(v.shape) for k, v in model.state_dict().items()})
print(opt.state_dict()['param_groups'])
buf = io.BytesIO()
torch.save({'epoch': 3, 'model_state_dict': model.state_dict(), 'optimizer_state_dict': opt.state_dict(), 'loss': torch.tensor(0.25)}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
print(ck['epoch'], ck['loss'], sorted(ck.keys()))
m2 = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
print(m2.load_state_dict(ck['model_state_dict']))
o2 = torch.optim.SGD(m2.parameters(), lr=0.5)
o2.load_state_dict(ck['optimizer_state_dict'])
print(o2.param_groups[0]['lr'], o2.param_groups[0]['momentum'])
m2.eval()
x = torch.ones(2, 3)
model.eval()
print(torch.equal(m2(x), model(x)))
sd = model.state_dict()
del sd['0.bias']
show(lambda: m2.load_state_dict(sd))
print(m2.load_state_dict(sd, strict=False))
sd2 = dict(model.state_dict())
sd2['0.weight'] = torch.zeros(5, 3)
show(lambda: m2.load_state_dict(sd2))
sd3 = dict(model.state_dict())
sd3['extra.weight'] = torch.zeros(1)
show(lambda: m2.load_state_dict(sd3))
print(m2.load_state_dict(sd3, strict=False))
buf = io.BytesIO()
torch.save([torch.arange(3), {'a': (1, 2.5, 'x')}, None], buf)
buf.seek(0)
print(torch.load(buf))
buf = io.BytesIO()
t = torch.arange(10.)
torch.save([t[2:5], t], buf)
buf.seek(0)
a, b = torch.load(buf)
a[0] = 100
print(b[:4], a.storage_offset())
