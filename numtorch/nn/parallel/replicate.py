"""Copies of a module on several devices whose parameters stay linked to the original's.

A replica's parameters are the differentiable copies ``param.to(device)``, so the gradients
of every replica flow back into (and sum in) the original parameters, as torch's do.
"""

from ...autograd.grad_mode import no_grad
from .scatter_gather import as_device

__all__ = ["replicate"]


def _replica_of(module):
    replica = module.__class__.__new__(module.__class__)
    state = module.__dict__.copy()
    # fresh tables, filled below (set in __dict__: Module.__setattr__ would treat them as
    # user attributes)
    for table in ("_parameters", "_buffers", "_modules"):
        state[table] = type(state[table])(state[table])
    state["_is_replica"] = True
    replica.__dict__.update(state)
    return replica


def replicate(network, devices, detach=False):
    """One copy of ``network`` per device in ``devices``.

    Args:
        network (Module): the module to copy.
        devices (list): device indices or devices.
        detach (bool): give the replicas detached parameters (no gradient flows back).

    Returns:
        list[Module]: the replicas, in ``devices`` order.
    """
    devs = [as_device(d) for d in devices]
    modules = list(network.modules())
    index = {id(m): i for i, m in enumerate(modules)}
    out = []
    for dev in devs:
        copies = [_replica_of(m) for m in modules]
        for m, r in zip(modules, copies):
            for k, p in m._parameters.items():
                if p is None:
                    continue
                q = p.detach().to(dev) if detach else p.to(dev)
                r._parameters[k] = q
            with no_grad():
                for k, b in m._buffers.items():
                    if b is not None:
                        r._buffers[k] = b.to(dev)
            for k, child in m._modules.items():
                r._modules[k] = None if child is None else copies[index[id(child)]]
        out.append(copies[0])
    return out
