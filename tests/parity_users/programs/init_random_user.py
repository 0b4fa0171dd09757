import math
import torch
import torch.nn as nn
#%% init functions seeded values
torch.manual_seed(0)
w = torch.empty(3, 4)
for name, f in [("uniform", lambda: nn.init.uniform_(w, -0.5, 0.5)), ("normal", lambda: nn.init.normal_(w, 1.0, 0.1)),
                ("trunc_normal", lambda: nn.init.trunc_normal_(w, 0.0, 1.0, -0.5, 0.5)), ("xavier_u", lambda: nn.init.xavier_uniform_(w, gain=2.0)),
                ("xavier_n", lambda: nn.init.xavier_normal_(w)), ("kaiming_u", lambda: nn.init.kaiming_uniform_(w, a=math.sqrt(5))),
                ("kaiming_n_out", lambda: nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="leaky_relu")),
                ("orthogonal", lambda: nn.init.orthogonal_(w, gain=1.5)), ("sparse", lambda: nn.init.sparse_(w, 0.5, std=0.2)),
                ("constant", lambda: nn.init.constant_(w, 0.3)), ("eye", lambda: nn.init.eye_(w)), ("zeros", lambda: nn.init.zeros_(w))]:
    r = f()
    print(name, r is w, w.round(decimals=4).tolist())
g = torch.Generator().manual_seed(5)
print(nn.init.uniform_(torch.empty(3), generator=g), nn.init.normal_(torch.empty(3), generator=g), nn.init.kaiming_uniform_(torch.empty(2, 2), generator=g))
#%% init gains and fans and errors
for nl, p in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)]:
    print(nl, nn.init.calculate_gain(nl, p))
for f in [lambda: nn.init.calculate_gain("gelu"), lambda: nn.init.calculate_gain("leaky_relu", "x"), lambda: nn.init.xavier_uniform_(torch.empty(3)),
          lambda: nn.init.kaiming_normal_(torch.empty(2, 2), mode="fan_avg"), lambda: nn.init.eye_(torch.empty(2, 2, 2)), lambda: nn.init.dirac_(torch.empty(2, 2)),
          lambda: nn.init.sparse_(torch.empty(2, 2, 2), 0.1), lambda: nn.init.orthogonal_(torch.empty(3)), lambda: nn.init.kaiming_uniform_(torch.empty(0, 3))]:
    try:
        r = f()
        print("ok", r)
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
d = nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2)
print(d.sum().item(), d[0, 0], d[2, 0, 1])
print(nn.init._calculate_fan_in_and_fan_out(torch.empty(8, 4, 3, 3)), nn.init._calculate_correct_fan(torch.empty(5, 6), "fan_out"))
#%% default module inits reproducible
torch.manual_seed(1)
mods = [nn.Linear(3, 2), nn.Conv1d(2, 3, 2), nn.Conv2d(1, 2, 2, bias=False), nn.ConvTranspose2d(2, 1, 2), nn.Embedding(4, 2), nn.Bilinear(2, 2, 1),
        nn.LSTM(2, 2), nn.GRUCell(2, 2), nn.BatchNorm1d(2), nn.LayerNorm(2), nn.PReLU(), nn.MultiheadAttention(4, 2)]
for m in mods:
    print(type(m).__name__, [round(p.sum().item(), 4) for p in m.parameters()])
print([round(x, 4) for x in torch.rand(3).tolist()])
#%% random functions with generators and out
g = torch.Generator().manual_seed(11)
print(torch.randint(3, 10, (4,), generator=g), torch.randperm(5, generator=g), torch.rand(2, 2, generator=g, dtype=torch.float64))
print(torch.randn(3, generator=g, dtype=torch.float16), torch.randint(0, 2, (3,), generator=g, dtype=torch.bool))
o = torch.empty(3)
torch.rand(3, out=o, generator=g)
print(o, torch.normal(2.0, 3.0, (2,), generator=g), torch.normal(torch.zeros(2), torch.ones(2), generator=g))
print(torch.empty(5).random_(0, 10, generator=g), torch.empty(3).cauchy_(generator=g), torch.empty(3).log_normal_(generator=g), torch.empty(3).geometric_(0.5, generator=g))
print(torch.poisson(torch.tensor([1.0, 5.0, 10.0]), generator=g), torch.multinomial(torch.tensor([0.1, 0.0, 0.9]), 4, replacement=True, generator=g))
for f in [lambda: torch.randint(5, 3, (2,)), lambda: torch.randperm(-1), lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1),
          lambda: torch.normal(torch.zeros(2), -1.0), lambda: torch.empty(2).uniform_(1, 0), lambda: torch.rand(2, dtype=torch.int64)]:  # (generator=5: torch's argument-parser listing, see s30 report)
    try:
        print("ok", f())
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, str(e).split("\n")[0][:150])
