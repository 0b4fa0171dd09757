"""DDP's gradient reducer: buckets, gradient hooks and overlapped non-blocking all-reduces.

Parameters are packed into flat per-dtype buckets in reverse registration order (the order
backward usually produces their gradients in), the first bucket small so communication starts
early. A post-accumulate-grad hook on every parameter copies its gradient into its bucket
slot; when a bucket's last slot is filled the bucket's all-reduce is started without blocking
(buckets always start in index order, the same on every rank, as MPI requires), and the hook
of the last gradient waits for all of them, averages, and writes the results back.

numtorch's engine runs a node once every node created after it ran, and a parameter's
accumulator is created at its first use, so by default every accumulator would run at the
very end of backward and nothing would overlap. After each forward the reducer walks the new
graph and renumbers each parameter's accumulator to run right after its last producer.
"""

import time

import numpy as np

from ... import backend
from ..._device import CPU
from ...autograd import graph as _graph
from ...autograd.graph import AccumulateGrad, edge_of
from ...distributed import _mpi
from ._progress import ProgressThread, default_interval
from ..._tensor import Tensor, _make

_MB = 1024 * 1024
DEFAULT_FIRST_BUCKET_BYTES = _MB


class Bucket:
    """One flat array holding the gradients of several parameters (one dtype, one device).

    ``flat`` lives where the parameters live; ``wire`` is what MPI reads and writes: the
    flat array itself, or a host copy for GPU buckets when MPI is not CUDA-aware.
    """

    __slots__ = ("index", "params", "flat", "views", "pending", "work", "ready", "wire", "xp",
                 "future")

    def __init__(self, index, params, dtype):
        self.index = index
        self.params = params
        total = sum(p._array.size for p in params)
        self.xp = backend.xp_of(params[0]._array)
        self.flat = self.xp.zeros(total, dtype)
        staged = self.xp is not np and not _mpi.cuda_aware()
        self.wire = np.zeros(total, dtype) if staged else self.flat
        self.views, off = [], 0
        for p in params:
            n = p._array.size
            self.views.append(self.flat[off:off + n].reshape(p._array.shape))
            off += n
        self.pending = len(params)
        self.work = None
        self.future = None
        self.ready = False


def assign_buckets(params, cap_bytes, first_cap_bytes):
    """Group ``params`` (registration order) into buckets, last-registered first.

    A bucket holds one dtype on one device; each is closed once it reaches its size cap
    (the first one's is smaller, so the first all-reduce starts early in backward).

    Returns:
        list[list[Parameter]]: the buckets' parameters, in launch order.
    """
    open_by_dtype = {}
    done = []
    for p in reversed(params):
        dt = (p._array.dtype, backend.device_of(p._array))
        cur = open_by_dtype.get(dt)
        if cur is None:
            cur = open_by_dtype[dt] = [[], 0]
        cur[0].append(p)
        cur[1] += p._array.nbytes
        limit = first_cap_bytes if not done else cap_bytes
        if cur[1] >= limit:
            done.append(cur[0])
            del open_by_dtype[dt]
    done.extend(c[0] for c in open_by_dtype.values() if c[0])
    return done


def walk_graph(outputs, floor=None):
    """Reorder the parameters' accumulators after their producers; return the used leaves.

    Args:
        outputs: the tensors a forward returned.
        floor (int, optional): the creation number taken before the first forward of this
            iteration when this is a later one: graphs of the earlier forwards, which this
            walk does not see, may feed the same accumulators, so none is placed above it.

    Returns:
        set[int]: ids of the leaf tensors that backward from ``outputs`` reaches.
    """
    roots = []
    used = set()
    for t in outputs:
        e = edge_of(t) if t.requires_grad else None
        if e is None:
            continue
        if type(e[0]) is AccumulateGrad:
            used.add(id(e[0].variable))
        else:
            roots.append(e[0])
    last_producer = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        seq = node._seq
        for e in node._edges:
            if e is None:
                continue
            child = e[0]
            if type(child) is AccumulateGrad:
                prev = last_producer.get(child)
                if prev is None or seq < prev:
                    last_producer[child] = seq
            elif child not in seen:
                seen.add(child)
                stack.append(child)
    for acc, seq in last_producer.items():
        if floor is not None:
            seq = min(seq, floor)
        acc._seq = seq - 0.5  # runs right after the last node feeding it, not at the end
        v = acc.variable
        if v is not None:
            used.add(id(v))
    return used


