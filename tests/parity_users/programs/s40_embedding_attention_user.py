import torch
import torch.nn as nn
import torch.nn.functional as F
#%% embedding with padding_idx and max_norm, EmbeddingBag modes
torch.manual_seed(0)
emb = nn.Embedding(5, 3, padding_idx=0)
out = emb(torch.tensor([[0, 2], [4, 0]]))
out.sum().backward()
print(emb.weight[0], emb.weight.grad[0], emb.weight.grad[2])
e2 = nn.Embedding(4, 2, max_norm=1.0)
e2(torch.tensor([1, 2]))
print(e2.weight.norm(dim=1)[1:3] <= 1.0001)
bag = nn.EmbeddingBag(5, 2, mode="sum")
print(bag(torch.tensor([1, 2, 3, 4]), torch.tensor([0, 2])).shape, nn.EmbeddingBag(5, 2, mode="max")(torch.tensor([[1, 2], [3, 4]])).shape)
try:
    emb(torch.tensor([5]))
except IndexError as e:
    print("IndexError", e)
#%% scaled dot product attention with masks and causal
torch.manual_seed(1)
q = torch.randn(2, 4, 3)
k = torch.randn(2, 5, 3)
v = torch.randn(2, 5, 2)
mask = torch.ones(4, 5, dtype=torch.bool).tril()
a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
ref = torch.softmax((q @ k.transpose(-1, -2) / 3 ** 0.5).masked_fill(~mask, float("-inf")), -1) @ v
print(a.shape, torch.allclose(a, ref, atol=1e-6))
c = F.scaled_dot_product_attention(q, q, q, is_causal=True)
print(c.shape, torch.allclose(c[:, 0], q[:, 0]))
#%% MultiheadAttention with key padding mask and weights
torch.manual_seed(2)
mha = nn.MultiheadAttention(4, 2, batch_first=True)
x = torch.randn(2, 3, 4)
o, w = mha(x, x, x, key_padding_mask=torch.tensor([[False, False, True], [False, False, False]]))
print(o.shape, w.shape, w[0, :, 2].abs().max().item() == 0.0, torch.allclose(w.sum(-1), torch.ones(2, 3)))
o2, w2 = mha(x, x, x, need_weights=True, average_attn_weights=False)
print(w2.shape, mha(x, x, x, need_weights=False)[1])
#%% TransformerEncoderLayer in eval is deterministic
torch.manual_seed(3)
layer = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
enc.eval()
x = torch.randn(1, 3, 4)
print(torch.equal(enc(x), enc(x)), enc(x).shape, len(enc.layers), nn.Transformer.generate_square_subsequent_mask(3))
