import torch
import torch.nn as nn
import torch.nn.functional as F
def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0
#%% interpolate modes
x = torch.arange(16.0).reshape(1, 1, 4, 4)
print(F.interpolate(x, scale_factor=0.5, mode="nearest"))
print(r(F.interpolate(x, size=(3, 3), mode="bilinear", align_corners=False)))
print(r(F.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True)))
print(r(F.interpolate(x, size=(2, 5), mode="bicubic"), 3))
print(r(F.interpolate(x, scale_factor=1.5, mode="nearest-exact")))
print(r(F.interpolate(x, size=(2, 2), mode="area")))
print(r(F.interpolate(torch.arange(4.0).reshape(1, 1, 4), size=6, mode="linear")))
print(r(F.interpolate(x, scale_factor=0.6, mode="bilinear", antialias=True)))
#%% interpolate errors
for kw in [dict(), dict(size=2, scale_factor=2), dict(size=(2, 2), mode="linear"), dict(size=2, mode="bilinear", align_corners=True) if False else dict(size=2, mode="nearest", align_corners=True)]:
    try:
        F.interpolate(torch.ones(1, 1, 4, 4), **kw)
    except Exception as e:
        print(type(e).__name__, e)
#%% grid_sample affine_grid
theta = torch.tensor([[[1.0, 0.0, 0.25], [0.0, 1.0, 0.0]]])
grid = F.affine_grid(theta, (1, 1, 3, 3), align_corners=False)
print(r(grid))
x = torch.arange(9.0).reshape(1, 1, 3, 3)
print(r(F.grid_sample(x, grid, align_corners=False)))
print(r(F.grid_sample(x, grid, mode="nearest", padding_mode="border", align_corners=False)))
print(r(F.grid_sample(x, grid, padding_mode="reflection", align_corners=True)))
#%% grid_sample gradient
x = torch.arange(9.0).reshape(1, 1, 3, 3).requires_grad_()
g = torch.tensor([[[[0.1, -0.2], [0.5, 0.5]]]], requires_grad=True)
F.grid_sample(x, g, align_corners=False).sum().backward()
print(r(x.grad), r(g.grad))
#%% unfold fold
x = torch.arange(16.0).reshape(1, 1, 4, 4)
u = F.unfold(x, kernel_size=2, stride=2)
print(u.shape, u)
print(F.fold(u, output_size=(4, 4), kernel_size=2, stride=2).equal(x))
print(F.unfold(x, 3, padding=1, dilation=1).shape, nn.Unfold(2)(x).shape)
#%% pixel shuffle and channel shuffle
x = torch.arange(16.0).reshape(1, 4, 2, 2)
print(F.pixel_shuffle(x, 2), F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2).equal(x))
print(F.channel_shuffle(torch.arange(4.0).reshape(1, 4, 1, 1), 2).flatten())
#%% one_hot and embedding
print(F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([1]), num_classes=4).dtype)
try:
    F.one_hot(torch.tensor([3]), num_classes=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([1.0]))
except Exception as e:
    print(type(e).__name__, e)
w = torch.arange(12.0).reshape(4, 3)
print(F.embedding(torch.tensor([[0, 3]]), w), F.embedding(torch.tensor([1]), w, padding_idx=1))
print(F.embedding_bag(torch.tensor([0, 1, 2, 3]), w, torch.tensor([0, 2]), mode="mean"))
print(F.embedding_bag(torch.tensor([[0, 1], [2, 3]]), w, mode="max"))
#%% normalize and distances
x = torch.tensor([[3.0, 4.0], [0.0, 0.0]])
print(F.normalize(x), F.normalize(x, p=1, dim=0))
print(F.cosine_similarity(torch.tensor([[1.0, 0.0]]), torch.tensor([[1.0, 1.0]])), F.pairwise_distance(torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0]])))
print(r(F.pdist(torch.tensor([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]]))))
#%% pad modes
x = torch.arange(6.0).reshape(1, 2, 3)
print(F.pad(x, (1, 2)), F.pad(x, (2, 1), mode="reflect"), F.pad(x, (1, 1), mode="replicate"), F.pad(x, (1, 1), mode="circular"))
print(F.pad(x, (0, 0, 1, 0), value=-1.0), F.pad(x, (-1, 0)))
try:
    F.pad(x, (3, 0), mode="reflect")
except Exception as e:
    print(type(e).__name__, e)
try:
    F.pad(x, (1,))
except Exception as e:
    print(type(e).__name__, e)
