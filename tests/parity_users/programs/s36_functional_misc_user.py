import torch
import torch.nn.functional as F


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% one_hot pad modes
print(F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([[1], [0]]), num_classes=3).shape, F.one_hot(torch.tensor([], dtype=torch.long), 4).shape)
show(lambda: F.one_hot(torch.tensor([0, 3]), 3))
show(lambda: F.one_hot(torch.tensor([-1])))
show(lambda: F.one_hot(torch.tensor([1.])))
show(lambda: F.one_hot(torch.tensor([], dtype=torch.long)))
x = torch.arange(6.).reshape(1, 2, 3)
for mode in ['constant', 'reflect', 'replicate', 'circular']:
    print(mode, F.pad(x, (2, 1), mode=mode))
show(lambda: F.pad(x, (3, 0), mode='reflect'))
show(lambda: F.pad(x, (1,), mode='constant'))
show(lambda: F.pad(x, (1, 1), mode='bogus'))
show(lambda: F.pad(torch.ones(3), (1, 1), mode='reflect'))
print(F.pad(x, (-1, 1)), F.pad(x, (0, 0, 1, 0), value=7.))
#%% activations with options
t = torch.tensor([-3., -0.5, 0., 0.5, 3.], requires_grad=True)
print(r(F.softplus(t, beta=2, threshold=1)), r(F.elu(t, alpha=0.5)), r(F.celu(t, 2.)), r(F.selu(t)))
print(r(F.hardtanh(t, -1, 2)), r(F.relu6(t * 3)), r(F.threshold(t, 0.1, 20.)), r(F.hardshrink(t, 0.5)), r(F.softshrink(t, 1.)))
print(r(F.glu(torch.arange(8.).reshape(2, 4))), r(F.softmin(t, 0, dtype=torch.float64)), r(F.log_softmax(t, 0)))
print(r(F.gelu(t, approximate='tanh')), r(F.silu(t)), r(F.mish(t)), r(F.hardswish(t)), r(F.logsigmoid(t)))
show(lambda: F.gelu(t, approximate='fast'))
show(lambda: F.glu(torch.ones(3)))
show(lambda: F.relu_(t))
show(lambda: F.elu(t, inplace=True))
y = t * 1
F.leaky_relu_(y, 0.2)
y.sum().backward()
print(r(y), t.grad)
torch.manual_seed(0)
print(r(F.rrelu(torch.tensor([-1., -2., 1.]), training=True)), r(F.rrelu(torch.tensor([-1., -2.]))))
torch.manual_seed(1)
print(r(F.alpha_dropout(torch.ones(6), 0.5, training=True)), r(F.feature_alpha_dropout(torch.ones(1, 4, 1), 0.5, training=True)))
print(r(F.dropout1d(torch.ones(1, 4, 2), 0.5)), r(F.dropout2d(torch.ones(1, 3, 1, 1), 0.5, training=False)))
show(lambda: F.dropout(torch.ones(2), p=1.5))
#%% normalize lrn grid
v = torch.tensor([[3., 4.], [0., 0.]])
print(F.normalize(v), F.normalize(v, p=1, dim=0), F.normalize(v, eps=10.))
print(r(F.local_response_norm(torch.arange(8.).reshape(1, 4, 2), 3)))
theta = torch.tensor([[[1., 0., 0.], [0., 1., 0.]]])
grid = F.affine_grid(theta, (1, 1, 2, 3), align_corners=False)
print(r(grid))
img = torch.arange(6.).reshape(1, 1, 2, 3)
print(r(F.grid_sample(img, grid, align_corners=False)), r(F.grid_sample(img, grid * 1.5, mode='nearest', padding_mode='border', align_corners=True)))
show(lambda: F.affine_grid(theta, (1, 1, 2)))
show(lambda: F.grid_sample(img, grid, mode='cubic'))
torch.manual_seed(2)
g = F.gumbel_softmax(torch.tensor([[1., 2., 3.]], requires_grad=True), tau=0.5, hard=True)
print(g, g.grad_fn.name())
print(r(F.cosine_similarity(torch.tensor([[1., 0.]]), torch.tensor([[0., 0.]]))), r(F.pairwise_distance(torch.tensor([1., 2.]), torch.tensor([1., 2.]), eps=0.)))
print(r(F.pdist(torch.tensor([[0., 0.], [1., 1.]]), p=0)), F.embedding_bag(torch.tensor([0, 1]), torch.eye(3), torch.tensor([0]), mode='max'))
