import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% embedding max_norm and bag
torch.manual_seed(0)
emb = nn.Embedding(5, 3, max_norm=1.0, padding_idx=0)
idx = torch.tensor([[1, 2, 0], [4, 4, 1]])
out = emb(idx)
print(r(out.norm(dim=-1)), r(emb.weight.norm(dim=-1)))
out.sum().backward()
print(emb.weight.grad[0], emb.weight.grad[4])
bag = nn.EmbeddingBag(6, 2, mode='mean')
with torch.no_grad():
    bag.weight.copy_(torch.arange(12.).reshape(6, 2))
print(bag(torch.tensor([1, 2, 4, 5, 4]), torch.tensor([0, 2])))
print(bag(torch.tensor([[1, 2], [3, 0]])))
bs = nn.EmbeddingBag(6, 2, mode='sum', padding_idx=2)
with torch.no_grad():
    bs.weight.copy_(torch.arange(12.).reshape(6, 2))
print(bs(torch.tensor([1, 2, 4, 2]), torch.tensor([0, 2, 4]), per_sample_weights=torch.tensor([1., 2., 3., 4.])))
bm = nn.EmbeddingBag.from_pretrained(torch.arange(12.).reshape(6, 2), mode='max')
print(bm(torch.tensor([1, 5, 0]), torch.tensor([0, 1])), bm(torch.tensor([1, 5]), torch.tensor([0, 2, 2]), include_last_offset=False) if False else '')
show(lambda: bm(torch.tensor([1, 2]), torch.tensor([0]), per_sample_weights=torch.ones(2)))
show(lambda: bag(torch.tensor([1, 2]), torch.tensor([1])))
show(lambda: emb(torch.tensor([5])))
show(lambda: emb(torch.tensor([1.])))
w = torch.arange(15.).reshape(5, 3)
show(lambda: F.embedding(torch.tensor([[1], [8]]), w, max_norm=1.))
print(r(w))
show(lambda: F.embedding(torch.tensor([-1]), w, max_norm=1.))
print(r(w[:, 0]))
print(F.embedding(torch.tensor([1, 1]), torch.eye(3), scale_grad_by_freq=True))
#%% ctc loss
torch.manual_seed(1)
T, N, C = 6, 2, 4
lp = torch.randn(T, N, C).log_softmax(2).requires_grad_()
targets = torch.tensor([[1, 2, 2], [3, 1, 0]])
il = torch.tensor([6, 5])
tl = torch.tensor([3, 2])
for red in ['mean', 'sum', 'none']:
    print(red, r(F.ctc_loss(lp, targets, il, tl, reduction=red)))
loss = F.ctc_loss(lp, targets, il, tl)
loss.backward()
print(r(lp.grad[0]), r(lp.grad[5, 1]))
print(r(F.ctc_loss(lp, torch.tensor([1, 2, 2, 3, 1]), il, tl)))
print(r(F.ctc_loss(lp, torch.tensor([[1, 2, 2], [3, 3, 3]]), il, torch.tensor([3, 3]), zero_infinity=True, reduction='none')))
print(r(F.ctc_loss(lp[:2], targets, torch.tensor([2, 2]), tl, reduction='none')))
print(r(nn.CTCLoss(blank=3)(lp, torch.tensor([[1, 2], [0, 1]]), il, torch.tensor([2, 2]))))
show(lambda: F.ctc_loss(lp, targets, torch.tensor([7, 5]), tl))
show(lambda: F.ctc_loss(lp, targets, il, torch.tensor([4, 2])))
#%% fold unfold pixel shuffle
x = torch.arange(32.).reshape(1, 2, 4, 4)
u = F.unfold(x, kernel_size=2, stride=2)
print(u.shape, u[0, :, 0])
print(torch.equal(F.fold(u, (4, 4), kernel_size=2, stride=2), x))
u2 = F.unfold(x, kernel_size=(2, 3), dilation=(1, 1), padding=1, stride=(2, 1))
print(u2.shape, r(F.fold(u2, (4, 4), (2, 3), padding=1, stride=(2, 1))[0, 0]))
show(lambda: F.fold(u, (5, 5), kernel_size=2, stride=2))
show(lambda: F.unfold(torch.ones(2, 4), 2))
print(nn.Unfold(2)(torch.ones(2, 3, 3)).shape)
ps = nn.PixelShuffle(2)
y = ps(torch.arange(16.).reshape(1, 4, 2, 2))
print(y[0, 0], torch.equal(nn.PixelUnshuffle(2)(y), torch.arange(16.).reshape(1, 4, 2, 2)))
show(lambda: ps(torch.ones(1, 3, 2, 2)))
print(nn.ChannelShuffle(2)(torch.arange(4.).reshape(1, 4, 1, 1)).flatten())
#%% upsample and interpolate
x = torch.arange(4.).reshape(1, 1, 2, 2)
print(F.interpolate(x, scale_factor=1.5, mode='nearest'))
print(r(F.interpolate(x, size=(3, 3), mode='bilinear', align_corners=True)))
print(r(F.interpolate(x, size=(3, 3), mode='bilinear', align_corners=False)))
print(r(F.interpolate(x, scale_factor=2, mode='bicubic', align_corners=False)[0, 0, 0]))
print(r(F.interpolate(x, scale_factor=1.7, mode='bilinear', recompute_scale_factor=True)).shape)
print(F.interpolate(x, scale_factor=(2, 1), mode='nearest-exact'))
print(r(F.interpolate(torch.arange(5.).reshape(1, 1, 5), size=3, mode='linear')), r(F.interpolate(torch.arange(5.).reshape(1, 1, 5), size=2, mode='area')))
print(r(F.interpolate(x, scale_factor=0.5, mode='bilinear', antialias=True)))
show(lambda: F.interpolate(x, size=3, scale_factor=2))
show(lambda: F.interpolate(x, mode='linear', size=3))
show(lambda: F.interpolate(x, size=3, mode='nearest', align_corners=True))
show(lambda: F.interpolate(x))
print(nn.Upsample(scale_factor=2, mode='nearest')(x).shape, nn.Upsample(size=3))
#%% pooling odd cases
x = torch.arange(25.).reshape(1, 1, 5, 5)
print(F.max_pool2d(x, 2, ceil_mode=True), F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False))
print(r(F.avg_pool2d(x, 2, divisor_override=3)), F.adaptive_max_pool2d(x, (2, 3), return_indices=True))
print(r(F.adaptive_avg_pool2d(x, (3, None))), r(F.lp_pool2d(x, 2, 2)), r(F.lp_pool1d(torch.arange(6.).reshape(1, 1, 6), float('inf'), 3)) if False else '')
v, i = F.max_pool2d(x, 2, return_indices=True)
print(F.max_unpool2d(v, i, 2, output_size=(5, 5)))
show(lambda: F.max_pool2d(x, 2, padding=2))
show(lambda: F.max_pool2d(x, 7))
show(lambda: F.adaptive_avg_pool2d(x, (0, 2)))
torch.manual_seed(2)
fr = nn.FractionalMaxPool2d(2, output_size=(3, 3), return_indices=True)
print(fr(x))
print(nn.MaxPool1d(2, dilation=2)(torch.arange(8.).reshape(1, 1, 8)), nn.AvgPool3d(2)(torch.ones(1, 1, 2, 2, 3)).shape)
