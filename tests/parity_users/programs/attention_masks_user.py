import torch
import torch.nn as nn
import torch.nn.functional as F
torch.set_default_dtype(torch.float64)
#%% sdpa masks causal scale gqa
torch.manual_seed(0)
q, k, v = torch.randn(2, 2, 4, 8), torch.randn(2, 2, 5, 8), torch.randn(2, 2, 5, 8)
bool_mask = torch.tensor([[True, True, False, True, False]]).expand(4, 5)
float_mask = torch.zeros(4, 5).masked_fill(~bool_mask, float("-inf"))
a = F.scaled_dot_product_attention(q, k, v, attn_mask=bool_mask)
b = F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)
print(torch.allclose(a, b), a.shape, a[0, 0, 0].round(decimals=6))
c = F.scaled_dot_product_attention(q, k[:, :, :4], v[:, :, :4], is_causal=True, scale=0.5)
print(c[1, 1, :2].round(decimals=6))
qg = torch.randn(1, 4, 3, 8)
kg, vg = torch.randn(1, 2, 3, 8), torch.randn(1, 2, 3, 8)
print(F.scaled_dot_product_attention(qg, kg, vg, enable_gqa=True).shape)
full = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(4, 5, dtype=torch.bool))
print(full.isnan().all().item())
#%% sdpa errors
q, k, v = torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4)
for f in [lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(3, 3, dtype=torch.bool), is_causal=True),
          lambda: F.scaled_dot_product_attention(q, k[..., :3], v),
          lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(2, 2)),
          lambda: F.scaled_dot_product_attention(q, torch.randn(1, 3, 3, 4), torch.randn(1, 3, 3, 4)),
          lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(3, 3, dtype=torch.int64)),
          lambda: F.scaled_dot_product_attention(q.float(), k, v),
          lambda: F.scaled_dot_product_attention(q, k, v, dropout_p=1.5).shape]:
    try:
        print("ok", f())
    except (RuntimeError, ValueError, IndexError) as e:
        print(type(e).__name__, str(e).split("\n")[0][:160])
#%% multihead attention masks and weights
torch.manual_seed(1)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
x = torch.randn(2, 4, 8)
kpm = torch.tensor([[False, False, True, True], [False, False, False, False]])
out, w = mha(x, x, x, key_padding_mask=kpm)
print(out.shape, w.shape, w[0, :, 2:].abs().max().item(), w.sum(-1).round(decimals=6))
out2, w2 = mha(x, x, x, attn_mask=nn.Transformer.generate_square_subsequent_mask(4), average_attn_weights=False)
print(w2.shape, (w2[:, :, 0, 1:] == 0).all().item(), out2[0, 0].round(decimals=5))
out3, w3 = mha(x, x, x, need_weights=False)
print(w3)
fkpm = torch.zeros(2, 4).masked_fill(kpm, float("-inf"))
out4, _ = mha(x, x, x, key_padding_mask=fkpm)
print(torch.allclose(out4, out))
mixed = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, batch_first=True)
print(mixed(x, torch.randn(2, 6, 3), torch.randn(2, 6, 5))[0].shape, sorted(k for k, _ in mixed.named_parameters()))
#%% multihead attention errors and warnings
mha = nn.MultiheadAttention(8, 2)
x = torch.randn(4, 2, 8)
for f in [lambda: nn.MultiheadAttention(7, 2), lambda: mha(x, x, x, attn_mask=torch.ones(3, 3, dtype=torch.bool)),
          lambda: mha(x, x, x, key_padding_mask=torch.ones(2, 5, dtype=torch.bool)), lambda: mha(x, x[:3], x),
          lambda: mha(x, x, x, attn_mask=torch.ones(4, 4, dtype=torch.bool), key_padding_mask=torch.zeros(2, 4)),
          lambda: mha(x, x, x, attn_mask=torch.zeros(4, 4, dtype=torch.int64)), lambda: mha(x[0], x[0], x[0])[0].shape,
          lambda: mha(x, x, x, is_causal=True)]:
    try:
        r = f()
        print("ok", r if not isinstance(r, tuple) else r[0].shape)
    except (RuntimeError, AssertionError, ValueError) as e:
        print(type(e).__name__, str(e).split("\n")[0][:160])
#%% transformer layers with masks
torch.manual_seed(2)
layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True)
enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
x = torch.randn(2, 5, 8)
mask = nn.Transformer.generate_square_subsequent_mask(5)
pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
y = enc(x, mask=mask, src_key_padding_mask=pad)
print(y.shape, y[1, 0].round(decimals=5))
y2 = enc(x, mask=mask, is_causal=True, src_key_padding_mask=pad)
print(torch.allclose(y, y2))
dec_layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
dec = nn.TransformerDecoder(dec_layer, 1)
t = torch.randn(2, 3, 8)
z = dec(t, y, tgt_mask=nn.Transformer.generate_square_subsequent_mask(3), memory_key_padding_mask=pad, tgt_is_causal=True)
print(z.shape, z[0, -1].round(decimals=5))
print(nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float32))
#%% transformer full model and gradients
torch.manual_seed(3)
tr = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, dropout=0.0, batch_first=True)
src, tgt = torch.randn(2, 4, 8), torch.randn(2, 3, 8)
out = tr(src, tgt, tgt_mask=tr.generate_square_subsequent_mask(3))
out.pow(2).mean().backward()
print(out.shape, round(out.pow(2).mean().item(), 8), tr.encoder.layers[0].self_attn.in_proj_weight.grad.abs().sum().round(decimals=6))
print(sum(p.numel() for p in tr.parameters()), type(tr.encoder.norm).__name__, tr.decoder.layers[0])
