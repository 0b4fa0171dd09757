"""Process groups: ``init_process_group``, ``new_group``, ranks, backends and ``ReduceOp``.

torch's backends ("gloo", "nccl", "mpi") are all served by one transport here: the name a
program asks for is remembered (``get_backend`` returns it). Under an MPI launcher (``mpiexec``
or ``python -m numtorch.distributed.run``) ranks and communicators are MPI's and ``env://``
variables, ``rank=`` and ``world_size=`` are checked against them; any other process joins
through a store onto the socket transport (``_sock_init``), whose communicators have the
same interface.
"""

import datetime
import os
import warnings

from . import _mpi
from ._names import (Backend, ReduceOp, RedOpType, _make_nccl_premul_sum,  # noqa: F401
                     op_name, reduce_op)
from ._world import World, DistBackendError

__all__ = [
    "Backend", "GroupMember", "ProcessGroup", "ReduceOp", "default_pg_timeout",
    "destroy_process_group", "get_backend", "get_global_rank", "get_group_rank",
    "get_node_local_rank", "get_pg_count", "get_process_group_ranks", "get_rank",
    "get_world_size", "group", "init_process_group", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "new_group",
    "new_subgroups", "reduce_op", "is_backend_available", "get_default_backend_for_device",
    "is_ucc_available", "is_xccl_available",
]

default_pg_timeout = datetime.timedelta(minutes=30)
_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class _WorldGroupMeta(type):
    @property
    def WORLD(cls):
        return _default_pg


class GroupMember(metaclass=_WorldGroupMeta):
    """``GroupMember.WORLD`` (the default group, None before init) and NON_GROUP_MEMBER."""

    NON_GROUP_MEMBER = -100


class group(metaclass=_WorldGroupMeta):
    """``group.WORLD``: the default process group (None before ``init_process_group``)."""


class ProcessGroup:
    """A set of ranks that run collectives together, on its own MPI communicators.

    Create them with :func:`init_process_group` (the default group of all ranks) and
    :func:`new_group`. ``rank()`` is this process's rank within the group, ``size()`` the
    number of ranks in it.
    """

    def __init__(self, world, comm, ranks, backend, timeout_s, name, desc):
        self._world = world
        self._comm = comm
        self._check_comm = comm.Dup()
        self._ranks = list(ranks)
        self._group_rank = self._ranks.index(world.rank)
        self._backend = backend
        self._timeout_s = timeout_s
        self._seq = 0
        self._broken = None
        self.group_name = name
        self.group_desc = desc
        self.bound_device_id = None  # init_process_group(device_id=...); split_group needs it

    def rank(self):
        return self._group_rank

    def size(self):
        return len(self._ranks)

    def name(self):
        """The backend's name as torch's process groups give it ("gloo" for CPU groups)."""
        return "gloo" if self._backend in ("undefined", "gloo") else self._backend

    # torch's ProcessGroup methods: a list of tensors and an options record; they always
    # return a Work (the record's asyncOp does not change that, as in torch)
    def allreduce(self, tensors, opts=None):
        from ._collectives import all_reduce
        from ._options import AllreduceOptions

        opts = AllreduceOptions() if opts is None else opts
        return all_reduce(_one(tensors, "allreduce"), op=opts.reduceOp, group=self,
                          async_op=True)

    def broadcast(self, tensors, opts=None):
        from ._collectives import broadcast
        from ._options import BroadcastOptions

        opts = BroadcastOptions() if opts is None else opts
        return broadcast(_one(tensors, "broadcast"), group=self, group_src=opts.rootRank,
                         async_op=True)

    def reduce(self, tensors, opts=None):
        from ._collectives import reduce
        from ._options import ReduceOptions

        opts = ReduceOptions() if opts is None else opts
        return reduce(_one(tensors, "reduce"), op=opts.reduceOp, group=self,
                      group_dst=opts.rootRank, async_op=True)

    def allreduce_coalesced(self, tensors, opts=None):
        from ._collectives import all_reduce_coalesced
        from ._options import AllreduceCoalescedOptions

        opts = AllreduceCoalescedOptions() if opts is None else opts
        return all_reduce_coalesced(list(tensors), op=opts.reduceOp, group=self,
                                    async_op=True)

    def allgather(self, output_tensors, input_tensors, opts=None):
        from ._collectives import all_gather

        return all_gather(_one(output_tensors, "allgather"), _one(input_tensors, "allgather"),
                          group=self, async_op=True)

    def gather(self, output_tensors, input_tensors, opts=None):
        from ._collectives import gather
        from ._options import GatherOptions

        opts = GatherOptions() if opts is None else opts
        out = _one(output_tensors, "gather") if output_tensors else None
        return gather(_one(input_tensors, "gather"), gather_list=out, group=self,
                      group_dst=opts.rootRank, async_op=True)

    def scatter(self, output_tensors, input_tensors, opts=None):
        from ._collectives import scatter
        from ._options import ScatterOptions

        opts = ScatterOptions() if opts is None else opts
        src = _one(input_tensors, "scatter") if input_tensors else None
        return scatter(_one(output_tensors, "scatter"), scatter_list=src, group=self,
                       group_src=opts.rootRank, async_op=True)

    def reduce_scatter(self, output_tensors, input_tensors, opts=None):
        from ._collectives import reduce_scatter
        from ._options import ReduceScatterOptions

        opts = ReduceScatterOptions() if opts is None else opts
        return reduce_scatter(_one(output_tensors, "reduce_scatter"),
                              list(_one(input_tensors, "reduce_scatter")), op=opts.reduceOp,
                              group=self, async_op=True)

    def alltoall(self, output_tensors, input_tensors, opts=None):
        from ._all_to_all import all_to_all

        return all_to_all(list(output_tensors), list(input_tensors), group=self, async_op=True)

    def barrier(self, opts=None):
        from ._collectives import barrier

        return barrier(group=self, async_op=True)  # opts' device ids name no CPU device

    def _next(self):
        """The call number of the next collective (checked across ranks)."""
        if self._broken is not None:
            raise self._broken
        self._seq += 1
        return self._seq

    def _what(self, op, seq):
        label = "the default group" if self is _default_pg else f"group {self.group_name}"
        return f"{op} (collective #{seq} of {label})"

    def _free(self):
        for c in (self._check_comm, self._comm):
            try:
                if c != self._world.comm:
                    c.Free()
            except Exception:
                pass


