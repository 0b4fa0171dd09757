import torch
import torch.nn as nn


def run(cases):
    for k, f in enumerate(cases):
        try:
            r = f()
            print(k, r if not isinstance(r, nn.Module) else repr(r).replace("\n", " "))
        except Exception as e:
            print(k, type(e).__name__, str(e).split("\n")[0])
#%% constructors 0
torch.manual_seed(0)
run([
   lambda: nn.Linear(0, 3), lambda: nn.Linear(-1, 3), lambda: nn.Linear(2.5, 3), lambda: nn.Linear(2, 3, bias=None), lambda: nn.Linear("2", 3),
   lambda: nn.Conv2d(3, 4, 0), lambda: nn.Conv2d(3, 4, 3, groups=2), lambda: nn.Conv2d(4, 4, 3, groups=3), lambda: nn.Conv2d(3, 4, 3, padding="same", stride=2),
   lambda: nn.Conv2d(3, 4, 3, dilation=0)(torch.ones(1, 3, 5, 5)),
   lambda: nn.Conv2d(3, 4, 3, stride=0)(torch.ones(1, 3, 5, 5)), lambda: nn.Conv1d(3, 4, 3, padding=-1)(torch.ones(1, 3, 5)),
])
#%% constructors 1
torch.manual_seed(0)
run([
   lambda: nn.BatchNorm2d(0), lambda: nn.BatchNorm2d(3, momentum=None), lambda: nn.BatchNorm1d(3, affine=False).weight, lambda: nn.LayerNorm([]),
   lambda: nn.LayerNorm(3, elementwise_affine=False, bias=False), lambda: nn.GroupNorm(0, 3), lambda: nn.Embedding(0, 3), lambda: nn.Embedding(3, 2, padding_idx=5), lambda: nn.Embedding(3, 2, padding_idx=-4),
   lambda: nn.Embedding(3, 2, padding_idx=-1).padding_idx, lambda: nn.Dropout(1.5), lambda: nn.Dropout(-0.1), lambda: nn.Dropout2d(0.5, inplace=True),
   lambda: nn.LSTM(3, 4, num_layers=0), lambda: nn.LSTM(3, 4, dropout=0.5), lambda: nn.LSTM(3, 4, dropout=1.5, num_layers=2), lambda: nn.GRU(3, 4, proj_size=2), lambda: nn.LSTM(3, 4, proj_size=4), lambda: nn.LSTM(3, 4, proj_size=-1),
])
#%% constructors 2
torch.manual_seed(0)
run([
   lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), lambda: nn.RNN(0, 4), lambda: nn.LSTM(3, 0),
   lambda: nn.MultiheadAttention(8, 2, kdim=4, vdim=4), lambda: nn.MultiheadAttention(8, 0), lambda: nn.TransformerEncoderLayer(8, 3), lambda: nn.TransformerEncoderLayer(8, 2, activation="swish"),
   lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2), 2, enable_nested_tensor=True).num_layers,
   lambda: nn.MaxPool2d(0)(torch.ones(1, 1, 4, 4)), lambda: nn.MaxPool2d(2, padding=2)(torch.ones(1, 1, 4, 4)), lambda: nn.AvgPool2d(2, divisor_override=0)(torch.ones(1, 1, 4, 4)),
])
#%% constructors 3
torch.manual_seed(0)
run([
   lambda: nn.AdaptiveAvgPool2d((2, 2, 2))(torch.ones(1, 1, 4, 4)), lambda: nn.Upsample(scale_factor=2, mode="foo")(torch.ones(1, 1, 2, 2)), lambda: nn.Upsample()(torch.ones(1, 1, 2, 2)),
   lambda: nn.Softmax()(torch.ones(2, 2)), lambda: nn.Softmax(dim=3)(torch.ones(2, 2)), lambda: nn.LogSoftmax(1)(torch.ones(2)), lambda: nn.Softmin(0)(torch.tensor([1, 2])),
   lambda: nn.PReLU(3)(torch.ones(2, 4)), lambda: nn.PReLU(0), lambda: nn.Threshold(0.1, 20)(torch.tensor([0.05, 0.5])), lambda: nn.Hardtanh(2, 1),
   lambda: nn.CrossEntropyLoss(reduction="bogus")(torch.ones(2, 2), torch.tensor([0, 1])), lambda: nn.CrossEntropyLoss(label_smoothing=1.5)(torch.ones(2, 2), torch.tensor([0, 1])),
])
#%% constructors 4
torch.manual_seed(0)
run([
   lambda: nn.CrossEntropyLoss(weight=torch.ones(3))(torch.ones(2, 2), torch.tensor([0, 1])), lambda: nn.NLLLoss(weight=torch.ones(2, 2)), lambda: nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))(torch.zeros(2), torch.ones(2)),
   lambda: nn.Unflatten(1, (2, 3))(torch.ones(2, 5)), lambda: nn.Unflatten(1, (2, -1))(torch.ones(2, 6)).shape, lambda: nn.Unflatten(1, [2, 3]).unflattened_size, lambda: nn.Unflatten("a", (2,)),
   lambda: nn.Flatten(2, 1)(torch.ones(2, 3, 4)), lambda: nn.Identity(3, foo=4)(torch.ones(1)), lambda: nn.Bilinear(2, 3, 4)(torch.ones(1, 2), torch.ones(1, 2)),
   lambda: nn.ConstantPad2d(1, 3.5)(torch.ones(1, 1, 1, 1)), lambda: nn.ReflectionPad1d(3)(torch.ones(1, 1, 3)), lambda: nn.ZeroPad2d((1, 0))(torch.ones(1, 2, 2)),
])
#%% constructors 5
torch.manual_seed(0)
run([
   lambda: nn.PixelShuffle(0), lambda: nn.ChannelShuffle(2)(torch.ones(1, 3, 2, 2)), lambda: nn.Fold(3, 2)(torch.ones(1, 4, 4)).shape, lambda: nn.CosineSimilarity(dim=5)(torch.ones(2), torch.ones(2)),
])
#%% RNN argument checks
for f in [lambda: nn.RNN(0, 4), lambda: nn.LSTM(-1, 4), lambda: nn.GRU(2.0, 4), lambda: nn.RNN(3, 4, bias=1), lambda: nn.GRU(3, 4, batch_first=None),
          lambda: nn.GRU(3, 4, proj_size=2), lambda: nn.RNN(3, 4, proj_size=0), lambda: nn.GRU(3, 4, True), lambda: nn.RNN("3", 4), lambda: nn.RNN(3, 4, foo=1),
          lambda: nn.GRU(3, 4, proj_size=1, foo=2)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% adaptive pool output sizes
for f in [lambda: nn.AdaptiveAvgPool2d((2, 2, 2))(torch.ones(1, 1, 4, 4)), lambda: nn.AdaptiveMaxPool2d((2, 2, 2))(torch.ones(1, 1, 4, 4)),
          lambda: nn.AdaptiveAvgPool1d((2, 2))(torch.ones(1, 1, 4)), lambda: nn.AdaptiveAvgPool3d((2, 2))(torch.ones(1, 1, 4, 4, 4)),
          lambda: nn.AdaptiveMaxPool3d((2, 2))(torch.ones(1, 1, 4, 4, 4)), lambda: nn.AdaptiveAvgPool2d((None, 2))(torch.ones(1, 1, 4, 4)).shape]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
