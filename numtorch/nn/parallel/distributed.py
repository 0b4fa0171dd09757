"""``DistributedDataParallel``: one model replica per process, gradients averaged by MPI.

Construction checks that every rank holds the same model, broadcasts rank 0's parameters and
buffers, and installs the bucketing :class:`~numtorch.nn.parallel._reducer.Reducer`. Each
forward (optionally) broadcasts the buffers from rank 0 and arms the reducer; the backward
then averages the gradients with all-reduces that overlap the rest of backward.
"""

import contextlib

import numpy as np

from ..._tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ..modules.module import Module
from ._reducer import DEFAULT_FIRST_BUCKET_BYTES, Reducer

__all__ = ["DistributedDataParallel"]


def _c10d():
    from ...distributed import distributed_c10d

    return distributed_c10d


def _dist():
    from ... import distributed

    return distributed


class DistributedDataParallel(Module):
    """Data parallelism across processes: wrap the model, train as usual.

    Every rank runs the same program on its own share of each batch (see
    ``DistributedSampler``); after ``loss.backward()`` every rank holds the gradients
    averaged over all ranks, so the optimizers keep the replicas identical.

    Args:
        module (Module): the model (the same on every rank).
        device_ids (list, optional): for a model on one CUDA device, ``[that device]``;
            None for CPU models.
        output_device (optional): unused for single-device models (torch's argument).
        dim (int): the batch dimension (kept for compatibility). Default: 0.
        broadcast_buffers (bool): copy rank 0's buffers (e.g. BatchNorm running
            statistics) to every rank at the start of each forward. Default: True.
        init_sync (bool): broadcast rank 0's parameters and buffers at construction.
        process_group (ProcessGroup, optional): the ranks to average over (default: all).
        bucket_cap_mb (float, optional): the size of a gradient bucket in MiB. Default: 25.
        find_unused_parameters (bool): find the parameters a forward does not use and
            treat their gradients as ready (zero) so the reduction can finish.
        gradient_as_bucket_view (bool): leave each ``.grad`` as a view into its bucket
            (saves a copy and memory).
        static_graph (bool): the set of parameters the forward uses is the same every
            iteration; as in torch, parameters left unused, and parameters whose gradient
            arrives several times in one backward (reentrant activation checkpointing), are
            allowed. Note: numtorch then reduces every bucket when the backward has finished
            (no overlap with the backward).

    Example:
        >>> dist.init_process_group("gloo")                           # doctest: +SKIP
        >>> model = DistributedDataParallel(Net())
        >>> loss_fn(model(x), y).backward()          # gradients averaged over ranks
        >>> opt.step()

    Note:
        ``torch.save(model.state_dict())`` keys start with ``module.``, as in torch; save
        ``model.module.state_dict()`` for a checkpoint that loads into the bare model.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=None, init_sync=True, process_group=None,
                 bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False,
                 bucket_cap_mb_list=None, batched_grad_copy=False, forward_sync_buffers=None):
        super().__init__()
        c10d = _c10d()
        group = c10d.resolve_group(process_group)
        if group is c10d.GroupMember.NON_GROUP_MEMBER:
            raise ValueError("DistributedDataParallel: this rank is not a member of "
                             "process_group")
        ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        named = [(n, p) for n, p in module.named_parameters() if n not in ignore]
        params = [p for _, p in named if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        devices = {p.device for p in module.parameters()}
        on_cpu = all(d.type == "cpu" for d in devices)
        # torch's test: only truthy arguments are refused (output_device=0 or device_ids=[]
        # pass), and they are refused for a CPU or multi-device module or without device_ids
        if (not device_ids or on_cpu or len(devices) > 1) and (device_ids or output_device):
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work "
                "with single-device/multiple-device GPU modules or CPU modules, but got "
                f"device_ids {device_ids}, output_device {output_device}, and module "
                f"parameters {{{', '.join(repr(d) for d in devices)}}}.")
        self.module = module
        self.process_group = group
        self.device_ids = None if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1048576)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.parameters_to_ignore = ignore
        self._module_buffers = [b for n, b in module.named_buffers() if n not in ignore]
        from ...distributed.algorithms.join import _JoinConfig

        self._join_config = _JoinConfig.construct_disabled_join_config()  # set by Join
        self._join_divide_by_initial_world_size = True
        _verify_same_model(group, named)
        if init_sync:
            _broadcast_arrays(group, [p for _, p in named] + self._module_buffers, 0)
        first = min(DEFAULT_FIRST_BUCKET_BYTES, self.bucket_bytes_cap)
        self.reducer = Reducer(params, group, self.bucket_bytes_cap, first,
                               find_unused_parameters, gradient_as_bucket_view)
        self.reducer.param_names = [n for n, p in named if p.requires_grad]
        if static_graph:
            self.reducer.set_static_graph()

    # -- communication hooks --------------------------------------------------------------

    def register_comm_hook(self, state, hook):
        """Reduce each bucket with ``hook(state, bucket)`` (a ``GradBucket``) instead of the
        built-in all-reduce; the hook returns a future of the bucket's reduced, averaged flat
        tensor (see ``torch.distributed.algorithms.ddp_comm_hooks.default_hooks``)."""
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        if self.reducer.comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be "
                               "called once.")
        self.reducer.comm_hook = (state, hook)

    def _register_builtin_comm_hook(self, comm_hook_type):
        from ...distributed.algorithms.ddp_comm_hooks import default_hooks

        hooks = {"ALLREDUCE": default_hooks.allreduce_hook,
                 "FP16_COMPRESS": default_hooks.fp16_compress_hook}
        self.register_comm_hook(None, hooks[comm_hook_type.name])

    # -- forward ------------------------------------------------------------------------

    def will_sync_module_buffers(self):
        """Whether the next forward broadcasts the buffers from the authoritative rank."""
        return (self.require_forward_param_sync and self.broadcast_buffers
                and len(self._module_buffers) > 0)

    def forward(self, *inputs, **kwargs):
        src = 0
        if self._join_config.enable:  # inside Join([ddp]) / ddp.join(): announce this rank
            from ...distributed.algorithms.join import Join

            Join.notify_join_context(self)
            src = self._join_iteration()
        reducer = self.reducer
        if is_grad_enabled() and reducer.started and reducer.active:
            # as torch, any forward recording a graph (inside no_sync too) refuses to start
            # while the last backward's reduction is unfinished: the ranks' gradients were
            # not averaged, and training on would let the replicas drift apart silently
            reducer._unfinished_error()
        if self.will_sync_module_buffers() and self.process_group.size() > 1:
            _broadcast_arrays(self.process_group, self._module_buffers, src)
        if self.device_ids:
            inputs, kwargs = _to_device((inputs, kwargs), self.device_ids[0])
        floor = reducer.note_forward() if is_grad_enabled() else None
        out = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            reducer.prepare_for_backward(out, floor)
        elif not (reducer.started and reducer.active):  # (an unfinished one stays pending)
            reducer.active = False
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Inside this context backward only accumulates local gradients (no communication);
        the first synchronised backward afterwards averages the accumulated sums.

        Example:
            >>> with ddp.no_sync():                   # doctest: +SKIP
            ...     ddp(x1).sum().backward()          # local accumulation
            >>> ddp(x2).sum().backward()              # averages x1's and x2's gradients
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def _set_static_graph(self):
        self.static_graph = True
        self.reducer.set_static_graph()

    def _get_ddp_logging_data(self):
        """The construction facts torch's DDP logger records (Lightning reads this dict)."""
        params = [p for p in self.module.parameters() if p.requires_grad]
        meta = {"float32": "float", "float64": "double", "float16": "c10::Half",
                "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>",
                "complex128": "c10::complex<double>"}  # the C++ type names torch logs
        dtypes = sorted({meta.get(n, n) for n in (str(p.dtype).rpartition(".")[2]
                                                  for p in params)})
        backend = self.process_group.name() if hasattr(self.process_group, "name") else "gloo"
        return {
            "backend_name": backend, "broadcast_buffers": int(self.broadcast_buffers),
            "bucket_cap_bytes": self.bucket_bytes_cap,
            "device_ids": "" if not self.device_ids else ", ".join(map(str, self.device_ids)),
            "dtypes": ", ".join(dtypes),
            "find_unused_parameters": int(bool(self.find_unused_parameters)),
            "gradient_as_bucket_view": int(bool(self.gradient_as_bucket_view)),
            "is_multi_device_module": 0, "module_name": type(self.module).__name__,
            "num_parameter_tensors": len(params),
            "output_device": -1 if self.output_device is None else self.output_device,
            "rank": self.process_group.rank(), "world_size": self.process_group.size(),
            "total_parameter_size_bytes": sum(p.numel() * p.element_size() for p in params),
        }

    @staticmethod
    def _set_params_and_buffers_to_ignore_for_model(module, params_and_buffers_to_ignore):
        """Exclude the named parameters and buffers of ``module`` from synchronisation."""
        module._ddp_params_and_buffers_to_ignore = list(params_and_buffers_to_ignore)

    # -- uneven inputs ------------------------------------------------------------------

    def join(self, divide_by_initial_world_size=True, enable=True,
             throw_on_early_termination=False):
        """Train on uneven numbers of batches per rank: ``Join([self], ...)``.

        A rank that leaves the context (its data ran out) keeps taking part in the other
        ranks' gradient all-reduces with zero gradients until every rank is done; then every
        rank takes the model of the last rank to finish.

        Args:
            divide_by_initial_world_size (bool): average over all ranks (True) or over the
                ranks still training in each iteration.
            enable (bool): False makes this a no-op.
            throw_on_early_termination (bool): raise on every rank as soon as one runs out.
        """
        from ...distributed.algorithms.join import Join

        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        """What this module does on a rank that has joined (``Join``'s hook): shadow the
        others' buffer broadcast and gradient all-reduces, then take the final model.

        Args:
            divide_by_initial_world_size (bool): see :meth:`join`. Default: True.
        """
        self._join_divide_by_initial_world_size = kwargs.get("divide_by_initial_world_size",
                                                             True)
        return _DDPJoinHook(self)

    @property
    def join_device(self):
        return next(iter(self.module.parameters())).device

    @property
    def join_process_group(self):
        return self.process_group

    def _exchange_states(self, mine):
        """All-reduce each rank's state: 0 joined, 1 training (syncs gradients), 2 training
        under no_sync."""
        g = self.process_group
        v = np.zeros(g.size(), np.int64)
        v[g.rank()] = mine
        t = _make_tensor(v)
        _dist().all_reduce(t, group=g)
        return t._array

    def _apply_join_states(self, v):
        active = np.flatnonzero(v)
        divide_initial = self._join_divide_by_initial_world_size
        self.reducer.divisor = v.size if divide_initial else max(1, len(active))
        return active

    def _join_iteration(self):
        v = self._exchange_states(1 if self.require_backward_grad_sync else 2)
        # buffers come from the highest rank still training (rank 0 may have joined and hold
        # stale buffers), as torch agrees on one
        return int(self._apply_join_states(v)[-1])

    # -- pickling -----------------------------------------------------------------------

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("reducer", None)
        state.pop("process_group", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        c10d = _c10d()
        self.process_group = c10d.resolve_group(None)
        params = [p for n, p in self.module.named_parameters()
                  if p.requires_grad and n not in self.parameters_to_ignore]
        self.reducer = Reducer(params, self.process_group, self.bucket_bytes_cap,
                               min(DEFAULT_FIRST_BUCKET_BYTES, self.bucket_bytes_cap),
                               self.find_unused_parameters, self.gradient_as_bucket_view)
        self.reducer.param_names = [n for n, p in self.module.named_parameters()
                                    if p.requires_grad and n not in self.parameters_to_ignore]
        if self.static_graph:
            self.reducer.set_static_graph()


class _DDPJoinHook:
    """A joined rank's side of one training iteration of the ranks still running (torch's
    ``JoinHook`` protocol: ``main_hook`` per iteration, ``post_hook`` once all have joined)."""

    def __init__(self, ddp):
        self.ddp = ddp

    def main_hook(self):
        ddp = self.ddp
        g = ddp.process_group
        v = ddp._exchange_states(0)
        active = ddp._apply_join_states(v)
        if len(active) and ddp.will_sync_module_buffers() and g.size() > 1:
            _broadcast_arrays(g, ddp._module_buffers, int(active[-1]))
        if (v == 1).any():
            ddp.reducer.shadow_backward()

    def post_hook(self, is_last_joiner):
        # ranks that ran out early skipped their optimizer steps: the (highest) last rank to
        # join holds the final model, which every rank takes
        ddp = self.ddp
        g = ddp.process_group
        t = _make_tensor(np.array([g.rank() if is_last_joiner else -1], np.int64))
        _dist().all_reduce(t, op=_dist().ReduceOp.MAX, group=g)
        _broadcast_arrays(g, list(ddp.module.parameters()) + ddp._module_buffers,
                          int(t._array[0]))
        ddp.reducer.divisor = g.size()


def _make_tensor(array):
    from ... import from_numpy

    return from_numpy(array)


def _verify_same_model(group, named):
    """Every rank must hold parameters of the same number, shapes and dtypes."""
    if group.size() == 1:
        return
    mine = [(tuple(p.shape), str(p.dtype)) for _, p in named]
    every = [None] * group.size()
    _dist().all_gather_object(every, mine, group=group)
    ref = every[0]
    for r, other in enumerate(every[1:], start=1):
        rank = group._ranks[r]
        if len(other) != len(ref):
            raise RuntimeError(f"DDP expects same model across all ranks, but Rank "
                               f"{group._ranks[0]} has {len(ref)} params, while rank {rank} has "
                               f"inconsistent {len(other)} params.")
        for i, (a, b) in enumerate(zip(ref, other)):
            if a != b:
                raise RuntimeError(
                    f"DDP expects same model across all ranks, but Rank {rank} has parameter "
                    f"{i} ({named[i][0]}) with shape {list(b[0])} and dtype {b[1]}, while "
                    f"rank {group._ranks[0]} has shape {list(a[0])} and dtype {a[1]}.")


def _broadcast_arrays(group, tensors, src_group_rank):
    """Broadcast the data of ``tensors`` from one rank as a single byte message."""
    if group.size() == 1 or not tensors:
        return
    arrays = [t._array for t in tensors]
    host = [np.asarray(a) if type(a) is np.ndarray else a.get() for a in arrays]
    sizes = [a.nbytes for a in host]
    packed = np.empty(sum(sizes), np.uint8)
    if group.rank() == src_group_rank:
        off = 0
        for a, n in zip(host, sizes):
            packed[off:off + n] = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
            off += n
    t = _make_tensor(packed)
    _dist().broadcast(t, group=group, group_src=src_group_rank)
    if group.rank() == src_group_rank:
        return
    off = 0
    with no_grad():
        for tensor, a, n in zip(tensors, host, sizes):
            chunk = packed[off:off + n].view(a.dtype).reshape(a.shape)
            from ...distributed._mpi import write_into

            write_into(tensor._array, chunk)
            off += n


def _to_device(obj, device):
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple):
        return tuple(_to_device(x, device) for x in obj)
    if isinstance(obj, list):
        return [_to_device(x, device) for x in obj]
    if isinstance(obj, dict):
        return {k: _to_device(v, device) for k, v in obj.items()}
    return obj
