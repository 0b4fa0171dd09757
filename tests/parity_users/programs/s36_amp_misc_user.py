import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=3):
    return t.detach().float().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% autocast cpu bfloat16
torch.manual_seed(0)
lin = nn.Linear(4, 3)
x = torch.randn(2, 4)
with torch.autocast('cpu', dtype=torch.bfloat16):
    y = lin(x)
    z = y.relu()
    s = y.softmax(-1)
    m = x @ x.T
    a = x + 1
    l = F.mse_loss(y, torch.zeros(2, 3))
    c = torch.cat([y, x[:, :3]])
    print(y.dtype, z.dtype, s.dtype, m.dtype, a.dtype, l.dtype, c.dtype)
    print(torch.is_autocast_enabled('cpu'), torch.get_autocast_dtype('cpu'))
print(torch.is_autocast_enabled('cpu'))
y.float().sum().backward()
print(lin.weight.grad.dtype, r(lin.weight.grad))
with torch.autocast('cpu', dtype=torch.bfloat16):
    with torch.autocast('cpu', enabled=False):
        print(lin(x).dtype)
    conv = nn.Conv1d(2, 2, 1)
    print(conv(torch.randn(1, 2, 3)).dtype, torch.bmm(torch.randn(1, 2, 2), torch.randn(1, 2, 2)).dtype)
    print(torch.exp(x).dtype, torch.sum(x).dtype, F.layer_norm(x, (4,)).dtype, F.gelu(x).dtype)
    print(torch.addmm(torch.zeros(2, 2), x, x.T).dtype, F.log_softmax(x, -1).dtype, torch.matmul(x.double(), x.double().T).dtype)
show(lambda: type(torch.autocast('cpu', dtype=torch.int32).__enter__()).__name__)
#%% autocast decorator and custom_fwd
@torch.autocast('cpu', dtype=torch.bfloat16)
def f(a, b):
    return a @ b
print(f(torch.ones(2, 2), torch.ones(2, 2)).dtype)
with torch.autocast(device_type='cpu', dtype=torch.float16):
    print(torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype)
print(torch.amp.autocast_mode.is_autocast_available('cpu'))
sc = torch.amp.GradScaler('cpu', init_scale=8.0)
p = nn.Parameter(torch.tensor([1.0, 2.0]))
opt = torch.optim.SGD([p], lr=0.1)
loss = (p ** 2).sum()
sc.scale(loss).backward()
print(p.grad, sc.get_scale())
sc.step(opt)
sc.update()
print(p.data, sc.get_scale())
p.grad = torch.tensor([float('inf'), 1.0])
sc.step(opt)
sc.update()
print(p.data, sc.get_scale(), sc.state_dict())
#%% gradient accumulation and param groups
torch.manual_seed(1)
model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
opt = torch.optim.AdamW([{'params': model[0].parameters(), 'lr': 1e-2}, {'params': model[2].parameters(), 'weight_decay': 0.0}], lr=1e-3)
data = torch.randn(8, 3)
target = torch.randn(8, 1)
for step in range(4):
    for chunk in range(2):
        out = model(data[chunk * 4:(chunk + 1) * 4])
        loss = F.smooth_l1_loss(out, target[chunk * 4:(chunk + 1) * 4]) / 2
        loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
print(r(model[2].weight, 4), [g['lr'] for g in opt.param_groups], [g['weight_decay'] for g in opt.param_groups])
print(model[0].weight.grad)
opt.add_param_group({'params': [nn.Parameter(torch.zeros(1))], 'lr': 5.})
print(len(opt.param_groups), opt.param_groups[2]['betas'])
show(lambda: opt.add_param_group({'params': model[0].weight}))
sd = opt.state_dict()
print(sorted(sd['state'].keys()), sd['param_groups'][0]['params'], sorted(sd['state'][0].keys()))
#%% eval train modes and no_grad
torch.manual_seed(2)
net = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.BatchNorm1d(4))
x = torch.randn(3, 4)
net.eval()
with torch.no_grad():
    a = net(x)
    b = net(x)
print(torch.equal(a, b), a.requires_grad, net.training, net[1].training)
net.train()
o1 = net(x)
print(o1.requires_grad, r(net[2].running_mean, 4), net[2].num_batches_tracked)
with torch.inference_mode():
    c = net.eval()(x)
print(c.is_inference(), c.requires_grad)
show(lambda: c.add_(1) if False else (c * 1).requires_grad_())
@torch.no_grad()
def ev(t):
    return net(t)
print(ev(x).requires_grad, torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print(net(x).requires_grad)
torch.set_grad_enabled(True)
print(torch.is_grad_enabled())
net.requires_grad_(False)
print(net(x).requires_grad, [p.requires_grad for p in net.parameters()][:2])
