"""Starting and ending a job on the socket transport (processes not started by MPI).

``init_process_group`` meets the other ranks through a store, as torch does: ``env://``
(MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE) and ``tcp://host:port`` use a TCPStore served
by rank 0, ``file:///path`` a FileStore, ``store=`` the given one. The ranks then connect
to each other directly (:func:`._sock_mesh.connect_mesh`) and the world runs on
:class:`._sock_comm.SocketComm` communicators.
"""

import datetime
import os
import time
from urllib.parse import parse_qs, urlparse

from . import _mpi
from ._sock_comm import NS, SocketComm
from ._sock_mesh import connect_mesh
from ._file_store import FileStore
from ._store import PrefixStore, TCPStore
from ._world import DistNetworkError, World


def _missing(scheme, what):
    return ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: "
                      f"{what} parameter missing")


def _store_for(init_method, size, rank, timeout_s):
    """(store, size, rank) for an ``init_method`` URL; the store is ours to close."""
    timeout = datetime.timedelta(seconds=timeout_s)
    if init_method.startswith("env://"):
        env = os.environ
        host, port = env["MASTER_ADDR"], int(env["MASTER_PORT"])
        scheme = "env"
    elif init_method.startswith(("tcp://", "file://")):
        u = urlparse(init_method)
        scheme = u.scheme
        q = parse_qs(u.query)
        if rank == -1 and "rank" in q:
            rank = int(q["rank"][0])
        if size == -1 and "world_size" in q:
            size = int(q["world_size"][0])
        if rank == -1:
            raise _missing(scheme, "rank")
        if size == -1:
            raise _missing(scheme, "world size")
        if scheme == "file":
            _check(size, rank)
            return FileStore(u.path, size), size, rank
        host, port = u.hostname, u.port
    else:
        raise RuntimeError(f"No rendezvous handler for {init_method.split('://')[0]}://")
    if size <= 0:
        raise ValueError(f"TCPStore world size cannot be {size}")
    _check(size, rank)
    store = TCPStore(host, port, size, rank == 0, timeout, wait_for_workers=True)
    return store, size, rank


def _check(size, rank):
    if not 0 <= rank < size:
        raise RuntimeError(f"init_process_group: rank < size. {rank} vs {size} (rank must be "
                           f"in [0, {size - 1}])")


def socket_world(init_method, store, size, rank, timeout_s):
    """Rendezvous, connect every rank and return the job's :class:`World`."""
    if store is not None:
        _check(size, rank)
        mesh = _meet(store, rank, size, timeout_s)
        own = None
    else:
        deadline = time.monotonic() + timeout_s
        while True:
            own = None
            try:
                own, size, rank = _store_for(init_method, size, rank, timeout_s)
                mesh = _meet(own, rank, size, max(0.001, deadline - time.monotonic()))
                break
            except DistNetworkError as e:
                if own is not None:
                    own.close()
                # a rank that re-initialises quickly after destroy_process_group can reach
                # rank 0's previous store just before rank 0 closes it: meet again on the new
                if not getattr(e, "_numtorch_lost", False) or time.monotonic() > deadline:
                    raise
            except BaseException:
                if own is not None:
                    own.close()
                raise
        store = own
    _mpi.use_engine(NS)
    world = World(timeout_s, base=SocketComm(mesh, "w", range(size)), namespace=NS,
                  mesh=mesh)
    world._own_store = own
    world._store = store  # init_rpc on the same address meets through it (see rpc._agent)
    return world


def _meet(store, rank, size, timeout_s):
    # the n-th init of each rank meets the n-th init of the others (a store or file that
    # outlives a destroy_process_group keeps the earlier round's keys)
    round_ = store.add(f"numtorch/round/{rank}", 1)
    return connect_mesh(PrefixStore(f"numtorch/{round_}", store), rank, size, timeout_s)[0]


def close_socket_world(world):
    """Close the connections and the store this job opened (ports are free afterwards)."""
    world.mesh.close()
    _mpi.use_engine(None)
    own, world._own_store = getattr(world, "_own_store", None), None
    if own is not None:
        own.close()
