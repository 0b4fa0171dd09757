import torch
import torch.nn as nn
import torch.nn.functional as F
def r(t, d=4):
    return torch.round(t, decimals=d)
#%% mha masks
torch.manual_seed(0)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
q = torch.randn(2, 3, 8); k = torch.randn(2, 5, 8)
o, w = mha(q, k, k, key_padding_mask=torch.tensor([[False]*5, [False, False, False, True, True]]))
print(o.shape, w.shape, r(w[1].sum(-1)), r(w[1, :, 3:]).abs().sum())
o, w = mha(q, k, k, attn_mask=torch.zeros(3, 5), average_attn_weights=False)
print(w.shape)
o, w = mha(q, q, q, need_weights=False, is_causal=True, attn_mask=nn.Transformer.generate_square_subsequent_mask(3))
print(o.shape, w)
#%% mha bad masks
for kw in [dict(attn_mask=torch.zeros(4, 5)), dict(key_padding_mask=torch.zeros(2, 4, dtype=torch.bool)), dict(attn_mask=torch.zeros(3, 5, dtype=torch.long))]:
    try:
        mha(q, k, k, **kw); print("ok")
    except Exception as e:
        print(type(e).__name__, e)
#%% mha mask dtype mismatch warning
o, _ = mha(q, k, k, attn_mask=torch.zeros(3, 5, dtype=torch.bool), key_padding_mask=torch.zeros(2, 5))
print(o.shape)
#%% mha kdim vdim
m = nn.MultiheadAttention(8, 2, kdim=4, vdim=6)
print(sorted(n for n, _ in m.named_parameters()), m(torch.randn(3, 1, 8), torch.randn(5, 1, 4), torch.randn(5, 1, 6))[0].shape)
#%% transformer layers
torch.manual_seed(0)
enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True)
x = torch.randn(2, 4, 8)
print(r(enc(x, src_key_padding_mask=torch.tensor([[False]*4, [False, False, True, True]]))[1, 2]))
dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation="gelu")
print(dec(torch.randn(3, 2, 8), torch.randn(4, 2, 8), tgt_is_causal=False).shape)
t = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, dropout=0.0)
print(t(torch.randn(4, 2, 8), torch.randn(3, 2, 8), tgt_mask=t.generate_square_subsequent_mask(3)).shape)
print(nn.Transformer.generate_square_subsequent_mask(3))
#%% transformer bad d_model
try:
    nn.TransformerEncoderLayer(10, 3)
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.MultiheadAttention(10, 3)
except Exception as e:
    print(type(e).__name__, e)
#%% conv same
torch.manual_seed(0)
for kw in [dict(kernel_size=4, padding="same"), dict(kernel_size=3, padding="same", dilation=2), dict(kernel_size=3, padding="valid"), dict(kernel_size=3, padding=1, padding_mode="reflect"), dict(kernel_size=3, padding=2, padding_mode="circular"), dict(kernel_size=3, padding=1, padding_mode="replicate", groups=2)]:
    c = nn.Conv2d(2, 4, **kw)
    print(c, c(torch.randn(1, 2, 7, 6)).shape)
#%% conv same stride error
try:
    nn.Conv2d(2, 4, 3, stride=2, padding="same")
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Conv2d(3, 4, 3, groups=2)
except Exception as e:
    print(type(e).__name__, e)
#%% conv input errors
c = nn.Conv2d(3, 4, 3)
for x in [torch.randn(1, 2, 5, 5), torch.randn(1, 3, 2, 2), torch.randn(3, 5)]:
    try:
        c(x)
    except Exception as e:
        print(type(e).__name__, e)
#%% pooling ceil
x = torch.arange(49.).reshape(1, 1, 7, 7)
print(F.max_pool2d(x, 2, ceil_mode=True).shape, F.avg_pool2d(x, 3, 2, padding=1, ceil_mode=True, count_include_pad=False)[0, 0, 0])
o, i = F.max_pool2d(x, 2, return_indices=True)
print(i[0, 0], F.max_unpool2d(o, i, 2, output_size=(7, 7)).shape)
print(F.avg_pool2d(x, 2, divisor_override=1)[0, 0, 0], F.lp_pool2d(x, 2, 2)[0, 0, 0, :2])
#%% pooling errors
for f in [lambda: F.max_pool2d(x, 2, padding=2), lambda: F.max_pool2d(x, 9), lambda: F.avg_pool2d(x, 2, stride=0), lambda: F.adaptive_avg_pool2d(x, (0, 2))]:
    try:
        print(f().shape)
    except Exception as e:
        print(type(e).__name__, e)
