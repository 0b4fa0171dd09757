"""``DistributedOptimizer``: one local optimizer per parameter owner, stepped over RPC.

Each owner of some of the parameters gets an ordinary optimizer over its local parameters.
``step(context_id)`` asks every owner, in parallel, to step with the gradients that context
holds on that worker. The gradients are put in ``.grad`` only for the duration of the step
(under a lock shared by the worker's optimizers) so that ``.grad`` itself, which local
training may use, is left as it was.
"""

import threading

from .. import autograd as dist_autograd
from .. import rpc

_step_lock = threading.Lock()


class _LocalOptimizer:
    def __init__(self, optim_cls, param_rrefs, args, kwargs):
        self.params = [r.local_value() for r in param_rrefs]
        self.optim = optim_cls(self.params, *args, **kwargs)

    def step(self, context_id):
        grads = dist_autograd.get_gradients(context_id)
        with _step_lock:
            saved = [p.grad for p in self.params]
            try:
                for p in self.params:
                    p.grad = grads.get(p)
                self.optim.step()
            finally:
                for p, g in zip(self.params, saved):
                    p.grad = g


def _new_local(optim_cls, param_rrefs, args, kwargs):
    return _LocalOptimizer(optim_cls, param_rrefs, args, kwargs)


def _step_local(local_rref, context_id):
    local_rref.local_value().step(context_id)


class DistributedOptimizer:
    """Optimize parameters that live on several workers, given as RRefs.

    Args:
        optimizer_class (type): a ``torch.optim`` optimizer class (run on each owner).
        params_rref (list[RRef]): RRefs to the parameters, from any owners.
        *args, **kwargs: passed to ``optimizer_class`` on every owner.
    """

    def __init__(self, optimizer_class, params_rref, *args, **kwargs):
        by_owner = {}
        for r in params_rref:
            by_owner.setdefault(r.owner(), []).append(r)
        self.remote_optimizers = [
            rpc.remote(owner, _new_local, args=(optimizer_class, rrefs, args, kwargs))
            for owner, rrefs in by_owner.items()]
        for r in self.remote_optimizers:  # creation errors surface here, as in torch
            r.to_here() if r.is_owner() else rpc.rpc_sync(r.owner(), _created, args=(r,))

    def step(self, context_id):
        """Step every owner's optimizer with the gradients of ``context_id``."""
        dist_autograd._is_valid_context(context_id)
        futs = [rpc.rpc_async(r.owner(), _step_local, args=(r, context_id))
                for r in self.remote_optimizers]
        errors = []
        for f in futs:
            try:
                f.wait()
            except Exception as e:  # noqa: BLE001 - wait for every owner, then report
                errors.append(e)
        if errors:
            raise errors[0]


def _created(rref):
    rref.local_value()
