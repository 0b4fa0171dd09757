"""``ZeroRedundancyOptimizer``: each rank keeps the optimizer state of only its share of the
parameters (ZeRO stage 1).

The parameters of every group are dealt out to the ranks, largest first, each to the rank
holding the fewest elements so far. Each rank runs an ordinary ``optimizer_class`` over its
share; after its step every parameter is broadcast from the rank that owns it, so all ranks
end the step with the same parameters. ``param_groups`` lists every parameter (schedulers
and user code change hyperparameters there; they reach the local optimizer at the next
step). ``state_dict()`` needs ``consolidate_state_dict(to=rank)`` on all ranks first and then
answers on that rank only, in ``optimizer_class``'s format over all parameters.
"""

from ... import optim as _optim
from ...autograd.grad_mode import no_grad
from .. import _collectives, _objects
from ..algorithms.join import Joinable, JoinHook

__all__ = ["ZeroRedundancyOptimizer"]


def _world(process_group):
    """``(group, world_size, rank, global_rank)``; torch's error without a default group."""
    from .. import distributed_c10d as c10d

    if not c10d.is_initialized():
        raise ValueError("Default process group has not been initialized, please make sure to "
                         "call init_process_group.")
    group = process_group if process_group is not None else c10d.group.WORLD
    world = c10d.get_world_size(group)
    rank = c10d.get_rank(group)
    return group, world, rank, c10d.get_global_rank(group, rank) if process_group is not None \
        else rank


class _ZeROJoinHook(JoinHook):
    def __init__(self, zero):
        self.zero = zero

    def main_hook(self):
        # a rank that ran out of inputs still owns parameters: it steps (with no gradients,
        # a no-op for torch's optimizers) so that the broadcasts pair up
        self.zero.step()


