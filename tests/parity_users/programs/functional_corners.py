import torch
import torch.nn.functional as F
#%% pad modes
x = torch.arange(6.0).view(1, 2, 3)
print(F.pad(x, (1, 2)), F.pad(x, (1, 1), mode="reflect"), F.pad(x, (2, 0), mode="replicate"), F.pad(x, (1, 1), mode="circular"), F.pad(x, (-1, 1)), F.pad(x, (0, 0, 1, 0), value=-1.0))
print(F.pad(torch.arange(4.0).view(1, 1, 2, 2), (1, 1, 1, 1), mode="reflect"), F.pad(torch.arange(3), (1, 1)).dtype)
for args in (((3, 3), "reflect"), ((1, 1, 1, 1, 1, 1, 1, 1), "constant"), ((1,), "constant"), ((1, 1), "wrong")):
    try:
        print(F.pad(x, args[0], mode=args[1]).shape)
    except Exception as e:
        print(type(e).__name__, e)
#%% pad grads
w = torch.arange(4.0, requires_grad=True)
F.pad(w.view(1, 1, 4), (2, 2), mode="reflect").pow(2).sum().backward()
print(w.grad)
w.grad = None
F.pad(w.view(1, 1, 4), (3, 1), mode="circular").sum().backward()
print(w.grad)
#%% interpolate nearest modes
x = torch.arange(1.0, 5.0).view(1, 1, 4)
print(F.interpolate(x, size=6), F.interpolate(x, scale_factor=1.5), F.interpolate(x, size=3, mode="nearest-exact"), F.interpolate(x, scale_factor=0.5), F.interpolate(x, size=7, mode="nearest-exact"))
print(F.interpolate(x, scale_factor=1.7, recompute_scale_factor=True), F.interpolate(x, scale_factor=2.5), F.interpolate(x, size=1))
#%% interpolate linear align_corners
x = torch.arange(1.0, 5.0).view(1, 1, 4)
print(F.interpolate(x, size=7, mode="linear"), F.interpolate(x, size=7, mode="linear", align_corners=True), F.interpolate(x, scale_factor=0.75, mode="linear"), F.interpolate(x, size=1, mode="linear", align_corners=True))
y = torch.arange(16.0).view(1, 1, 4, 4)
print(F.interpolate(y, size=(3, 5), mode="bilinear"), F.interpolate(y, scale_factor=(0.5, 1.5), mode="bicubic", align_corners=False))
#%% interpolate float32 rounding
torch.manual_seed(0)
z = torch.rand(1, 2, 5, 7) * 4 - 2  # (uniforms: the same bits in both libraries)
a = F.interpolate(z, size=(8, 11), mode="bilinear")
b = F.interpolate(z, scale_factor=1.3, mode="bilinear", align_corners=True)
c = F.interpolate(z[0], size=4, mode="linear")
d = F.interpolate(z, scale_factor=0.7, mode="nearest")
e = F.interpolate(z, size=(9, 4), mode="bilinear", antialias=True)
f = F.interpolate(z, scale_factor=1.3, mode="bicubic")
for t in (a, b, c, d):
    print(t.shape, t.dtype, round(t.double().sum().item(), 9), t.flatten()[5:9].tolist())
for t in (e, f):
    print(t.shape, t.dtype, round(t.sum().item(), 4), [round(v, 5) for v in t.flatten()[5:9].tolist()])
#%% interpolate errors
x = torch.ones(1, 1, 4)
for kw in ({"size": 3, "scale_factor": 2}, {}, {"size": (2, 2)}, {"size": 2, "mode": "bilinear"}, {"scale_factor": 2, "mode": "linear", "align_corners": True, "size": None}, {"size": 2, "align_corners": True}, {"size": 0}):
    try:
        print(F.interpolate(x, **kw).shape)
    except Exception as e:
        print(type(e).__name__, e)
#%% upsample modules
x = torch.arange(4.0).view(1, 1, 2, 2)
print(torch.nn.Upsample(scale_factor=2)(x), torch.nn.Upsample(size=3, mode="bilinear", align_corners=True)(x), torch.nn.UpsamplingNearest2d(scale_factor=2)(x).shape, torch.nn.Upsample(scale_factor=2, mode="bilinear"))
#%% grid_sample corners
inp = torch.arange(16.0).view(1, 1, 4, 4)
grid = torch.tensor([[[[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0], [1.2, -1.3]], [[0.3, 0.7], [-0.9, 0.1], [2.0, 2.0], [-1.0, 1.0]]]])
for mode in ("bilinear", "nearest", "bicubic"):
    for pad in ("zeros", "border", "reflection"):
        for ac in (False, True):
            print(mode, pad, ac, [round(v, 3) for v in F.grid_sample(inp, grid, mode=mode, padding_mode=pad, align_corners=ac).flatten().tolist()])
