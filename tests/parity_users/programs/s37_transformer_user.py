import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% transformer encoder training step
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
x = torch.randn(3, 5, 8)
mask = nn.Transformer.generate_square_subsequent_mask(5)
pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
y = enc(x, mask=mask, src_key_padding_mask=pad)
print(r(y[1, :, :3]), y.shape)
opt = torch.optim.Adam(enc.parameters(), lr=1e-3)
for _ in range(3):
    loss = enc(x, mask=mask, src_key_padding_mask=pad).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
print(f'{loss.item():.5f}')
print(mask)
#%% multihead attention variants
torch.manual_seed(1)
mha = nn.MultiheadAttention(6, 3, batch_first=True)
q = torch.randn(2, 4, 6); k = torch.randn(2, 3, 6)
out, w = mha(q, k, k)
print(r(out[0, 0]), r(w[0]), w.shape)
out, w = mha(q, k, k, average_attn_weights=False)
print(w.shape)
out, w = mha(q, k, k, need_weights=False)
print(w)
am = torch.tensor([[False, True, False]] * 4)
out, w = mha(q, k, k, attn_mask=am)
print(r(w[1]))
kp = torch.tensor([[False, False, True], [True, False, False]])
out, w = mha(q, k, k, key_padding_mask=kp)
print(r(w[:, 0]))
show(lambda: mha(q, k, k, attn_mask=torch.zeros(3, 3, dtype=torch.bool)))
show(lambda: mha(q, torch.randn(2, 3, 5), k))
#%% scaled dot product attention
torch.manual_seed(2)
Q, K, V = torch.randn(1, 2, 4, 3), torch.randn(1, 2, 5, 3), torch.randn(1, 2, 5, 3)
print(r(F.scaled_dot_product_attention(Q, K, V)[0, 0]))
print(r(F.scaled_dot_product_attention(Q, K[:, :, :4], V[:, :, :4], is_causal=True)[0, 1]))
bm = torch.ones(4, 5, dtype=torch.bool).tril()
print(r(F.scaled_dot_product_attention(Q, K, V, attn_mask=bm)[0, 0, 0]), r(F.scaled_dot_product_attention(Q, K, V, attn_mask=torch.zeros(4, 5) - 1.0, scale=0.5)[0, 1, 2]))
print(r(F.scaled_dot_product_attention(Q, K, V, enable_gqa=False)[0, 1, 3]))