def _one(tensors, fn):
    """The single tensor of a ProcessGroup method's tensor list (one device per process)."""
    if isinstance(tensors, (list, tuple)):
        if len(tensors) != 1:
            raise ValueError(f"ProcessGroup.{fn}: expected one tensor per process, got "
                             f"{len(tensors)}")
        return tensors[0]
    return tensors


_world = None
_default_pg = None
_groups = []
_backend_name = None


def world():
    """The running job's state; ValueError (torch's message) before init."""
    if _world is None:
        raise ValueError(_NOT_INIT)
    return _world


def resolve_group(group, fn_name=None):
    """The ProcessGroup for a ``group=`` argument, or NON_GROUP_MEMBER for outsiders."""
    if _world is None:
        raise ValueError(_NOT_INIT)
    if group is None:
        return _default_pg
    if group is GroupMember.NON_GROUP_MEMBER or isinstance(group, int):
        if fn_name is not None:
            warnings.warn(f"Running {fn_name} on global rank {_world.rank} which does not "
                          "belong to the given group.", stacklevel=3)
        return GroupMember.NON_GROUP_MEMBER
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup, got {type(group).__name__}")
    return group


def _get_default_group():
    """The default (world) process group; torch's ValueError before ``init_process_group``."""
    if _world is None:
        raise ValueError(_NOT_INIT)
    return _default_pg


def _rank_not_in_group(group):
    """Whether this process is outside ``group`` (``None``, the world, never is)."""
    if group is None:
        return False
    return group is GroupMember.NON_GROUP_MEMBER


# -- availability ------------------------------------------------------------------------

def is_mpi_available():
    """True when mpi4py (the ``distributed`` extra) is installed."""
    return _mpi.is_mpi_available()


def is_gloo_available():
    """True: "gloo" is served by MPI under an MPI launcher, by sockets otherwise."""
    return True


