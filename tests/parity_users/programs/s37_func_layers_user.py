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
from torch.func import vmap, grad, jacrev, jacfwd, hessian, functional_call, jvp
import warnings
# numtorch names the ops it runs once per sample under vmap; torch has rules for them (see report)
warnings.filterwarnings('ignore', 'vmap: there is no batching rule')
def summary(t):
    t = t.detach()
    return (tuple(t.shape), round(float(t.double().sum()), 4) + 0.0, round(float(t.double().abs().sum()), 4))
def each(name, make):
    try:
        print(name, summary(make()))
    except Exception as e:
        print(name, type(e).__name__, str(e).split('\n')[0][:120])
#%% jacobians through layers
torch.manual_seed(0)
x = torch.randn(2, 4)
layers = {'layernorm': nn.LayerNorm(4), 'linear': nn.Linear(4, 3), 'conv1d': nn.Conv1d(2, 3, 2), 'softmax': nn.Softmax(-1), 'logsoftmax': nn.LogSoftmax(-1),
          'gelu_lin': nn.Sequential(nn.Linear(4, 4), nn.GELU()), 'dropout_eval': nn.Dropout(0.3).eval(), 'bn_eval': nn.BatchNorm1d(2).eval(),
          'groupnorm': nn.GroupNorm(1, 2), 'maxpool': nn.MaxPool1d(2), 'avgpool': nn.AvgPool1d(2), 'rmsnorm': nn.RMSNorm(4), 'prelu': nn.PReLU(),
          'embedding_bag_like': nn.Sequential(nn.Linear(4, 2), nn.Softplus(), nn.LayerNorm(2)), 'upsample': nn.Upsample(scale_factor=2, mode='linear'),
          'pad': nn.ReflectionPad1d(1), 'hardtanh': nn.Hardtanh(-0.5, 0.5), 'elu': nn.ELU(), 'cosine': lambda v: F.cosine_similarity(v, v.flip(0), dim=1),
          'normalize': lambda v: F.normalize(v, dim=1)}  # (torch 2.13's jacrev of cdist is wrong: not compared)
for name, mod in layers.items():
    each(name + ' jacrev', lambda: jacrev(mod)(x))
    each(name + ' jacfwd', lambda: jacfwd(mod)(x))
#%% hessians of losses
torch.manual_seed(1)
logits = torch.randn(3, 4)
target = torch.tensor([0, 3, 1])
losses = {'ce': lambda z: F.cross_entropy(z, target), 'ce_smooth': lambda z: F.cross_entropy(z, target, label_smoothing=0.1), 'nll': lambda z: F.nll_loss(F.log_softmax(z, 1), target),
          'mse': lambda z: F.mse_loss(z, torch.ones(3, 4)), 'huber': lambda z: F.huber_loss(z, torch.zeros(3, 4), delta=0.5), 'smoothl1': lambda z: F.smooth_l1_loss(z, torch.zeros(3, 4)),
          'bce_logits': lambda z: F.binary_cross_entropy_with_logits(z, torch.full((3, 4), 0.3)), 'bce': lambda z: F.binary_cross_entropy(torch.sigmoid(z), torch.full((3, 4), 0.3)),
          'kl': lambda z: F.kl_div(F.log_softmax(z, 1), torch.full((3, 4), 0.25), reduction='batchmean'), 'logsumexp': lambda z: torch.logsumexp(z, 1).sum(),
          'l1': lambda z: F.l1_loss(z, torch.zeros(3, 4)), 'poisson': lambda z: F.poisson_nll_loss(z, torch.ones(3, 4)),
          'norm': lambda z: z.norm(), 'var': lambda z: z.var(1).sum(), 'std': lambda z: z.std(), 'prod': lambda z: z[0].prod()}
for name, L in losses.items():
    each(name + ' hessian', lambda: hessian(L)(logits))
    each(name + ' grad', lambda: grad(L)(logits))
#%% vmap over models and ops
torch.manual_seed(2)
conv = nn.Conv2d(1, 2, 3, padding=1)
imgs = torch.randn(3, 1, 5, 5)
each('vmap conv', lambda: vmap(lambda im: conv(im.unsqueeze(0)).squeeze(0))(imgs))
each('vmap conv grad', lambda: vmap(grad(lambda im: conv(im.unsqueeze(0)).pow(2).sum()))(imgs))
lstm = nn.LSTM(2, 3, batch_first=True)
seq = torch.randn(2, 4, 2)
each('jacrev lstm', lambda: jacrev(lambda s: lstm(s.unsqueeze(0))[0].sum(1).squeeze(0))(seq[0]))
emb = nn.Embedding(6, 3)
each('vmap embedding', lambda: vmap(emb)(torch.tensor([[1, 2], [3, 5]])))
each('jacrev embedding weight', lambda: jacrev(lambda w: F.embedding(torch.tensor([1, 1, 4]), w))(emb.weight))
each('vmap matmul', lambda: vmap(torch.matmul)(torch.randn(4, 2, 3), torch.randn(4, 3, 2)))
each('vmap einsum', lambda: vmap(lambda a, b: torch.einsum('ij,jk->ik', a, b))(torch.randn(4, 2, 3), torch.randn(4, 3, 2)))
each('vmap index', lambda: vmap(lambda a, i: a[i])(torch.randn(4, 5), torch.tensor([0, 1, 4, 2])))
each('vmap gather', lambda: vmap(lambda a: a.gather(0, torch.tensor([2, 0])))(torch.randn(3, 4)))
each('vmap where', lambda: vmap(lambda a: torch.where(a > 0, a, 0.))(torch.randn(3, 4)))
each('vmap sort', lambda: vmap(lambda a: a.sort().values)(torch.randn(3, 4)))
each('vmap cumsum', lambda: vmap(lambda a: a.cumsum(0))(torch.randn(3, 4)))
each('vmap topk', lambda: vmap(lambda a: a.topk(2).values)(torch.randn(3, 4)))
each('vmap cat', lambda: vmap(lambda a: torch.cat([a, a * 2]))(torch.randn(3, 4)))
each('vmap stack', lambda: vmap(lambda a: torch.stack([a, -a], 1))(torch.randn(3, 4)))
each('vmap linalg', lambda: vmap(torch.linalg.det)(torch.randn(3, 2, 2)))
each('vmap solve', lambda: vmap(torch.linalg.solve)(torch.randn(3, 2, 2) + 3 * torch.eye(2), torch.randn(3, 2)))
each('vmap interp', lambda: vmap(lambda a: F.interpolate(a.unsqueeze(0).unsqueeze(0), size=6, mode='linear').squeeze())(torch.randn(3, 4)))
each('vmap mse grad', lambda: vmap(grad(lambda a, b: F.mse_loss(a, b)))(torch.randn(3, 4), torch.randn(3, 4)))
each('vmap ce', lambda: vmap(lambda z, t: F.cross_entropy(z.unsqueeze(0), t.unsqueeze(0)))(torch.randn(3, 4), torch.tensor([0, 1, 3])))
