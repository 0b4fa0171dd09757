"""One FSDP training run written for either library (``torch`` is numtorch or real torch).

Both libraries start from the same NumPy weights and batches, so their losses, gradient
norms and final parameters can be compared number for number.
"""

import numpy as np


def run_case(torch, FSDP, rank, world):
    from importlib import import_module

    fsdp = import_module(FSDP.__module__.rsplit(".", 1)[0])
    wrap = import_module(fsdp.__name__ + ".wrap")
    nn = torch.nn
    rng = np.random.default_rng(5)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 15), nn.Tanh(),
                          nn.Linear(15, 3))
    model.load_state_dict({k: torch.tensor(rng.standard_normal(tuple(v.shape)).astype(
        np.float32) * 0.3) for k, v in model.state_dict().items()})
    got = {}
    for orig in (False, True):
        m = FSDP(_clone(model),
                 auto_wrap_policy=wrap.ModuleWrapPolicy({nn.Linear}),
                 device_id=torch.device("cpu"), use_orig_params=orig)
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        losses, norms = [], []
        for step in range(3):
            r = np.random.default_rng(100 + step)
            x = torch.tensor(r.standard_normal((8, 6)).astype(np.float32))
            y = torch.tensor(r.integers(0, 3, 8))
            n = 8 // world
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x[rank * n:(rank + 1) * n]),
                                                     y[rank * n:(rank + 1) * n])
            loss.backward()
            norms.append(float(m.clip_grad_norm_(0.5)))
            opt.step()
            losses.append(float(loss))
        tag = "orig" if orig else "flat"
        got[tag + "_losses"] = losses
        got[tag + "_norms"] = norms
        got[tag + "_names"] = [[k, list(p.shape)] for k, p in m.named_parameters()]
        got[tag + "_grad_shapes"] = [None if p.grad is None else list(p.grad.shape)
                                     for p in m.parameters()]
        sd = m.state_dict()
        got[tag + "_state"] = {k: v.detach().reshape(-1).tolist() for k, v in sd.items()}
        with FSDP.state_dict_type(m, fsdp.StateDictType.LOCAL_STATE_DICT):
            if not orig:
                local = m.state_dict()
                got["local_keys"] = list(local)
                got["local_sizes"] = [[s.shard_sizes for s in v.metadata().shards_metadata]
                                      for v in local.values()]
        with FSDP.state_dict_type(m, fsdp.StateDictType.SHARDED_STATE_DICT):
            sh = m.state_dict()
            got[tag + "_sharded"] = {
                k: [list(v.size()), [[s.shard_offsets, s.shard_sizes]
                                     for s in v.metadata().shards_metadata]]
                for k, v in sh.items()}
    return got


def _clone(model):
    import copy

    return copy.deepcopy(model)