def is_nccl_available():
    """True when "nccl" can be used: a CUDA device (CuPy)."""
    from .. import cuda

    return cuda.is_available()


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def is_backend_available(backend):
    """Whether ``init_process_group(backend)`` can work here."""
    b = Backend(backend)
    return {"gloo": is_gloo_available, "mpi": is_mpi_available,
            "nccl": is_nccl_available}.get(b, lambda: False)()


def get_default_backend_for_device(device):
    """The backend name torch picks for a device type ("gloo" for cpu, "nccl" for cuda)."""
    kind = device if isinstance(device, str) else device.type
    kind = kind.split(":")[0]
    if kind not in Backend.default_device_backend_map:
        raise ValueError(f"Default backend not registered for device : {kind}")
    return Backend.default_device_backend_map[kind]


def is_initialized():
    """True once ``init_process_group`` ran (and ``destroy_process_group`` did not)."""
    return _world is not None


def is_torchelastic_launched():
    """True in a process started by ``numtorch.distributed.run`` (or torchrun)."""
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


# -- initialisation ----------------------------------------------------------------------

def _check_backend(backend):
    if backend is None:
        return Backend.UNDEFINED
    name = Backend(backend)
    parts = [p.split(":")[-1] for p in name.split(",")]
    for p in parts:
        if p not in ("gloo", "nccl", "mpi", "ucc", "undefined"):
            raise AssertionError(f"Unknown backend type {p}")
        if p == "nccl" and "," not in name and not is_nccl_available():
            raise RuntimeError("Distributed package doesn't have NCCL built in")
    return name


def _timeout_seconds(timeout):
    if timeout is None:
        return default_pg_timeout.total_seconds()
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got "
                        f"{timeout}")
    return timeout.total_seconds()