def flatten_outputs(obj, out):
    """Collect every Tensor in a (nested) output structure into ``out``."""
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            flatten_outputs(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            flatten_outputs(x, out)
    elif hasattr(obj, "__dataclass_fields__"):
        for name in obj.__dataclass_fields__:
            flatten_outputs(getattr(obj, name), out)
    return out


class Reducer:
    """Averages gradients across the ranks of a process group during backward.

    Args:
        params (list[Parameter]): the parameters to synchronise (registration order).
        group: the ProcessGroup.
        cap_bytes, first_cap_bytes (int): bucket size limits.
        find_unused (bool): mark parameters the forward did not reach as ready at once.
        grad_as_view (bool): leave each ``.grad`` as a view into its bucket.
    """

    def __init__(self, params, group, cap_bytes, first_cap_bytes, find_unused, grad_as_view):
        self.params = params
        self.group = group
        self.comm = group._comm.Dup()
        self.MPI = group._world.MPI
        self.find_unused = find_unused
        self.grad_as_view = grad_as_view
        self.index = {id(p): i for i, p in enumerate(params)}
        self.buckets = [Bucket(i, ps, ps[0]._array.dtype)
                        for i, ps in enumerate(assign_buckets(params, cap_bytes,
                                                              first_cap_bytes))]
        self.slot = {}
        for b in self.buckets:
            for k, p in enumerate(b.params):
                self.slot[id(p)] = (b, k)
        self.marked = np.zeros(len(params), np.bool_)
        self.local_used = np.zeros(len(params), np.uint8)
        self.global_used = None
        self.used_work = None
        self.first_forward_seq = None  # creation number before this iteration's 1st forward
        self.unused = []  # indices found unused by the forward, marked at the first gradient
        self.param_names = None  # set by DDP: named in the unfinished-reduction error
        self.static = False  # DDP's static_graph (see set_static_graph)
        self.static_queued = False
        self.active = False
        self.started = False
        self.next_bucket = 0
        self.divisor = group.size()
        self.shadowing = False  # a joined rank's zero backward (see shadow_backward)
        self.comm_hook = None  # (state, hook) from DDP.register_comm_hook
        self.handles = [p.register_post_accumulate_grad_hook(self._on_grad) for p in params]
        interval = default_interval()
        self.progress = ProgressThread(interval) if interval > 0 and group.size() > 1 else None

    # -- per iteration ----------------------------------------------------------------

    def set_static_graph(self):
        """DDP's ``static_graph``: gradients are gathered as they come (a parameter's hook may
        fire several times, as under reentrant checkpointing, whose forward graph hides the
        parameters) and every bucket is reduced when the whole backward has finished; the
        parameters no hook reached are the unused ones (zero, and left alone when no rank
        used them)."""
        self.static = True
        self.find_unused = True  # (exchange which parameters each rank used)

    def _static_grad(self, i, p):
        self._take_grad(i, p)
        if not self.static_queued:
            self.static_queued = True
            from ...autograd import engine

            # the outermost backward: a reentrant checkpoint's inner one ends too early
            engine._CALLBACKS[0].append(self._static_finish)

    def _static_finish(self):
        if not self.active:
            return
        for i, p in enumerate(self.params):
            if not self.local_used[i]:
                b, k = self.slot[id(p)]
                b.views[k][...] = 0
        self.marked[:] = True
        self.started = True
        for b in self.buckets:
            b.pending, b.ready = 0, True
        self._launch_ready()

    def note_forward(self):
        """Called before every forward that records a graph (synchronised or not): remembers
        where this iteration's graphs begin, for ``walk_graph``'s floor."""
        if self.first_forward_seq is None:
            self.first_forward_seq = next(_graph._sequence)
            return None
        return self.first_forward_seq

    def prepare_for_backward(self, outputs, floor=None):
        """Arm the hooks for the backward of this forward's ``outputs`` (``floor``: what
        ``note_forward`` returned for it)."""
        if self.started and self.active:
            self._unfinished_error()
        self.static_queued = False
        if self.static:  # the hooks find the used parameters (see set_static_graph)
            used = set()
            self.local_used[:] = 0
        else:
            used = walk_graph(flatten_outputs(outputs, []), floor)
        self.marked[:] = False
        self.next_bucket = 0
        self.started = False
        self.global_used = None
        for b in self.buckets:
            b.pending, b.work, b.future, b.ready = len(b.params), None, None, False
        self.active = True
        self.unused = []
        if self.find_unused and not self.static:
            # the unused ones are marked ready by the first gradient of the backward, as in
            # torch: until then nothing has started (a second forward before the backward
            # is allowed, and a forward reaching no parameter launches no reduction)
            for i, p in enumerate(self.params):
                hit = id(p) in used
                self.local_used[i] = hit
                if not hit:
                    self.unused.append(i)

    def _unfinished_error(self):
        # the reduction stays unfinished, so every later forward fails the same way (torch's
        # reducer does not recover either)
        idx = np.flatnonzero(~self.marked)
        missing = " ".join(str(i) for i in idx)
        rank = self.group._world.rank
        from ...distributed._debug import DebugLevel, get_debug_level

        names = ""
        if get_debug_level() == DebugLevel.OFF:
            tail = ("\n In addition, you can set the environment variable "
                    "TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out information "
                    "about which particular parameters did not receive gradient on this rank as "
                    "part of this error")
        else:
            tail = ""
            if self.param_names is not None:
                names = ("\nParameters which did not receive grad for rank "
                         f"{rank}: {', '.join(sorted(self.param_names[i] for i in idx))}")
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new "
            "one. This error indicates that your module has parameters that were not used in "
            "producing loss. You can enable unused parameter detection by passing the keyword "
            "argument `find_unused_parameters=True` to `torch.nn.parallel."
            "DistributedDataParallel`, and by \nmaking sure all `forward` function outputs "
            "participate in calculating loss. \nIf you already have done the above, then the "
            "distributed data parallel module wasn't able to locate the output tensors in the "
            "return value of your module's `forward` function. Please include the loss function "
            "and the structure of the return value of `forward` of your module when reporting "
            f"this issue (e.g. list, dict, iterable).{names}\nParameter indices which did not "
            f"receive grad for rank {rank}: {missing}{tail}")

    def _on_grad(self, p):
        if not self.active:
            return
        if self.static:
            return self._static_grad(self.index[id(p)], p)
        if self.unused:
            unused, self.unused = self.unused, []
            for j in unused:
                b, k = self.slot[id(self.params[j])]
                b.views[k][...] = 0
                self._mark(j, b)
        i = self.index[id(p)]
        if self.marked[i]:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by one of "
                f"the following reasons: parameter {i} received a gradient twice in one "
                "iteration (a second backward over the same forward, a parameter shared in a "
                "way the forward graph does not show, or a reentrant backward). Call the DDP "
                "module's forward once per backward.")
        b = self._take_grad(i, p)
        self._mark(i, b)

    def _take_grad(self, i, p):
        """Copy ``p``'s gradient into its bucket slot (the slot becomes ``p.grad`` under
        gradient_as_bucket_view), note ``p`` as used here, and return the bucket."""
        b, k = self.slot[id(p)]
        view = b.views[k]
        g = p._grad
        if g._array is not view:
            view[...] = g._array
            if self.grad_as_view and not g.requires_grad:
                p._grad = _make(view)
        self.local_used[i] = 1
        return b

    def _mark(self, i, b):
        self.marked[i] = True
        self.started = True
        b.pending -= 1
        if b.pending == 0:
            b.ready = True
            self._launch_ready()
        else:
            self._progress()

    def _launch_ready(self):
        MPI = self.MPI
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].ready:
            b = self.buckets[self.next_bucket]
            if self.next_bucket == 0 and self.find_unused:
                self.global_used = self.local_used.copy()
                self.used_work = self.comm.Iallreduce(MPI.IN_PLACE, self.global_used, MPI.MAX)
            if self.comm_hook is not None:
                b.future = self._call_hook(b)
            else:
                if b.wire is not b.flat:
                    b.wire[...] = backend.to_device(b.flat, CPU)
                b.work = self.comm.Iallreduce(MPI.IN_PLACE, b.wire, MPI.SUM)
                if self.progress is not None:
                    self.progress.add(b.work)
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            self._finalize()

    def _call_hook(self, b):
        """The user's hook on bucket ``b``: its future's value is the reduced flat tensor."""
        from ...distributed._grad_bucket import GradBucket

        bucket = GradBucket(b.index, _make(b.flat), [_make(v) for v in b.views],
                            list(b.params), b.index == len(self.buckets) - 1)
        state, hook = self.comm_hook
        future = hook(state, bucket)
        if not hasattr(future, "wait"):
            raise RuntimeError("Communication hook must return a torch.futures.Future "
                               f"(got {type(future).__name__})")
        return future

    def _progress(self):
        # MPI moves non-blocking collectives along only inside MPI calls
        if self.progress is not None:
            return  # the progress thread polls them
        for b in self.buckets[:self.next_bucket]:
            if b.work is not None and b.work.Test():
                b.work = None

    def _finalize(self):
        """Wait for every bucket, average, and hand the results to the parameters."""
        self.active = False
        self.first_forward_seq = None
        if self.progress is not None:
            self.progress.take()
        pending = [b.work for b in self.buckets if b.work is not None]
        if self.used_work is not None:
            pending.append(self.used_work)
        world = self.group._world
        world.wait(pending, "DistributedDataParallel gradient all-reduce", self.group._ranks,
                   time.monotonic() + self.group._timeout_s)
        self.used_work = None
        divisor = self.divisor
        for b in self.buckets:
            b.work = None
            if b.future is not None:  # the hook reduced and averaged the bucket
                result = b.future.wait()
                b.future = None
                arr = result._array if isinstance(result, Tensor) else result
                if arr is not b.flat:
                    b.flat[...] = arr.reshape(b.flat.shape)
                divisor = 1
            elif b.wire is not b.flat:
                b.flat[...] = backend.to_device(b.wire, backend.device_of(b.flat))
            if self.shadowing:
                continue  # a joined rank's zeros: nothing to hand to the parameters
            if self.grad_as_view and divisor > 1:
                b.xp.divide(b.flat, divisor, out=b.flat, casting="unsafe")
            for k, p in enumerate(b.params):
                self._write_back(p, b.views[k], b.xp, divisor)

    def _write_back(self, p, view, xp, n):
        """Give ``p`` the averaged gradient (the division by ``n`` and the copy in one
        pass)."""
        i = self.index[id(p)]
        if self.global_used is not None and not self.global_used[i]:
            return  # no rank used it: its gradient stays as it was (None), as in torch
        g = p._grad
        if self.grad_as_view:  # the bucket was divided in place
            if g is None or g._array is not view:
                p._grad = _make(view)
        elif g is None or g.requires_grad:
            p._grad = _make(view / n if n > 1 else view.copy())
        elif g._array is not view:
            xp.divide(view, n, out=g._array, casting="unsafe")

    # -- join support ------------------------------------------------------------------

    def shadow_backward(self):
        """Run the collectives of one backward with zero gradients (a joined rank). The
        parameters' own gradients are left as they are (torch reduces separate zero buckets):
        an optimizer stepping on the joined rank, such as ZeroRedundancyOptimizer's join
        hook, sees its last gradients."""
        kept = [b.flat.copy() for b in self.buckets] if self.grad_as_view else None
        for b in self.buckets:
            b.flat[...] = 0
            b.ready = True
            b.pending = 0
        self.local_used[:] = 0
        self.unused = []
        self.next_bucket = 0
        self.active = True
        self.started = True
        self.shadowing = True
        try:
            self._launch_ready()  # (all buckets are ready: this waits for them too)
        finally:
            self.shadowing = False
            if kept is not None:  # the gradients are views of the buckets
                for b, flat in zip(self.buckets, kept):
                    b.flat[...] = flat

    def remove_hooks(self):
        for h in self.handles:
            h.remove()
        self.handles = []

    def __del__(self):
        if getattr(self, "progress", None) is not None:
            self.progress.close()
