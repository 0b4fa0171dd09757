import torch
import torch.nn as nn


def run(cases):
    for k, f in enumerate(cases):
        torch.manual_seed(0)
        try:
            print(k, f())
        except Exception as e:
            print(k, type(e).__name__, str(e).split("\n")[0])
#%% nn.init 0
w = torch.empty(3, 4)
run([
   lambda: nn.init.xavier_uniform_(torch.empty(3)), lambda: nn.init.kaiming_normal_(torch.empty(0, 3)), lambda: nn.init.kaiming_uniform_(w, mode="bogus"),
   lambda: nn.init.kaiming_uniform_(w, nonlinearity="swish"), lambda: nn.init.calculate_gain("leaky_relu", 0.2), lambda: nn.init.calculate_gain("leaky_relu", "x"),
   lambda: nn.init.calculate_gain("selu"), lambda: nn.init.calculate_gain("conv2d"), lambda: nn.init.calculate_gain("foo"), lambda: nn.init.orthogonal_(torch.empty(3)),
])
#%% nn.init 1
w = torch.empty(3, 4)
run([
   lambda: nn.init.sparse_(torch.empty(3, 3, 3), 0.5), lambda: nn.init.eye_(torch.empty(2, 2, 2)), lambda: nn.init.dirac_(torch.empty(2, 2)), lambda: nn.init.dirac_(torch.empty(4, 2, 3), groups=3),
   lambda: nn.init.trunc_normal_(w, a=2, b=1).shape, lambda: nn.init.uniform_(w, 2, 1).shape, lambda: nn.init.normal_(w, std=-1), lambda: nn.init.constant_(w, "a"),
   lambda: nn.init._calculate_fan_in_and_fan_out(torch.empty(2, 3, 4, 5)), lambda: nn.init._calculate_fan_in_and_fan_out(torch.empty(2)),
])
#%% nn.init 2
w = torch.empty(3, 4)
run([
   lambda: nn.init.xavier_normal_(torch.empty(2, 3, dtype=torch.int64)), lambda: nn.init.zeros_(torch.empty(2, dtype=torch.int64)), lambda: nn.init.ones_(torch.ones(2, requires_grad=True)),
   lambda: nn.init.uniform_(torch.empty(2, dtype=torch.int32)), lambda: nn.init.normal_(torch.empty(2, dtype=torch.int32)),
])
#%% fill values that are no numbers
x = torch.empty(2)
for v in [(1,'a'), [1.5], [[1]], (None,), {'a':1}, b'x', torch.float32, 1j, True, 3, 2.5, torch.tensor(2.0)]:
  for f in [lambda: x.fill_(v), lambda: torch.fill(x, v), lambda: torch.full((2,), v), lambda: torch.nn.init.constant_(x, v), lambda: x.new_full((1,), v)]:
    try: r = f(); print('ok', r.dtype)
    except Exception as e: print(type(e).__name__, str(e))
