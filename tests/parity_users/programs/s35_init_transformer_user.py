import math
import torch
from torch import nn


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% init functions values
torch.manual_seed(0)
w = torch.empty(3, 4)
for name, f in (('xu', lambda: nn.init.xavier_uniform_(w, gain=2.)), ('xn', lambda: nn.init.xavier_normal_(w)), ('ku', lambda: nn.init.kaiming_uniform_(w, a=0.1, mode='fan_out', nonlinearity='leaky_relu')), ('kn', lambda: nn.init.kaiming_normal_(w, nonlinearity='relu')), ('tn', lambda: nn.init.trunc_normal_(w, mean=1., std=2., a=-1., b=2.)), ('orth', lambda: nn.init.orthogonal_(w, gain=0.5)), ('sparse', lambda: nn.init.sparse_(w, 0.5, std=0.1)), ('eye', lambda: nn.init.eye_(w)), ('u', lambda: nn.init.uniform_(w, -2, 2)), ('n', lambda: nn.init.normal_(w, 3, 0.1)), ('c', lambda: nn.init.constant_(w, 0.3))):
    print(name, r(f()))
d = torch.empty(4, 2, 3, 3)
print(nn.init.dirac_(d, groups=2)[:, :, 1, 1])
print([nn.init.calculate_gain(n) for n in ('linear', 'conv2d', 'sigmoid', 'tanh', 'relu', 'selu')], nn.init.calculate_gain('leaky_relu', 0.2), nn.init.calculate_gain('leaky_relu'))
show(lambda: nn.init.calculate_gain('gelu'))
show(lambda: nn.init.calculate_gain('leaky_relu', 'x'))
show(lambda: nn.init.xavier_uniform_(torch.empty(3)))
show(lambda: nn.init.orthogonal_(torch.empty(3)))
show(lambda: nn.init.sparse_(torch.empty(2, 2, 2), 0.5))
show(lambda: nn.init.eye_(torch.empty(2, 2, 2)))
show(lambda: nn.init.dirac_(torch.empty(3, 2)))
show(lambda: nn.init.kaiming_uniform_(torch.empty(0, 3)))
show(lambda: nn.init.kaiming_normal_(torch.empty(2, 3), mode='fan'))
show(lambda: nn.init.uniform_(torch.empty(2), 2, 1))
print(nn.init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 2, 5)), nn.init._calculate_correct_fan(torch.empty(4, 3), 'fan_out'))
#%% init generator and dtypes
g = torch.Generator().manual_seed(3)
print(r(nn.init.uniform_(torch.empty(3), generator=g)), r(nn.init.normal_(torch.empty(2, dtype=torch.float64), generator=g)), r(nn.init.kaiming_uniform_(torch.empty(2, 2), generator=g)), r(nn.init.trunc_normal_(torch.empty(3), generator=g)), r(nn.init.orthogonal_(torch.empty(2, 2), generator=g)))
print(nn.init.zeros_(torch.empty(2, dtype=torch.int32)), nn.init.ones_(torch.empty(2, dtype=torch.bool)), nn.init.constant_(torch.empty(2, dtype=torch.int64), 2.7))
show(lambda: nn.init.normal_(torch.empty(2, dtype=torch.int64)))
p = nn.Parameter(torch.ones(2))
nn.init.uniform_(p)
print(p.requires_grad, p.grad_fn, type(p).__name__)
#%% default init of layers
torch.manual_seed(4)
for m in (nn.Linear(3, 2), nn.Conv1d(2, 2, 3), nn.Bilinear(2, 2, 1), nn.Embedding(3, 2), nn.LSTM(2, 2), nn.GRUCell(2, 2), nn.MultiheadAttention(4, 2), nn.LayerNorm(2), nn.PReLU(), nn.ConvTranspose1d(2, 3, 2), nn.GroupNorm(1, 2)):
    print(type(m).__name__, [r(p.flatten()[:3]).tolist() for p in m.parameters()][:2])
#%% transformer encoder layers
torch.manual_seed(5)
layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, batch_first=True, norm_first=True, activation='gelu')
enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
x = torch.randn(2, 3, 4)
mask = nn.Transformer.generate_square_subsequent_mask(3)
kpm = torch.tensor([[False, False, True], [False, False, False]])
print(mask)
print(r(enc(x, mask=mask, src_key_padding_mask=kpm)))
print(r(enc(x, is_causal=True, mask=mask)[0]))
enc.eval()
with torch.no_grad():
    print(r(enc(x, src_key_padding_mask=kpm)[1]))
show(lambda: enc(x, mask=torch.zeros(2, 2)))
show(lambda: nn.TransformerEncoderLayer(4, 2, activation='swish'))
show(lambda: nn.TransformerEncoderLayer(5, 2))
#%% transformer decoder and full model
torch.manual_seed(6)
tr = nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8, dropout=0.0)
src = torch.randn(5, 2, 4)
tgt = torch.randn(3, 2, 4)
out = tr(src, tgt, tgt_mask=tr.generate_square_subsequent_mask(3), src_key_padding_mask=torch.tensor([[False] * 5, [False, False, False, True, True]]), memory_key_padding_mask=torch.tensor([[False] * 5, [False, False, False, True, True]]))
print(out.shape, r(out[0]))
dl = nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0, bias=False)
print(sorted(n for n, _ in dl.named_parameters())[:6], r(dl(tgt, src, tgt_is_causal=True, tgt_mask=tr.generate_square_subsequent_mask(3))[0]))
show(lambda: tr(src, tgt[:, :1]))
show(lambda: tr(src[:, :, :3], tgt))
print(nn.Transformer.generate_square_subsequent_mask(2, dtype=torch.float64))