class ZeroRedundancyOptimizer(_optim.Optimizer, Joinable):
    """Wraps ``optimizer_class`` so that its state is sharded across the ranks of
    ``process_group`` (default: the world). ``defaults`` are ``optimizer_class``'s keyword
    arguments. ``parameters_as_bucket_view`` and ``overlap_with_ddp`` are accepted; numtorch
    keeps the parameters as they are and steps after backward (``overlap_with_ddp=True``,
    which needs a DDP communication hook to drive it, is refused)."""

    def __init__(self, params, optimizer_class, process_group=None,
                 parameters_as_bucket_view=False, overlap_with_ddp=False, **defaults):
        if overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer(overlap_with_ddp=True) is not "
                                      "supported by numtorch")
        self.process_group, self.world_size, self.rank, self.global_rank = \
            _world(process_group)
        self._optim_constructor = optimizer_class
        self._optim_defaults = dict(defaults)
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._overlap_with_ddp = overlap_with_ddp
        self._all_state_dicts = None
        self._owner = {}  # id(param) -> group rank
        self._sizes = [0] * self.world_size
        self.optim = None
        _optim.Optimizer.__init__(self, params, dict(defaults))
        Joinable.__init__(self)
        local = [self._local_group(g) for g in self.param_groups]
        self.optim = optimizer_class(local, **defaults)
        self._pull_hyperparameters()

    # -- partition ---------------------------------------------------------------------------

    def _assign(self, params):
        for p in sorted(params, key=lambda t: t.numel(), reverse=True):
            r = min(range(self.world_size), key=lambda k: self._sizes[k])
            self._owner[id(p)] = r
            self._sizes[r] += p.numel()

    def _local_group(self, group):
        g = {k: v for k, v in group.items() if k != "params"}
        g["params"] = [p for p in group["params"] if self._owner[id(p)] == self.rank]
        return g

    def add_param_group(self, param_group):
        """Add a group (its parameters are dealt out to the ranks as at construction)."""
        _optim.Optimizer.add_param_group(self, param_group)
        self._assign(self.param_groups[-1]["params"])
        if self.optim is not None:
            self.optim.add_param_group(self._local_group(self.param_groups[-1]))
            self._pull_hyperparameters()

    # -- hyperparameters ---------------------------------------------------------------------

    def _pull_hyperparameters(self):
        """The local optimizer's filled-in options, copied into ``param_groups``."""
        for g, lg in zip(self.param_groups, self.optim.param_groups):
            for k, v in lg.items():
                if k != "params":
                    g[k] = v

    def _push_hyperparameters(self):
        for g, lg in zip(self.param_groups, self.optim.param_groups):
            for k, v in g.items():
                if k != "params":
                    lg[k] = v

    # -- step ----------------------------------------------------------------------------------

    def step(self, closure=None, **kwargs):
        """One step of the local optimizer over this rank's share, then every parameter
        broadcast from its owner. Returns the closure's loss (or None)."""
        self._push_hyperparameters()
        loss = self.optim.step(closure=closure, **kwargs) if closure is not None or kwargs \
            else self.optim.step()
        self._pull_hyperparameters()
        if self.world_size > 1:
            self._sync_parameters()
        return loss

    def _sync_parameters(self):
        from .. import distributed_c10d as c10d

        group = None if self.process_group is c10d.group.WORLD else self.process_group
        with no_grad():
            for g in self.param_groups:
                for p in g["params"]:
                    src = self._owner[id(p)]
                    if group is not None:
                        src = c10d.get_global_rank(group, src)
                    _collectives.broadcast(p.data, src=src, group=group)

    def zero_grad(self, set_to_none=True):
        _optim.Optimizer.zero_grad(self, set_to_none)

    # -- state ---------------------------------------------------------------------------------

    def _local_to_global(self):
        """For each rank, its local parameter positions mapped to global positions."""
        maps = [[] for _ in range(self.world_size)]
        i = 0
        for g in self.param_groups:
            for p in g["params"]:
                maps[self._owner[id(p)]].append(i)
                i += 1
        return maps

    def consolidate_state_dict(self, to=0):
        """Gather every rank's optimizer state on rank ``to`` (call it on all ranks)."""
        from .. import distributed_c10d as c10d

        local = self.optim.state_dict()
        if self.world_size == 1:
            gathered = [local]
        else:
            group = None if self.process_group is c10d.group.WORLD else self.process_group
            gathered = [None] * self.world_size
            _objects.all_gather_object(gathered, local, group=group)
        self._all_state_dicts = gathered if self.rank == to else None

    def state_dict(self):
        """The whole optimizer's state in ``optimizer_class``'s format (on the rank given to
        ``consolidate_state_dict`` only)."""
        if self._all_state_dicts is None:
            # torch names this rank as the one to consolidate on
            raise RuntimeError(f"Optimizer state has not been consolidated on this rank. Please "
                               f"call `consolidate_state_dict(to={self.rank})` on all ranks "
                               f"beforehand if you meant to save the global state.")
        maps = self._local_to_global()
        state = {}
        for r, sd in enumerate(self._all_state_dicts):
            for local_i, st in sd["state"].items():
                state[maps[r][local_i]] = st
        groups, i = [], 0
        for g in self.param_groups:
            out = {k: v for k, v in g.items() if k != "params"}
            out["params"] = list(range(i, i + len(g["params"])))
            i += len(g["params"])
            groups.append(out)
        return {"state": dict(sorted(state.items())), "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Load a state saved by ``state_dict()``: each rank keeps its share."""
        maps = self._local_to_global()[self.rank]
        local_groups, i = [], 0
        for g, sg in zip(self.param_groups, state_dict["param_groups"]):
            for k, v in sg.items():
                if k != "params":
                    g[k] = v
            n = sum(1 for p in g["params"] if self._owner[id(p)] == self.rank)
            lg = {k: v for k, v in sg.items() if k != "params"}
            lg["params"] = list(range(i, i + n))
            i += n
            local_groups.append(lg)
        local_state = {li: state_dict["state"][gi] for li, gi in enumerate(maps)
                       if gi in state_dict["state"]}
        self.optim.load_state_dict({"state": local_state, "param_groups": local_groups})
        self._pull_hyperparameters()

    # -- Joinable ------------------------------------------------------------------------------

    def join_hook(self, **kwargs):
        return _ZeROJoinHook(self)

    @property
    def join_device(self):
        for g in self.param_groups:
            for p in g["params"]:
                return p.device
        from ..._device import device

        return device("cpu")

    @property
    def join_process_group(self):
        return self.process_group
