import torch
#%% RNN/LSTM/GRU output shapes and hidden states
torch.manual_seed(0)
for cls in (torch.nn.RNN, torch.nn.LSTM, torch.nn.GRU):
    for bf, bi, nl in ((False, False, 1), (True, True, 2)):
        rnn = cls(3, 4, num_layers=nl, batch_first=bf, bidirectional=bi)
        x = torch.randn(2, 5, 3) if bf else torch.randn(5, 2, 3)
        out, h = rnn(x)
        print(cls.__name__, tuple(out.shape), tuple(h[0].shape) if isinstance(h, tuple) else tuple(h.shape))
#%% errors with wrong input sizes
lstm = torch.nn.LSTM(3, 4)
try:
    lstm(torch.randn(5, 2, 6))
except RuntimeError as e:
    print(e)
try:
    lstm(torch.randn(5, 2, 3), (torch.zeros(1, 3, 4), torch.zeros(1, 3, 4)))
except RuntimeError as e:
    print(e)
cell = torch.nn.LSTMCell(3, 4)
h, c = cell(torch.randn(2, 3))
print(h.shape, c.shape, torch.nn.GRUCell(3, 4)(torch.randn(3)).shape)
print([n for n, _ in lstm.named_parameters()])
