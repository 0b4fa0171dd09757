import torch
import torch.nn as nn
import torch.nn.functional as F
#%% pad with negative amounts and modes
x = torch.arange(12.0).view(1, 1, 3, 4)
print(F.pad(x, (-1, 1, 0, -1)), F.pad(x, (1, 1), mode="circular").shape, F.pad(x, (2, 0, 1, 0), mode="replicate")[0, 0, :2], F.pad(torch.arange(4.0).view(1, 1, 4), (3, 3), mode="reflect"))
for args in (((5, 5), "reflect"), ((1, 1, 1), "constant"), ((1, 1), "wrap")):
    try:
        print(F.pad(torch.ones(1, 1, 4), args[0], mode=args[1]).shape)
    except (RuntimeError, ValueError, NotImplementedError) as e:
        print(type(e).__name__, e)
#%% pad_sequence sides and batch first
seqs = [torch.tensor([1, 2, 3]), torch.tensor([4]), torch.tensor([5, 6])]
from torch.nn.utils.rnn import pad_sequence, pack_sequence, unpad_sequence, unpack_sequence, pad_packed_sequence
print(pad_sequence(seqs), pad_sequence(seqs, batch_first=True, padding_value=-1), pad_sequence(seqs, batch_first=True, padding_side="left"))
p = pack_sequence(seqs, enforce_sorted=False)
print(p.batch_sizes, p.sorted_indices, p.unsorted_indices, unpack_sequence(p), unpad_sequence(pad_sequence(seqs), torch.tensor([3, 1, 2])), pad_packed_sequence(p, batch_first=True, total_length=4))
#%% sdpa with causal scale and masks
torch.manual_seed(0)
q, k, v = torch.randn(1, 2, 3, 4), torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 4)
print(F.scaled_dot_product_attention(q, k, v, is_causal=True)[0, 0], F.scaled_dot_product_attention(q, k, v, scale=0.1)[0, 1, 0])
m = torch.tensor([[True, False, True, False, False]] * 3)
print(F.scaled_dot_product_attention(q, k, v, attn_mask=m)[0, 0, 0], F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(3, 5) - 1.0)[0, 0, 0], F.scaled_dot_product_attention(q, k, v, enable_gqa=False).shape)
print(F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(3, 5, dtype=torch.bool))[0, 0, 0])
#%% embedding max_norm renormalizes weight
torch.manual_seed(0)
emb = nn.Embedding(4, 3, max_norm=1.0, norm_type=2.0)
w0 = emb.weight.detach().clone()
out = emb(torch.tensor([0, 2, 0]))
# rounded: torch's float32 norm accumulates with fused multiply-adds (its last bit differs)
print(out.norm(dim=1).round(decimals=4), emb.weight.norm(dim=1).round(decimals=4), torch.equal(w0[1], emb.weight[1]), emb.weight[0])
print(F.embedding(torch.tensor([1]), torch.ones(3, 2) * 3, max_norm=2.0), F.embedding(torch.tensor([[0, 2]]), torch.arange(6.0).view(3, 2), padding_idx=2))
#%% gumbel softmax and sampling under seed
torch.manual_seed(0)
logits = torch.tensor([[1.0, 2.0, 0.5]])
print(F.gumbel_softmax(logits, tau=0.5), F.gumbel_softmax(logits, hard=True), F.gumbel_softmax(logits, tau=2.0, dim=-1).sum())
#%% normalize and cosine similarity eps
z = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
print(F.normalize(z), F.normalize(z, p=1, dim=0), F.cosine_similarity(z, z.flip(0)), F.cosine_similarity(torch.zeros(2), torch.zeros(2), dim=0), F.pairwise_distance(z, z.flip(0), keepdim=True), torch.cdist(z, z, p=1))
#%% interpolate scale factors and recompute
x = torch.arange(16.0).view(1, 1, 4, 4)
print(F.interpolate(x, scale_factor=0.75, mode="nearest"), F.interpolate(x, scale_factor=1.5, mode="bilinear", recompute_scale_factor=True).shape, F.interpolate(x, size=(3, 5), mode="bicubic", align_corners=True)[0, 0, 0])
print(F.interpolate(x, scale_factor=(0.5, 2), mode="nearest-exact").shape, F.interpolate(x, scale_factor=0.5, mode="area"), F.interpolate(torch.arange(5.0).view(1, 1, 5), size=3, mode="linear"))
print(F.interpolate(x, scale_factor=0.6, mode="bilinear", antialias=True)[0, 0])
#%% activations with parameters (softshrink + 0.0: torch signs its zeros differently in its vector body and scalar tail)
x = torch.linspace(-3, 3, 7)
print(F.hardshrink(x, 1.5), F.softshrink(x, 1.0) + 0.0, F.threshold(x, 1.0, -5.0), F.rrelu(x, training=False), F.glu(torch.arange(4.0)), F.logsigmoid(x)[:2], F.softsign(x)[:2], F.tanhshrink(x)[:2], F.hardswish(x), F.mish(x)[:2], F.silu(x)[:2], F.elu(x, alpha=0.5)[:2], F.celu(x, alpha=2.0)[:2])
print(F.softmin(x, 0)[:2], F.log_softmax(x, 0, dtype=torch.float64).dtype, F.relu6(x * 3), F.hardsigmoid(x), F.leaky_relu(x, 0.3)[:2], F.prelu(x, torch.tensor([0.25])), F.selu(x)[:2], F.gelu(x, approximate="tanh")[:2])
#%% fold unfold roundtrip and pixel ops
x = torch.arange(32.0).view(1, 2, 4, 4)
cols = F.unfold(x, 2, stride=2)
print(cols.shape, torch.equal(F.fold(cols, (4, 4), 2, stride=2), x), F.unfold(x, 3, padding=1, dilation=1).shape, F.pixel_unshuffle(x, 2).shape, torch.equal(F.pixel_shuffle(F.pixel_unshuffle(x, 2), 2), x), F.channel_shuffle(torch.arange(4.0).view(1, 4, 1, 1), 2).flatten())
#%% pooling odd options
x = torch.arange(25.0).view(1, 1, 5, 5)
print(F.max_pool2d(x, 3, stride=2, padding=1, dilation=1, ceil_mode=True), F.avg_pool2d(x, 2, ceil_mode=True, divisor_override=3), F.max_pool1d(torch.arange(7.0).view(1, 1, 7), 2, ceil_mode=True), F.adaptive_avg_pool1d(torch.arange(7.0).view(1, 1, 7), 3))
print(F.max_pool2d(x, 2, dilation=2), F.lp_pool1d(torch.arange(6.0).view(1, 1, 6), 1, 3), F.fractional_max_pool2d(x, 2, output_size=(3, 3), _random_samples=torch.tensor([[[0.5, 0.5]]])))