#%% adaptive non divisible
x = torch.arange(70.).reshape(1, 1, 7, 10)
print(r(F.adaptive_avg_pool2d(x, (3, 4))), F.adaptive_max_pool2d(x, (3, None)).shape)
print(F.adaptive_max_pool1d(torch.arange(10.).reshape(1, 1, 10), 4, return_indices=True))
#%% pixel shuffle upsample
x = torch.arange(32.).reshape(1, 8, 2, 2)
print(F.pixel_shuffle(x, 2).shape, torch.equal(F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2), x), nn.ChannelShuffle(2)(x)[0, :, 0, 0])
u = nn.Upsample(scale_factor=2, mode="bilinear")
print(u(torch.arange(4.).reshape(1, 1, 2, 2)))
print(nn.Upsample(size=(3, 3), mode="nearest")(torch.arange(4.).reshape(1, 1, 2, 2)))
#%% ctc
torch.manual_seed(0)
lp = torch.randn(6, 2, 4).log_softmax(2)
tg = torch.tensor([[1, 2, 2], [1, 3, 0]])
print(r(F.ctc_loss(lp, tg, torch.tensor([6, 5]), torch.tensor([3, 2]))), r(F.ctc_loss(lp, tg, torch.tensor([6, 5]), torch.tensor([3, 2]), reduction="none")))
print(F.ctc_loss(lp, tg, torch.tensor([6, 1]), torch.tensor([3, 2]), reduction="none", zero_infinity=True))
#%% rnn dropout warn and shapes
rnn = nn.GRU(3, 4, num_layers=1, dropout=0.5)
print(rnn)
l = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
o, (h, c) = l(torch.randn(5, 1, 3))
print(o.shape, h.shape, c.shape)
try:
    l(torch.randn(5, 1, 4))
except Exception as e:
    print(type(e).__name__, e)
#%% unbatched rnn
print(nn.RNN(3, 4)(torch.randn(5, 3))[0].shape, nn.LSTM(3, 4)(torch.randn(5, 3))[1][0].shape)
#%% norms
x = torch.randn(2, 4, 3, 3)
for m in [nn.GroupNorm(2, 4), nn.InstanceNorm2d(4, affine=True, track_running_stats=True), nn.LayerNorm([3, 3], elementwise_affine=False, bias=False), nn.LocalResponseNorm(2), nn.BatchNorm2d(4, momentum=None)]:
    print(m, m(x).shape, sorted(m.state_dict().keys()))
#%% batchnorm errors
try:
    nn.BatchNorm1d(3)(torch.randn(1, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.GroupNorm(3, 4)
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.BatchNorm2d(3)(torch.randn(2, 3, 4))
except Exception as e:
    print(type(e).__name__, e)
#%% embedding max_norm
torch.manual_seed(0)
e = nn.Embedding(5, 3, max_norm=1.0, padding_idx=0)
w0 = e.weight.detach().norm(dim=1)
e(torch.tensor([1, 2]))
print(r(e.weight.detach().norm(dim=1)), e.weight[0])
try:
    nn.Embedding(5, 3, padding_idx=7)
except Exception as e2:
    print(type(e2).__name__, e2)
#%% containers
ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
print(len(ml[1:]), type(ml[1:]).__name__, ml[-1] is ml[2])
md = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Tanh()})
md.update({"c": nn.GELU()})
print(list(md.keys()), md.pop("a"), len(md))
pl = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3)])
print(pl, [p.requires_grad for p in pl])
pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(1))})
print(pd)
s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
print(s[1:], s[-1], len(s))
s.append(nn.Sigmoid()); s.insert(0, nn.Identity()); print(s)
del s[0]; print(len(s))
