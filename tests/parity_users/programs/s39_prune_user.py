import torch
import torch.nn as nn
import torch.nn.utils.prune as prune


def lenet():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, 3))
#%% random_unstructured then l1 on bias
m = lenet()
conv = m[0]
print(list(conv.named_parameters()), list(conv.named_buffers()))
torch.manual_seed(1)
prune.random_unstructured(conv, name="weight", amount=0.3)
print([n for n, _ in conv.named_parameters()], [n for n, _ in conv.named_buffers()])
print(conv.weight_mask.sum(), conv.weight_mask.shape, (conv.weight == 0).sum())
print(list(conv._forward_pre_hooks.values()))
prune.l1_unstructured(conv, name="bias", amount=1)
print(conv.bias_mask, conv.bias)
print(list(m.state_dict().keys()))
#%% iterative pruning and the pruning container
m = lenet()
conv = m[0]
prune.ln_structured(conv, name="weight", amount=0.5, n=2, dim=0)
print(conv.weight_mask.sum(dim=(1, 2, 3)))
prune.l1_unstructured(conv, name="weight", amount=0.2)
hook = [h for h in conv._forward_pre_hooks.values()][0]
print(type(hook).__name__, [type(h).__name__ for h in hook], hook._tensor_name)
print(int((conv.weight == 0).sum()))
prune.remove(conv, "weight")
print([n for n, _ in conv.named_parameters()], [n for n, _ in conv.named_buffers()], int((conv.weight == 0).sum()))
try:
    prune.remove(conv, "weight")
except Exception as e:
    print(type(e).__name__, e)
#%% global pruning and custom method
m = lenet()
params = ((m[0], "weight"), (m[3], "weight"))
prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.4)
total = sum(float(torch.sum(mod.weight == 0)) for mod, _ in params)
print(total, sum(mod.weight.nelement() for mod, _ in params))
print(prune.is_pruned(m), prune.is_pruned(lenet()))
class EveryOther(prune.BasePruningMethod):
    PRUNING_TYPE = "unstructured"
    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask
lin = nn.Linear(3, 2)
EveryOther.apply(lin, "bias")
print(lin.bias_mask, lin.bias.shape)
prune.identity(lin, "weight")
print(lin.weight_mask)
#%% amount errors
for amount in [1.5, -1, 100, "x"]:
    try:
        prune.random_unstructured(nn.Linear(2, 2), "weight", amount=amount)
        print("ok", amount)
    except Exception as e:
        print(type(e).__name__, e)
try:
    prune.l1_unstructured(nn.Linear(2, 2), "nope", amount=0.5)
except Exception as e:
    print(type(e).__name__, e)
m = nn.Linear(4, 4)
prune.l1_unstructured(m, "weight", amount=0.5)
sd = m.state_dict()
print(sorted(sd.keys()))
m2 = nn.Linear(4, 4)
try:
    m2.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0])
