import torch
import torch.nn.functional as F
#%% padding modes and interpolate
x = torch.arange(6.).view(1, 1, 2, 3)
print(F.pad(x, (1, 1, 0, 1)), F.pad(x, (1, 1), mode="reflect"), F.pad(x, (2, 0), mode="replicate"), F.pad(x, (1, 1), mode="circular"))
print(F.interpolate(x, scale_factor=2, mode="nearest").shape, F.interpolate(x, size=(3, 4), mode="bilinear", align_corners=False))
try:
    F.pad(x, (3, 3), mode="reflect")
except RuntimeError as e:
    print(str(e))
#%% unfold/fold round trip and pooling with indices
img = torch.arange(16.).view(1, 1, 4, 4)
cols = F.unfold(img, kernel_size=2, stride=2)
print(cols.shape, torch.equal(F.fold(cols, (4, 4), kernel_size=2, stride=2), img))
out, idx = F.max_pool2d(img, 2, return_indices=True)
print(out, idx, F.max_unpool2d(out, idx, 2).shape)
print(F.avg_pool2d(img, 3, stride=1, padding=1, count_include_pad=False)[0, 0, 0], F.adaptive_max_pool2d(img, (1, 2)))
#%% losses with reductions and weights
torch.manual_seed(0)
logits = torch.randn(4, 3)
tgt = torch.tensor([0, 2, 1, 2])
w = torch.tensor([1.0, 2.0, 0.5])
print(F.cross_entropy(logits, tgt, weight=w), F.cross_entropy(logits, tgt, reduction="none"), F.nll_loss(F.log_softmax(logits, 1), tgt, reduction="sum"))
print(F.binary_cross_entropy_with_logits(logits, torch.ones(4, 3), pos_weight=torch.tensor([1.0, 2.0, 3.0])))
print(F.smooth_l1_loss(logits, torch.zeros(4, 3), beta=0.5), F.huber_loss(logits, torch.zeros(4, 3), delta=0.5), F.kl_div(F.log_softmax(logits, 1), F.softmax(logits.flip(0), 1), reduction="batchmean"))
print(F.cosine_similarity(logits[:2], logits[2:]), F.pairwise_distance(logits[:2], logits[2:]), F.triplet_margin_loss(logits[:1], logits[1:2], logits[2:3]))
try:
    F.cross_entropy(logits, torch.tensor([0, 3, 1, 2]))
except (IndexError, RuntimeError) as e:
    print(type(e).__name__, str(e)[:100])
try:
    F.mse_loss(logits, torch.zeros(4))
except RuntimeError as e:
    print(str(e)[:200])
#%% normalize, softmax dims, dropout in eval
v = torch.tensor([[3.0, 4.0], [0.0, 0.0]])
print(F.normalize(v), F.normalize(v, p=1, dim=0), F.softmax(v, dim=0), F.log_softmax(v, -1))
print(F.dropout(v, p=0.5, training=False), F.gelu(v, approximate="tanh"), F.silu(v), F.hardswish(v), F.elu(-v), F.leaky_relu(-v, 0.2))
print(F.glu(torch.arange(4.)), F.softplus(v, beta=2, threshold=5), F.relu6(v * 2), F.logsigmoid(-v))