def _requested_rank_and_size(init_method, world_size, rank, under_mpi):
    """(world size, rank) the program asked for, -1 where it left them open."""
    if init_method.startswith("env://"):
        env = os.environ
        if not under_mpi:  # torch's env:// contract; an MPI launcher supplies the rest
            for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
                if var == "RANK" and rank != -1 or var == "WORLD_SIZE" and world_size != -1:
                    continue
                if var not in env:
                    raise ValueError("Error initializing torch.distributed using env:// "
                                     f"rendezvous: environment variable {var} expected, but "
                                     "not set")
        if rank == -1 and "RANK" in env:
            rank = int(env["RANK"])
        if world_size == -1 and "WORLD_SIZE" in env:
            world_size = int(env["WORLD_SIZE"])
    else:
        from urllib.parse import parse_qs, urlparse

        query = parse_qs(urlparse(init_method).query)
        if rank == -1 and "rank" in query:
            rank = int(query["rank"][0])
        if world_size == -1 and "world_size" in query:
            world_size = int(query["world_size"][0])
    return world_size, rank


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the job and create the default process group of all its ranks.

    Under an MPI launcher (``mpiexec -n N python script.py``, or ``python -m
    numtorch.distributed.run --nproc-per-node N script.py``) the ranks are MPI's. Any other
    process (``mp.spawn``, ``multiprocessing.Process``, separate shells) meets the others
    as in torch: through a TCPStore served by rank 0 (``env://``: MASTER_ADDR, MASTER_PORT,
    RANK, WORLD_SIZE; or ``tcp://host:port``), a FileStore (``file:///path``) or ``store``;
    the job then runs on direct TCP connections between the ranks.

    Args:
        backend (str, optional): "gloo", "nccl", "mpi" (or a "cpu:gloo,cuda:nccl" map);
            ``get_backend()`` returns what was asked for.
        init_method (str, optional): "env://" (default), "tcp://host:port" or
            "file:///path" (``?rank=..&world_size=..`` may carry the numbers). Under MPI,
            ``rank`` and ``world_size`` must agree with MPI's.
        timeout (timedelta, optional): how long the rendezvous and each operation may wait
            for the other ranks before failing with an error naming them. Default: 30 min.
        world_size (int): the number of ranks (-1: from the URL, environment or MPI).
        rank (int): this process's rank (-1: from the URL, environment or MPI).
        store (Store, optional): a store all ranks share, instead of ``init_method``.
        group_name, pg_options: accepted for compatibility.
        device_id (torch.device, optional): binds the default group to a device, which
            ``split_group`` requires, as in torch. Unlike torch's gloo, a CPU device is
            accepted (numtorch has no accelerator to bind); an int raises torch's error.

    Raises:
        ValueError: when called twice, or the rendezvous lacks a rank or world size.
        DistStoreError: a rank did not join in time. DistNetworkError: rank 0's store could
            not be reached (or its port is taken).
        RuntimeError: under MPI, when mpi4py is missing or the requested world does not
            match the processes MPI started.
    """
    global _world, _default_pg, _backend_name
    if _world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None:
        if init_method is not None:
            raise AssertionError("Cannot specify both init_method and store.")
        if world_size <= 0:
            raise AssertionError("world_size must be positive if using store")
        if rank < 0:
            raise AssertionError("rank must be non-negative if using store")
    if isinstance(device_id, int) and not isinstance(device_id, bool):
        raise ValueError(  # noqa: TRY004  (torch's class for this case)
            "device_id is an int, but no accelerator support is found from the "
            "current compilation. Please use a different compiled version that "
            "supports your accelerator.")
    timeout_s = _timeout_seconds(timeout)
    sockets = _use_sockets(store)
    under_mpi = not sockets
    if store is not None:
        want_size, want_rank = world_size, rank
    else:
        want_size, want_rank = _requested_rank_and_size(init_method or "env://", world_size,
                                                         rank, under_mpi)
    name = _check_backend(backend)
    if sockets:
        from ._sock_init import socket_world

        w = socket_world(init_method or "env://", store, want_size, want_rank, timeout_s)
        _start(w, name, timeout_s, device_id)
        return
    if _mpi._MPI is None:  # MPI's start cannot time out: meet the launcher's ranks first
        from ._bootstrap import wait_for_peers

        wait_for_peers(timeout_s)
    MPI = _mpi.mpi()
    size, me = MPI.COMM_WORLD.Get_size(), MPI.COMM_WORLD.Get_rank()
    if want_size not in (-1, size):
        raise RuntimeError(
            f"init_process_group: world_size is {want_size} but MPI started {size} process"
            f"{'es' if size > 1 else ''} in this job. numtorch.distributed runs on MPI: start "
            f"every rank together with `mpiexec -n {want_size} python script.py` or `python -m "
            f"numtorch.distributed.run --nproc-per-node {want_size} script.py`")
    if want_rank not in (-1, me):
        raise RuntimeError(f"init_process_group: rank {want_rank} was asked for, but MPI gave "
                           f"this process rank {me}; ranks come from the MPI launcher")
    _start(World(timeout_s), name, timeout_s, device_id)


def _use_sockets(store):
    """Whether this job runs on the socket transport instead of MPI: always, unless an MPI
    launcher started this process (NUMTORCH_DIST_TRANSPORT=mpi|socket overrides)."""
    forced = os.environ.get("NUMTORCH_DIST_TRANSPORT", "").lower()
    if forced in ("mpi", "socket"):
        return forced == "socket"
    return store is not None or not _mpi.launched_by_mpi()


def _start(w, name, timeout_s, device_id=None):
    global _world, _default_pg, _backend_name
    _world = w
    _backend_name = name
    _default_pg = ProcessGroup(w, w.comm, range(w.size), name, timeout_s, "0", "default_pg")
    if device_id is not None:
        from .. import device as _device

        _default_pg.bound_device_id = _device(device_id)
    _groups[:] = [_default_pg]
    _created[0] = 1
    w.install_hooks()


def destroy_process_group(group=None):
    """Release a group's communicators; without ``group``, leave the job (all groups).

    Args:
        group (ProcessGroup, optional): the group to destroy (default: everything).
    """
    global _world, _default_pg, _backend_name
    if _world is None:
        raise AssertionError("Process group cannot be None")
    if group is None or group is _default_pg:
        for g in _groups:
            g._free()
        _groups.clear()
        _world.close()
        if _world.mesh is not None:
            from ._sock_init import close_socket_world

            close_socket_world(_world)
        _world = _default_pg = _backend_name = None
        return
    if isinstance(group, ProcessGroup):
        group._free()
        if group in _groups:
            _groups.remove(group)


def get_rank(group=None):
    """This process's rank in ``group`` (default: the world); -1 if not a member."""
    g = resolve_group(group)
    if g is GroupMember.NON_GROUP_MEMBER:
        return -1
    return g.rank()


def get_world_size(group=None):
    """The number of ranks in ``group`` (default: the world); -1 if not a member."""
    g = resolve_group(group)
    if g is GroupMember.NON_GROUP_MEMBER:
        return -1
    return g.size()


def get_backend(group=None):
    """The backend name the group was created with (as asked for; "undefined" if none)."""
    group = group or None  # (torch: any false value names the default group)
    if group is not None and group is not GroupMember.NON_GROUP_MEMBER \
            and not isinstance(group, ProcessGroup):
        raise ValueError(f"Process group {group} is not initialized in the world group map. "
                         f"Please initialize the group first.")
    g = resolve_group(group)
    if g is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return Backend(g._backend)


def get_process_group_ranks(group):
    """The global ranks of ``group``'s members, in group-rank order."""
    g = resolve_group(group)
    if g is GroupMember.NON_GROUP_MEMBER:
        raise ValueError(f"Group {group} is not registered, please create group with "
                         "torch.distributed.new_group API")
    return list(g._ranks)


def get_global_rank(group, group_rank):
    """The global rank of ``group``'s member number ``group_rank``."""
    if group is GroupMember.WORLD:  # torch: the world group's ranks are the global ones
        return group_rank
    g = resolve_group(group)
    if g is GroupMember.NON_GROUP_MEMBER or not 0 <= group_rank < g.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return g._ranks[group_rank]


def get_group_rank(group, global_rank):
    """The rank within ``group`` of the process with global rank ``global_rank``."""
    if group is GroupMember.WORLD:  # torch: the world group's ranks are the global ones
        return global_rank
    g = resolve_group(group)
    if g is GroupMember.NON_GROUP_MEMBER or global_rank not in g._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return g._ranks.index(global_rank)


def get_node_local_rank(fallback_rank=None):
    """This process's rank on its machine: LOCAL_RANK, else MPI's local id, else fallback."""
    for var in ("LOCAL_RANK", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"):
        if var in os.environ:
            return int(os.environ[var])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank "
                       "to allow `get_node_local_rank` to work, assuming you are not running "
                       "in a multi-device context and want the code to run locally instead.")


def get_pg_count():
    """The number of process groups created since ``init_process_group`` (the default one
    included), as torch counts them: every ``new_group`` call and every subgroup of
    ``new_subgroups`` counts, on member and non-member ranks alike, and destroying a group
    does not lower the count; 0 before init and after the job's groups are destroyed."""
    return _created[0] if _world is not None else 0


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None,
              sort_ranks=True):
    """Create a group of some ranks; every rank of the job must call it, in the same order.

    Args:
        ranks (list[int], optional): the global ranks of the members (default: all).
        timeout (timedelta, optional): the group's operation timeout (default: the world's).
        backend (str, optional): backend name to report (default: the world's).

    Returns:
        ProcessGroup on members; ``GroupMember.NON_GROUP_MEMBER`` on the other ranks.
    """
    w = world()
    size = w.size
    if ranks is None:
        ranks = list(range(size))
    ranks = [int(r) for r in ranks]
    if sort_ranks:
        ranks = sorted(ranks)
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"ranks list must not contain duplicate entries, got {ranks}")
    if len(ranks) > size:
        raise ValueError("the new group's world size should be less or equal to the world "
                         "size set by init_process_group")
    for r in ranks:
        if r < 0 or r >= size:
            raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to {size - 1} "
                             f"(world_size={size})")
    timeout_s = _timeout_seconds(timeout) if timeout is not None else w.timeout_s
    name = _check_backend(backend) if backend is not None else _backend_name
    # every rank passes here: a checked barrier first, so a missing rank fails with a
    # clear error instead of hanging in MPI's (blocking) communicator split
    seq = _default_pg._next()
    from ._work import Fingerprint, Work

    check = Fingerprint(_default_pg, "new_group", seq,
                        detail=hash(tuple(ranks)) & 0x3FFFFFFFFFFFFFFF)
    Work(_default_pg, _default_pg._what("new_group", seq), [], range(size), check,
         detail_name="hash of ranks").wait()
    MPI = w.MPI
    member = w.rank in ranks
    comm = w.comm.Split(0 if member else MPI.UNDEFINED, ranks.index(w.rank) if member else 0)
    gname = str(_created[0])
    _created[0] += 1
    if not member:
        return GroupMember.NON_GROUP_MEMBER
    g = ProcessGroup(w, comm, ranks, name, timeout_s, gname, group_desc or "undefined")
    _groups.append(g)
    return g


