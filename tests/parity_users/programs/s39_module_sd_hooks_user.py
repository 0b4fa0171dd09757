import torch
import torch.nn as nn
from collections import OrderedDict


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.bn = nn.BatchNorm1d(2)
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("scratch", torch.ones(2), persistent=False)

    def forward(self, x):
        return self.bn(self.fc(x)) + self.running + self.scratch
#%% persistent=False buffers
n = Net()
print(list(n.state_dict().keys()))
print([k for k, _ in n.named_buffers()])
print(n._non_persistent_buffers_set)
r = n.load_state_dict(n.state_dict())
print(r)
sd = n.state_dict()
sd["scratch"] = torch.zeros(2)
try:
    n.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, e)
print(n.load_state_dict(sd, strict=False))
#%% state_dict pre and post hooks
n = Net()
n.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: print("pre", type(mod).__name__, repr(prefix), keep_vars))
n.fc.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: print("pre fc", repr(prefix)))
def post(mod, sd, prefix, local_metadata):
    print("post", type(mod).__name__, repr(prefix), sorted(local_metadata.keys()))
    sd[prefix + "added"] = torch.tensor(1)
n.register_state_dict_post_hook(post)
sd = n.state_dict()
print(list(sd.keys()))
print(sd._metadata[""], sd._metadata["fc"], sd._metadata["bn"])
sd2 = n.state_dict(prefix="top.", keep_vars=True)
print(list(sd2.keys()), type(sd2["top.fc.weight"]).__name__)
#%% load_state_dict pre hooks
n = Net()
def pre(mod, state_dict, prefix, local_metadata, strict, missing, unexpected, error_msgs):
    print("load pre", type(mod).__name__, repr(prefix), strict, sorted(state_dict.keys())[:3], local_metadata)
    if prefix + "old_weight" in state_dict:
        state_dict[prefix + "weight"] = state_dict.pop(prefix + "old_weight")
n.fc.register_load_state_dict_pre_hook(pre)
sd = n.state_dict()
sd["fc.old_weight"] = sd.pop("fc.weight") * 0 + 3
print(n.load_state_dict(sd))
print(n.fc.weight)
def pre_with_module(module, state_dict, prefix, *args):
    print("with module", type(module).__name__, prefix)
h = n.register_load_state_dict_pre_hook(pre_with_module)
n.load_state_dict(n.state_dict())
h.remove()
n.load_state_dict(n.state_dict())
def post(mod, incompatible):
    print("load post", type(mod).__name__, incompatible.missing_keys, incompatible.unexpected_keys)
    incompatible.unexpected_keys.clear()
n.register_load_state_dict_post_hook(post)
sd = n.state_dict()
sd["zzz"] = torch.ones(1)
print(n.load_state_dict(sd))
#%% errors in load_state_dict
n = Net()
sd = n.state_dict()
sd["fc.weight"] = torch.zeros(3, 2)
sd["bn.bias"] = torch.zeros(5)
del sd["running"]
sd["extra.x"] = torch.ones(1)
try:
    n.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, e)
try:
    n.load_state_dict({"fc.weight": [[1, 2], [3, 4]]}, strict=False)
except Exception as e:
    print(type(e).__name__, e)
try:
    n.load_state_dict([1, 2])
except Exception as e:
    print(type(e).__name__, e)
n.load_state_dict(OrderedDict(n.state_dict()))
sd = n.state_dict()
sd["fc.weight"] = torch.ones(2, 2, dtype=torch.float64)
n.load_state_dict(sd)
print(n.fc.weight.dtype, n.fc.weight)
n.load_state_dict({k: v for k, v in sd.items()}, assign=True)
print(n.fc.weight.dtype, type(n.fc.weight).__name__, n.fc.weight.requires_grad)
#%% apply, half, to(memory_format)
n = Net()
def init(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.5)
        nn.init.zeros_(m.bias)
    print("visit", type(m).__name__)
print(n.apply(init) is n)
print(n.fc.weight)
h = n.half()
print(h is n, n.fc.weight.dtype, n.running.dtype, n.bn.num_batches_tracked.dtype)
n.float()
print(n.fc.weight.dtype, n.bn.running_mean.dtype)
c = nn.Conv2d(3, 4, 3)
c.to(memory_format=torch.channels_last)
print(c.weight.is_contiguous(), c.weight.is_contiguous(memory_format=torch.channels_last), c.weight.stride())
print(c.bias.stride())
n.double()
print(n.scratch.dtype, n.bn.weight.dtype)
n.bfloat16()
print(n.fc.bias.dtype)
n.to(torch.float16)
print(n.fc.bias.dtype)
try:
    n.to(torch.int32)
except Exception as e:
    print(type(e).__name__, e)
#%% requires_grad_, train flags, children printing
n = Net()
n.requires_grad_(False)
print([p.requires_grad for p in n.parameters()])
n.fc.requires_grad_()
print([(k, p.requires_grad) for k, p in n.named_parameters()])
print(n.train(False).training, n.bn.training)
try:
    n.train("no")
except Exception as e:
    print(type(e).__name__, e)
print(list(n.children()))
print(n)
print(sum(p.numel() for p in n.parameters() if p.requires_grad))
#%% register_module / add_module errors
n = nn.Module()
for bad in [("a.b", nn.ReLU()), ("", nn.ReLU()), ("x", 3), (1, nn.ReLU())]:
    try:
        n.add_module(*bad)
    except Exception as e:
        print(type(e).__name__, e)
n.register_module("r", nn.ReLU())
n.x = nn.Parameter(torch.ones(1))
try:
    n.register_parameter("r", nn.Parameter(torch.ones(1)))
except Exception as e:
    print(type(e).__name__, e)
try:
    n.register_buffer("x", torch.ones(1))
except Exception as e:
    print(type(e).__name__, e)
try:
    n.x = torch.ones(1)
except Exception as e:
    print(type(e).__name__, e)
try:
    n.register_buffer("buf", [1])
except Exception as e:
    print(type(e).__name__, e)
try:
    n.register_parameter("p", torch.ones(1))
except Exception as e:
    print(type(e).__name__, e)
n.register_parameter("none", None)
print(n)
print(list(n.state_dict().keys()), n.none)
del n.x
print(hasattr(n, "x"), [k for k, _ in n.named_parameters()])