#%% affine_grid and grid_sample grad
theta = torch.tensor([[[0.9, -0.1, 0.1], [0.2, 1.1, -0.2]]], requires_grad=True)
g = F.affine_grid(theta, (1, 1, 3, 4), align_corners=False)
inp = torch.arange(12.0).view(1, 1, 3, 4).requires_grad_()
out = F.grid_sample(inp, g, align_corners=False)
out.pow(2).sum().backward()
print(g.shape, out.grad_fn.name(), g.grad_fn.name(), out.detach().round(decimals=3), theta.grad.round(decimals=2), inp.grad.round(decimals=3))
#%% unfold fold
x = torch.arange(32.0).view(1, 2, 4, 4)
u = F.unfold(x, kernel_size=2, stride=2)
print(u.shape, u[0, :, 0], F.fold(u, output_size=(4, 4), kernel_size=2, stride=2).equal(x))
u2 = F.unfold(x, kernel_size=(2, 3), dilation=(1, 1), padding=1, stride=(2, 1))
print(u2.shape, F.fold(u2, (4, 4), kernel_size=(2, 3), padding=1, stride=(2, 1))[0, 0])
print(torch.nn.Unfold(3, padding=1)(x).shape, torch.nn.Fold((3, 3), 2)(torch.ones(1, 4, 4)))
for f in (lambda: F.unfold(x, kernel_size=5), lambda: F.fold(torch.ones(1, 5, 4), (3, 3), 2), lambda: F.fold(torch.ones(1, 4, 5), (3, 3), 2), lambda: F.unfold(torch.ones(4, 4), 2)):
    try:
        print(f().shape)
    except Exception as e:
        print(type(e).__name__, e)
#%% tensor.unfold
x = torch.arange(10)
print(x.unfold(0, 3, 2), x.unfold(0, 10, 1).shape, torch.arange(12).view(3, 4).unfold(1, 2, 2), x.unfold(0, 1, 5))
try:
    x.unfold(0, 11, 1)
except Exception as e:
    print(type(e).__name__, e)
#%% one_hot embedding
print(F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([[1], [0]]), 3).shape, F.one_hot(torch.tensor([], dtype=torch.long), 4).shape)
for f in (lambda: F.one_hot(torch.tensor([3]), 3), lambda: F.one_hot(torch.tensor([1.0])), lambda: F.one_hot(torch.tensor([-1]))):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
emb = torch.nn.Embedding(5, 2, padding_idx=0)
print(emb.weight[0], emb(torch.tensor([[0, 4]])).shape)
for f in (lambda: emb(torch.tensor([5])), lambda: emb(torch.tensor([1.0])), lambda: torch.nn.Embedding(3, 2, padding_idx=3)):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% normalize cosine similarity pairwise
a = torch.tensor([[3.0, 4.0], [0.0, 0.0]])
print(F.normalize(a), F.normalize(a, p=1, dim=0), F.cosine_similarity(a, torch.tensor([[1.0, 0.0]])), F.pairwise_distance(a, torch.zeros(2)), torch.cdist(a, a), torch.cdist(a, a, p=1))
#%% softmax dtype and dims
x = torch.tensor([[1.0, 2.0, 3.0]])
print(F.softmax(x, dim=-1), F.log_softmax(x, 1, dtype=torch.float64), F.softmin(x, 1), torch.softmax(torch.tensor([float("-inf"), float("-inf")]), 0), F.gumbel_softmax(x, tau=1, hard=True).sum())
print(F.softmax(torch.tensor([1.0, 2.0])), )
#%% dropout modes
torch.manual_seed(1)
x = torch.ones(4, 4)
print(F.dropout(x, 0.5), F.dropout(x, 0.5, training=False).sum(), F.dropout(x, 1.0).sum(), F.dropout(x, 0.0).sum(), F.alpha_dropout(x, 0.2, training=False).sum())
try:
    F.dropout(x, 1.5)
except Exception as e:
    print(type(e).__name__, e)