_created = [1]  # group names are creation numbers, the same on every rank ("0" = default)


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None,
                  group_desc=None):
    """Split the world into consecutive groups of ``group_size`` ranks.

    Returns:
        (ProcessGroup, list[ProcessGroup]): this rank's subgroup and all subgroups (the
        groups this rank is not in are NON_GROUP_MEMBER entries).
    """
    w = world()
    if group_size is None:  # one subgroup per machine's GPUs, as torch (none without CUDA)
        from .. import cuda

        if not cuda.is_available():
            raise ValueError("Default group size only takes effect when CUDA is available.If "
                             "your subgroup using a backend that does not depend on CUDA,please "
                             "pass in 'group_size' correctly.")
        group_size = cuda.device_count()
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    ranks = get_process_group_ranks(group) if group is not None else list(range(w.size))
    if len(ranks) < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size "
                         f"({len(ranks)})")
    if len(ranks) % group_size:
        raise ValueError(f"The world size ({len(ranks)}) must be divisible by "
                         f"'group_size={group_size}'")
    mine, every = None, []
    for start in range(0, len(ranks), group_size):
        members = ranks[start:start + group_size]
        g = new_group(members, timeout=timeout, backend=backend)
        every.append(g)
        if w.rank in members:
            mine = g
    return mine, every


