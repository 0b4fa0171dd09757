import torch
import torch.nn.functional as F
#%% activations on edge values
x = torch.tensor([-1000.0, -1.0, 0.0, 1.0, 1000.0, float("nan")])
print(F.relu(x), F.leaky_relu(x, 0.1), F.elu(x), F.softplus(x), F.sigmoid(x), F.tanh(x))
print(F.gelu(x), F.silu(x), F.hardtanh(x), F.relu6(x), F.mish(x[:5]), F.logsigmoid(x[:5]))
#%% softmax/log_softmax with -inf and dims
s = torch.tensor([[1.0, float("-inf"), 2.0], [float("-inf"), float("-inf"), float("-inf")]])
print(F.softmax(s, dim=1), F.log_softmax(s, dim=1), F.softmax(torch.tensor([1000.0, 1000.0]), 0))
try:
    F.softmax(s)
except TypeError as e:
    print(e)
#%% one_hot, pad, interpolate shapes and errors
print(F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([1]), num_classes=4))
try:
    F.one_hot(torch.tensor([3]), num_classes=2)
except RuntimeError as e:
    print(e)
try:
    F.one_hot(torch.tensor([1.0]))
except RuntimeError as e:
    print(e)
print(F.pad(torch.ones(2, 2), (1, 0, 0, 1)), F.pad(torch.arange(4.0).view(1, 1, 4), (2, 2), mode="reflect"), F.pad(torch.arange(3.0).view(1, 3), (1, 1), value=-1))
print(F.interpolate(torch.arange(4.0).view(1, 1, 4), scale_factor=2), F.interpolate(torch.arange(4.0).view(1, 1, 2, 2), size=(3, 3), mode="bilinear", align_corners=True))
#%% dropout in eval/train and embedding
torch.manual_seed(0)
d = F.dropout(torch.ones(8), 0.5)
print(d, F.dropout(torch.ones(3), 0.5, training=False), F.embedding(torch.tensor([[0, 2]]), torch.arange(6.0).view(3, 2)))
try:
    F.dropout(torch.ones(2), 1.5)
except ValueError as e:
    print(e)
