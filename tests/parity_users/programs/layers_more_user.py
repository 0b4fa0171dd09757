import torch
import torch.nn as nn
import torch.nn.functional as F
def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0
#%% init functions
torch.manual_seed(0)
w = torch.empty(3, 4)
print(r(nn.init.xavier_uniform_(w)), r(nn.init.xavier_normal_(w, gain=2.0)))
print(r(nn.init.kaiming_uniform_(w, a=0.1, mode="fan_out")), r(nn.init.kaiming_normal_(w, nonlinearity="leaky_relu")))
print(r(nn.init.trunc_normal_(w, std=0.5, a=-0.5, b=0.5)), r(nn.init.orthogonal_(w)), r(nn.init.sparse_(torch.empty(4, 3), 0.5)))
print(nn.init.eye_(torch.empty(2, 3)), nn.init.dirac_(torch.empty(2, 2, 3))[:, :, 1], nn.init.ones_(torch.empty(2)), nn.init.constant_(torch.empty(2), 0.3))
print(nn.init.calculate_gain("tanh"), nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("selu"))
try:
    nn.init.xavier_uniform_(torch.empty(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.init.calculate_gain("bogus")
except Exception as e:
    print(type(e).__name__, e)
#%% pooling with indices and unpool
x = torch.tensor([[[[1.0, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]]])
out, idx = F.max_pool2d(x, 2, return_indices=True)
print(out, idx)
print(F.max_unpool2d(out, idx, 2))
print(nn.AdaptiveMaxPool2d((1, 2), return_indices=True)(x))
print(F.lp_pool2d(x, 2, 2).round(decimals=3), F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)[0, 0, 0])
print(F.max_pool1d(torch.arange(6.0).reshape(1, 1, 6), 2, ceil_mode=True, stride=2), F.avg_pool1d(torch.arange(5.0).reshape(1, 1, 5), 2, ceil_mode=True))
print(F.adaptive_avg_pool1d(torch.arange(5.0).reshape(1, 1, 5), 3), F.max_pool2d(x, 3, stride=1, dilation=1, padding=1).shape)
#%% recurrent layers
torch.manual_seed(0)
gru = nn.GRU(2, 3, num_layers=2, bidirectional=True, batch_first=True)
out, h = gru(torch.randn(2, 4, 2))
print(out.shape, h.shape, r(out[0, -1]), r(h[-1]))
cell = nn.LSTMCell(2, 3)
hx, cx = cell(torch.randn(1, 2))
print(r(hx), r(cx))
rnn = nn.RNN(2, 2, nonlinearity="relu", bias=False)
print(r(rnn(torch.randn(3, 2))[0]), sorted(n for n, _ in rnn.named_parameters()))
lstm = nn.LSTM(2, 4, num_layers=2, dropout=0.0)
print(lstm(torch.randn(3, 1, 2))[0].shape, [tuple(p.shape) for p in lstm.parameters()])
#%% transformer encoder eval
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
x = torch.randn(2, 5, 8)
mask = nn.Transformer.generate_square_subsequent_mask(5)
with torch.no_grad():
    y = enc(x, mask=mask, is_causal=True)
print(y.shape, r(y[0, 0], 3), mask)
dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True).eval()
with torch.no_grad():
    print(r(dec(x, y)[1, 2], 3))
#%% misc modules
torch.manual_seed(0)
bl = nn.Bilinear(2, 3, 4)
print(bl(torch.randn(5, 2), torch.randn(5, 3)).shape, bl)
print(nn.Flatten()(torch.ones(2, 3, 4)).shape, nn.Unflatten(1, (2, 2))(torch.ones(3, 4)).shape, nn.Identity(54, unused=1)(torch.ones(1)))
print(nn.ZeroPad2d((1, 0, 2, 0))(torch.ones(1, 1, 1, 1)), nn.ReflectionPad1d(2)(torch.arange(3.0).reshape(1, 1, 3)), nn.ConstantPad1d(1, 9.0)(torch.zeros(1, 2)))
print(nn.Upsample(scale_factor=2, mode="nearest")(torch.arange(2.0).reshape(1, 1, 2)), nn.CosineSimilarity(dim=0)(torch.ones(3), torch.ones(3)), nn.PairwiseDistance()(torch.zeros(1, 2), torch.ones(1, 2)))
emb = nn.Embedding(4, 2, max_norm=1.0)
with torch.no_grad():
    emb.weight.fill_(3.0)
print(emb(torch.tensor([1])), emb.weight[1], emb.weight[0])
print(nn.EmbeddingBag(4, 2, mode="sum")(torch.tensor([0, 1, 2]), torch.tensor([0, 1])).shape)
#%% conv variants
torch.manual_seed(0)
c = nn.Conv1d(2, 4, 3, padding="same", dilation=2, groups=2, padding_mode="circular")
print(c(torch.randn(1, 2, 7)).shape, c)
ct = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)
print(ct(torch.randn(1, 2, 4, 4)).shape, ct(torch.randn(1, 2, 4, 4), output_size=[7, 7]).shape)
c3 = nn.Conv3d(1, 2, (1, 2, 2), stride=(1, 2, 2))
print(c3(torch.randn(1, 1, 2, 4, 4)).shape, sum(p.numel() for p in c3.parameters()))
print(nn.LazyLinear(3)(torch.ones(2, 5)).shape, nn.LazyConv2d(4, 3)(torch.ones(1, 2, 5, 5)).shape)
#%% normalization layers
torch.manual_seed(0)
x = torch.randn(4, 3, 2, 2)
bn = nn.BatchNorm2d(3, momentum=None)
bn(x); bn(x * 2)
print(r(bn.running_mean), r(bn.running_var), bn.num_batches_tracked)
ln = nn.LayerNorm([2, 2], elementwise_affine=False, bias=False)
print(r(ln(x)[0, 0]), nn.GroupNorm(3, 3)(x).shape, r(nn.InstanceNorm2d(3, affine=True, track_running_stats=True)(x)[0, 0]))
print(nn.RMSNorm(2)(x).shape, r(nn.LocalResponseNorm(2)(x)[0, 0]), nn.SyncBatchNorm(3).eval()(x).shape if False else "sync")
bn.eval()
print(r(bn(x)[0, 0]))