__all__ += ["DistBackendError"]


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None,
                                 pg_options=None, group_desc=None):
    """Create one group per list of global ranks (disjoint lists); every rank must call it.

    Returns:
        (ProcessGroup or None, list[ProcessGroup]): this rank's subgroup (None when it is in
        none) and every subgroup (NON_GROUP_MEMBER entries for those it is not in).
    """
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    w = world()
    owner = {}
    for ranks in ranks_per_subgroup_list:
        for r in ranks:
            if r < 0 or r >= w.size:
                raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to "
                                 f"{w.size - 1} (world_size={w.size})")
            if r in owner:
                raise ValueError(f"Rank {r} has appeared in both subgroup {owner[r]} and "
                                 f"{ranks}")
            owner[r] = ranks
    mine, every = None, []
    for ranks in ranks_per_subgroup_list:
        g = new_group(ranks, timeout=timeout, backend=backend, pg_options=pg_options,
                      group_desc=group_desc)
        every.append(g)
        if w.rank in ranks:
            mine = g
    return mine, every


def split_group(parent_pg=None, split_ranks=None, timeout=None, pg_options=None,
                group_desc=None, backend=None):
    """Split ``parent_pg`` (default: the world) into the disjoint groups ``split_ranks``
    (global ranks); each rank gets the group it is listed in, or None. As in torch, the
    default group must have been bound to a device (``init_process_group(device_id=...)``).
    """
    if not split_ranks:
        raise ValueError("split_ranks cannot be None or empty")
    w = world()
    if _default_pg.bound_device_id is None:
        raise RuntimeError("No device associated with the default pg, not safe to split any "
                           "process groups")
    parent = _default_pg if parent_pg is None else parent_pg
    if parent is GroupMember.NON_GROUP_MEMBER:
        return None
    seen = set()
    for ranks in split_ranks:
        for r in ranks:
            if r not in parent._ranks:
                raise ValueError(f"rank {r} in split_ranks is not in the parent group "
                                 f"{parent._ranks}")
            if r in seen:
                raise ValueError(f"rank {r} appears in more than one split group")
            seen.add(r)
    # one collective split of the parent's communicator: colour = index of the rank's list
    colour = next((i for i, ranks in enumerate(split_ranks) if w.rank in ranks), None)
    seq = parent._next()
    from ._work import Fingerprint, Work

    check = Fingerprint(parent, "new_group", seq,
                        detail=hash(tuple(map(tuple, split_ranks))) & 0x3FFFFFFFFFFFFFFF)
    Work(parent, parent._what("split_group", seq), [], parent._ranks, check,
         detail_name="hash of split_ranks").wait()
    mine = sorted(split_ranks[colour]) if colour is not None else None
    comm = parent._comm.Split(w.MPI.UNDEFINED if colour is None else colour,
                              mine.index(w.rank) if mine else 0)
    gname = str(_created[0])
    _created[0] += 1
    if colour is None:
        return None
    timeout_s = _timeout_seconds(timeout) if timeout is not None else parent._timeout_s
    name = _check_backend(backend) if backend is not None else parent._backend
    g = ProcessGroup(w, comm, mine, name, timeout_s, gname, group_desc or "undefined")
    g.bound_device_id = _default_pg.bound_device_id
    _groups.append(g)
    return g


