import torch
import torch.nn as nn
import torch.nn.functional as F
def r(t, d=4):
    return torch.round(t, decimals=d)
x = torch.linspace(-3, 3, 7)
#%% activations
for name in ["relu", "relu6", "elu", "selu", "celu", "silu", "mish", "hardswish", "hardsigmoid", "hardtanh", "softsign", "tanhshrink", "logsigmoid", "softplus", "sigmoid", "tanh", "leaky_relu", "hardshrink", "softshrink"]:
    print(name, r(getattr(F, name)(x)))
print(r(F.gelu(x), 3), r(F.gelu(x, approximate="tanh")), r(F.softplus(x, beta=2, threshold=1)), r(F.elu(x, alpha=0.5)), r(F.leaky_relu(x, 0.2)), r(F.threshold(x, 0.5, -1.0)))
print(r(F.glu(torch.arange(8.).reshape(2, 4))), r(F.softmin(x, 0)), F.log_softmax(x.double(), 0, dtype=torch.float32).dtype, r(F.prelu(x, torch.tensor([0.25]))))
#%% activations bf16 f16
for dt in [torch.bfloat16, torch.float16]:
    y = x.to(dt)
    print(dt, F.gelu(y), F.silu(y), F.softmax(y, 0), torch.sigmoid(y), F.layer_norm(y.reshape(1, 7), (7,)))
#%% random functional
torch.manual_seed(0)
t = torch.ones(2, 8)
print(F.dropout(t, 0.5), F.dropout(t, 0.5, training=False).sum(), F.alpha_dropout(t, 0.3, training=True))
print(F.dropout1d(torch.ones(2, 3, 4), 0.5), F.dropout2d(torch.ones(1, 4, 2, 2), 0.5).sum((2, 3)))
print(r(F.rrelu(x, training=True)), r(F.gumbel_softmax(torch.zeros(2, 3), tau=0.5)), F.gumbel_softmax(torch.zeros(2, 3), hard=True))
print(r(F.feature_alpha_dropout(torch.ones(1, 4, 2), 0.5, training=True)))
#%% modules random
torch.manual_seed(1)
d = nn.Dropout(0.25); print(d, d(torch.ones(8)))
d.eval(); print(d(torch.ones(3)))
print(nn.RReLU(0.1, 0.3)(x).shape, nn.AlphaDropout(0.2)(torch.ones(4)))
#%% dropout errors
for f in [lambda: F.dropout(t, 1.5), lambda: nn.Dropout(-0.1), lambda: F.dropout2d(torch.ones(3), 0.5)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% similarity
a = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]); b = torch.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
print(r(F.cosine_similarity(a, b)), r(F.pairwise_distance(a, b)), r(torch.cdist(a, b)), r(torch.cdist(a, b, p=1)), r(F.normalize(a)), r(F.normalize(a, p=1, dim=0)))
print(r(torch.dist(a, b)), r(F.pdist(a)), r(nn.CosineSimilarity(dim=0)(a, b)))
#%% sdpa dropout random
torch.manual_seed(2)
q = torch.randn(1, 2, 3, 4)
print(r(F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)))
print(r(F.scaled_dot_product_attention(q, q, q, scale=0.1, enable_gqa=False)))
#%% embedding functional
w = torch.arange(12.).reshape(4, 3)
print(F.embedding(torch.tensor([[0, 2], [3, 1]]), w), F.embedding(torch.tensor([1]), w, padding_idx=1))
print(F.embedding_bag(torch.tensor([0, 1, 2, 3]), w, torch.tensor([0, 2]), mode="sum"), F.embedding_bag(torch.tensor([[0, 1], [2, 3]]), w, mode="max"))