#%% losses
torch.manual_seed(0)
a, p_, n = torch.randn(3, 4), torch.randn(3, 4), torch.randn(3, 4)
print(r(F.triplet_margin_loss(a, p_, n)), r(F.triplet_margin_with_distance_loss(a, p_, n, distance_function=lambda x, y: 1 - F.cosine_similarity(x, y))))
print(r(F.cosine_embedding_loss(a, p_, torch.tensor([1, -1, 1]))), r(F.margin_ranking_loss(a[:, 0], p_[:, 0], torch.tensor([1.0, -1.0, 1.0]))))
print(r(F.hinge_embedding_loss(a, torch.ones(3, 4))), r(F.multilabel_margin_loss(a, torch.tensor([[0, 1, -1, 0], [2, -1, 0, 0], [3, 2, 1, -1]]))))
print(r(F.multi_margin_loss(a, torch.tensor([0, 3, 1]))), r(F.soft_margin_loss(a, torch.sign(p_))), r(F.multilabel_soft_margin_loss(a, (p_ > 0).float())))
print(r(F.poisson_nll_loss(a, p_.abs())), r(F.gaussian_nll_loss(a, p_, torch.ones(3, 4))), r(F.huber_loss(a, p_, delta=0.5)), r(F.smooth_l1_loss(a, p_, beta=0.5)))
print(r(F.kl_div(F.log_softmax(a, 1), F.softmax(p_, 1), reduction="batchmean")), r(F.kl_div(a, p_, reduction="sum", log_target=True)))
#%% ctc loss
torch.manual_seed(0)
log_probs = torch.randn(6, 2, 4).log_softmax(2).requires_grad_()
targets = torch.tensor([[1, 2, 2], [3, 1, 0]])
loss = F.ctc_loss(log_probs, targets, torch.tensor([6, 5]), torch.tensor([3, 2]))
loss.backward()
print(r(loss), r(log_probs.grad[0]))
print(r(F.ctc_loss(log_probs, targets, torch.tensor([6, 5]), torch.tensor([3, 2]), reduction="none")))
#%% cross entropy variants
torch.manual_seed(0)
logits = torch.randn(4, 3)
print(r(F.cross_entropy(logits, torch.tensor([0, 1, 2, -100]))), r(F.cross_entropy(logits, torch.tensor([0, 1, 2, 1]), label_smoothing=0.1)))
print(r(F.cross_entropy(logits, torch.softmax(torch.randn(4, 3), 1))), r(F.cross_entropy(logits, torch.tensor([0, 1, 2, 1]), weight=torch.tensor([1.0, 2.0, 0.5]))))
print(r(F.cross_entropy(torch.randn(2, 3, 4), torch.tensor([[0, 1, 2, 0], [1, 1, 1, 2]]), reduction="none")))
print(r(F.binary_cross_entropy_with_logits(logits, (logits > 0).float(), pos_weight=torch.tensor([1.0, 2.0, 3.0]))))
print(r(F.nll_loss(F.log_softmax(logits, 1), torch.tensor([0, 1, 2, 1]), ignore_index=1, reduction="sum")))
#%% attention
torch.manual_seed(0)
q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 4)
print(r(F.scaled_dot_product_attention(q, k, v)))
mask = torch.tensor([[True, True, False, False, True]]).expand(3, 5)
print(r(F.scaled_dot_product_attention(q, k, v, attn_mask=mask)))
print(r(F.scaled_dot_product_attention(q, q, q, is_causal=True))[0, 0], r(F.scaled_dot_product_attention(q, k, v, scale=0.1))[1, 2])
#%% multihead attention module
torch.manual_seed(0)
mha = nn.MultiheadAttention(4, 2, batch_first=True)
x = torch.randn(2, 3, 4)
out, w = mha(x, x, x, key_padding_mask=torch.tensor([[False, False, True], [False, False, False]]))
print(r(out), r(w))
out, w = mha(x, x, x, need_weights=True, average_attn_weights=False)
print(w.shape)
#%% activations misc
x = torch.linspace(-3, 3, 7)
print(r(F.gelu(x, approximate="tanh")), r(F.silu(x)), r(F.mish(x)), r(F.hardswish(x)), r(F.hardsigmoid(x)))
print(r(F.elu(x, alpha=0.5)), r(F.selu(x)), r(F.celu(x, 2.0)), r(F.softplus(x, beta=2, threshold=1)), r(F.softsign(x)))
print(r(F.glu(torch.arange(4.0).reshape(1, 4))), r(F.logsigmoid(x)), r(F.hardtanh(x, -2, 2)), r(F.relu6(x * 3)), r(F.rrelu(x, training=False)))
print(r(F.threshold(x, 0.5, -1.0)), r(F.tanhshrink(x)), r(F.softshrink(x, 1.0)), r(F.hardshrink(x, 1.5)), r(F.prelu(x, torch.tensor([0.25]))))
print(r(F.softmin(x, 0)), r(F.log_softmax(x.reshape(1, 7), 1)), r(F.softmax(x, 0, dtype=torch.float64)))
#%% local response and group norms
torch.manual_seed(0)
x = torch.randn(2, 4, 3, 3)
print(r(F.local_response_norm(x, 2)[0, 0, 0]), r(F.group_norm(x, 2)[1, 3, 2]), r(F.instance_norm(x)[0, 1, 1]), r(F.layer_norm(x, (3, 3))[1, 1, 0]))
print(r(F.rms_norm(x, (3,))[0, 0, 0]), r(F.batch_norm(x, torch.zeros(4), torch.ones(4), training=False)[0, 0, 0]))
