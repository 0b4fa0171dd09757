import torch
import torch.nn as nn


class E(nn.Module):
    def __init__(s):
        super().__init__()
        s.l = nn.Linear(2, 2)
        s.register_buffer("b", None)
        s.state = {"k": 1}

    def get_extra_state(s):
        return s.state

    def set_extra_state(s, st):
        s.state = st

    def forward(s, x):
        return s.l(x)


def run(cases):
    for k, f in enumerate(cases):
        try:
            print(k, f())
        except Exception as e:
            print(k, type(e).__name__, str(e).split("\n")[0])
#%% module api 0
m = E()
run([
   lambda: list(m.state_dict().keys()), lambda: m.state_dict()["_extra_state"], lambda: m.load_state_dict({**m.state_dict(), "_extra_state": {"k": 2}}) or m.state,
   lambda: m.b, lambda: [n for n, _ in m.named_buffers()], lambda: m.to_empty(device="cpu").l.weight.shape, lambda: m.share_memory() is m, lambda: m.l.weight.is_shared(),
   lambda: m.zero_grad(set_to_none=False), lambda: m._version, lambda: type(m).dump_patches, lambda: sorted(k for k in dir(m) if not k.startswith("_"))[:12],
])
#%% module api 1
m = E()
run([
   lambda: m.extra_repr(), lambda: m.l.extra_repr(), lambda: m._get_name(), lambda: m.training, lambda: m.get_submodule(""), lambda: m.get_submodule("l.weight"),
   lambda: m.get_parameter("l.weight").shape, lambda: m.get_buffer("b"), lambda: m.get_extra_state(), lambda: nn.Linear(1, 1).get_extra_state(),
   lambda: m.register_buffer("_x.y", None), lambda: m.register_buffer(3, None), lambda: setattr(m, "training", "yes") or m.training, lambda: m.half().l.weight.dtype,
])
#%% module api 2
m = E()
run([
   lambda: m.type(torch.float64).l.weight.dtype, lambda: m.cpu() is m, lambda: m.requires_grad_(False).l.weight.requires_grad, lambda: m.ipu(),
   lambda: m.xpu(), lambda: m.mtia(), lambda: list(m.buffers()), lambda: m.compile() if False else "skip", lambda: m.set_submodule("l", nn.ReLU()) or m.l, lambda: m.set_submodule("x.y", nn.ReLU()),
   lambda: nn.Module().forward(1), lambda: nn.Module()(1), lambda: m.__class__.__name__, lambda: m.call_super_init, lambda: m.__getstate__().keys() if False else "skip",
])