from ._debug import supports_complex  # torch's c10d module exports it too


def get_backend_config(group=None):
    """The group's device -> backend map as a string ("cpu:gloo,cuda:gloo")."""
    from ._options import BackendConfig

    g = resolve_group(group, "get_backend_config")
    if g is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return str(BackendConfig(g._backend))


__all__ += ["get_backend_config", "new_subgroups_by_enumeration", "split_group",
            "supports_complex"]


def _get_global_rank(group, rank):
    """The older name of :func:`get_global_rank` (DeepSpeed and fairscale call it)."""
    return get_global_rank(group, rank)


def _get_group_size(group):
    """The size of ``group`` (None: the default group's)."""
    return get_world_size(group)


def _object_to_tensor(obj, device, group):
    """``obj`` pickled into a uint8 tensor on ``device``, and its length as an int64 tensor of
    one element (what the object collectives send)."""
    import io
    import pickle

    import numpy as np

    from .. import from_numpy

    f = io.BytesIO()
    pickle.Pickler(f).dump(obj)
    data = from_numpy(np.frombuffer(f.getvalue(), np.uint8).copy()).to(device)
    size = from_numpy(np.array([data.numel()], np.int64)).to(device)
    return data, size


def _tensor_to_object(tensor, tensor_size, group):
    """The object pickled in the first ``tensor_size`` bytes of a uint8 ``tensor``."""
    import io
    import pickle

    buf = tensor.cpu().numpy().tobytes()[:int(tensor_size)]
    return pickle.Unpickler(io.BytesIO(buf)).load()


# the collectives, stores, options and object helpers live in the package's other modules;
# torch's c10d module holds them all, and programs import them from here
_FROM_PACKAGE = frozenset([
    "AllToAllOptions", "AllreduceCoalescedOptions", "AllreduceOptions", "BackendConfig",
    "BarrierOptions", "BroadcastOptions", "DebugLevel", "DistStoreError", "GatherOptions",
    "GroupName", "P2POp", "PrefixStore", "ReduceOptions", "ReduceScatterOptions",
    "ScatterOptions", "Store", "Work", "all_gather", "all_gather_coalesced",
    "all_gather_into_tensor", "all_gather_object", "all_gather_single", "all_reduce",
    "all_reduce_coalesced", "all_to_all", "all_to_all_single", "barrier", "batch_isend_irecv",
    "broadcast", "broadcast_object_list", "gather", "gather_object", "get_debug_level", "irecv",
    "isend", "monitored_barrier", "recv", "recv_object_list", "reduce", "reduce_scatter",
    "reduce_scatter_single", "reduce_scatter_tensor", "register_rendezvous_handler",
    "rendezvous", "scatter", "scatter_object_list", "send", "send_object_list", "timedelta",
    "_all_gather_base", "_reduce_scatter_base",
])


def __getattr__(name):
    if name in _FROM_PACKAGE:
        from .. import distributed

        return getattr(distributed, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
