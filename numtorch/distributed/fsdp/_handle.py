"""One FSDP unit's flat parameter: flattening, sharding, gathering, gradient reduction.

The parameters a unit owns are concatenated into one 1-D array, padded to a multiple of the
world size and cut into equal shards; each rank keeps its shard as the unit's
``FlatParameter`` (what the optimizer steps). For a forward the shards are all-gathered into
a fresh full array wrapped in a leaf tensor; the original parameters become views of it, so
autograd sums their gradients into that leaf, whose post-accumulate hook reduce-scatters the
sum into the shard's gradient.

Freeing after forward (FULL_SHARD) drops every reference this code holds to the full array,
and the tensors autograd saves from it are packed as (offset, shape, strides) tokens through
saved-tensor hooks; backward gathers the array again when the unit's outputs receive their
gradient, or when a saved token is first unpacked. A gathered array is never written to, so
whatever still holds an old one (arrays some ops keep of their own) stays correct.
"""

import numpy as np

from ..._tensor import _make
from ...autograd.grad_mode import no_grad
from ...nn.parameter import Parameter

FLAT_PARAM = "_flat_param"


class FlatParameter(Parameter):
    """The shard of a unit's flattened parameters that this rank owns (1-D).

    Its gradient's reduce-scatter runs in the background after the unit's backward; reading
    or assigning ``.grad`` first waits for it (the optimizer step, clipping, zero_grad).
    """

    @property
    def grad(self):
        h = self.__dict__.get("_fsdp_handle")
        if h is not None and h.inflight:
            h.finish_reduce()
        return Parameter.grad.fget(self)

    @grad.setter
    def grad(self, value):
        h = self.__dict__.get("_fsdp_handle")
        if h is not None and h.inflight:
            h.finish_reduce()
        Parameter.grad.fset(self, value)

    @grad.deleter
    def grad(self):
        self.grad = None


def _np_dtype(dtype):
    return np.dtype(dtype.np)


def _placeholder(shape, dtype):
    """A tensor of the right shape that holds no memory (the freed parameter's attribute)."""
    a = np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape, (0,) * len(shape))
    return _make(a)


class _Slot:
    """One original parameter: where it lives in its module and in the flat array."""

    __slots__ = ("aliases", "fqn", "module", "name", "numel", "offset", "param", "shape")

    def __init__(self, module, name, fqn, param, offset):
        self.module, self.name, self.fqn, self.param = module, name, fqn, param
        self.shape, self.numel, self.offset = tuple(param.shape), param.numel(), offset
        self.aliases = []  # (module, name, fqn) of tied uses of the same parameter


def collect_params(wrapped, is_unit, ignored):
    """``wrapped``'s parameters that no nested unit holds, in ``named_parameters`` order."""
    slots, by_id, offset = [], {}, 0

    def walk(m, prefix):
        nonlocal offset
        for name, p in m._parameters.items():
            if p is None or id(p) in ignored:
                continue
            fqn = prefix + name
            s = by_id.get(id(p))
            if s is not None:
                s.aliases.append((m, name, fqn))
                continue
            s = by_id[id(p)] = _Slot(m, name, fqn, p, offset)
            slots.append(s)
            offset += s.numel
        for cname, c in m._modules.items():
            if c is not None and not is_unit(c) and id(c) not in ignored:
                walk(c, prefix + cname + ".")

    walk(wrapped, "")
    return slots


def predivide_factor(world):
    """How much of the averaging happens before the reduction (the rest after), keeping
    low-precision sums in range: powers of two dividing ``world``, doubled while the
    remaining factor ``world / f`` is still larger than ``f`` (2 ranks: all before)."""
    f = 1
    while world % f == 0 and world / f > f:
        f *= 2
    return f


class FlatParamHandle:
    def __init__(self, unit, wrapped, slots, group, sharded, use_orig_params, mp):
        from ... import distributed as dist

        self._dist = dist
        self.unit, self.wrapped, self.slots = unit, wrapped, slots
        self.group, self.sharded, self.use_orig_params, self.mp = group, sharded, \
            use_orig_params, mp
        self.world = group.size() if sharded else 1
        self.rank = group.rank() if sharded else 0
        params = [s.param for s in slots]
        for p in params[1:]:
            if p.dtype != params[0].dtype:
                raise ValueError(f"Must flatten tensors with uniform dtype but got "
                                 f"{params[0].dtype} and {p.dtype}")
        grads = {p.requires_grad for p in params}
        if len(grads) > 1 and not use_orig_params:
            raise ValueError("Must flatten tensors with uniform `requires_grad` when "
                             "`use_orig_params=False`")
        self.dtype = params[0].dtype
        self.np_dtype = params[0]._array.dtype
        if use_orig_params and self.world > 1:
            # each original parameter starts 16-byte aligned (its piece may be handed to
            # kernels on its own); the gaps are zeros that no view covers
            align = max(1, 16 // self.np_dtype.itemsize)
            off = 0
            for s in slots:
                off = -(-off // align) * align
                s.offset = off
                off += s.numel
        self.total = slots[-1].offset + slots[-1].numel if slots else 0
        self.shard_numel = -(-self.total // self.world) if self.total else 0
        full = np.zeros(self.shard_numel * self.world, self.np_dtype)
        for s, p in zip(slots, params):
            full[s.offset:s.offset + s.numel] = np.asarray(p._array).reshape(-1)
        lo = self.rank * self.shard_numel
        local = full[lo:lo + self.shard_numel].copy()
        self.flat = FlatParameter(_make(local), requires_grad=any(grads))
        self.inflight = []  # (work, output, post factor, input kept alive) per reduction
        self.flat.__dict__["_fsdp_handle"] = self
        self.flat._numels = [s.numel for s in slots]
        self.flat._shapes = [s.shape for s in slots]
        self.flat._fqns = [s.fqn for s in slots]
        self.flat._unpadded_unsharded_size = (self.total,)
        self.flat._padded_unsharded_size = (full.size,)
        self.flat._sharded_size = (self.shard_numel,)
        self.full_arr = None  # the gathered array while this unit is unsharded
        self.full_t = None  # this iteration's leaf over the full array (gradients land here)
        self.views_on = False
        self.pending = None  # unsharded gradient summed up under no_sync
        self.grad_hook = None
        # the leaf got a gradient this iteration: the next root forward starts a new leaf
        # (until then every further gradient into it, e.g. from a checkpointed recompute,
        # is reduced too)
        self.backward_seen = False
        if use_orig_params:
            self._point_params_at_shard()
        else:
            wrapped.register_parameter(FLAT_PARAM, self.flat)
            for s in slots:
                for m, name, _ in [(s.module, s.name, s.fqn)] + s.aliases:
                    del m._parameters[name]
            self._set_placeholders()

    # -- the local pieces of the original parameters (use_orig_params) ------------------

    def _piece(self, s):
        """The range of slot ``s`` inside this rank's shard, as (start, stop)."""
        lo = self.rank * self.shard_numel
        a = min(max(s.offset - lo, 0), self.shard_numel)
        b = min(max(s.offset + s.numel - lo, 0), self.shard_numel)
        return a, b

    def _point_params_at_shard(self):
        local = self.flat._array
        for s in self.slots:
            a, b = self._piece(s)
            s.param._array = local[a:b]

    def pull_orig_params(self):
        """Copy back orig parameters whose arrays an optimizer replaced instead of updating
        them in place (their values must reach the flat shard before the next gather)."""
        local = self.flat._array
        for s in self.slots:
            arr = s.param._array
            if arr.base is not local:
                a, b = self._piece(s)
                local[a:b] = np.asarray(arr).reshape(-1)
                s.param._array = local[a:b]

    # -- gathering and freeing -----------------------------------------------------------

    def gather(self):
        """The full (padded) flat array, gathered from every rank's shard."""
        if self.use_orig_params:
            self.pull_orig_params()
        local = self.flat._array
        if self.world == 1:
            full = local
        else:
            full = np.empty(self.shard_numel * self.world, local.dtype)
            self._dist.all_gather_single(_make(full), _make(local), group=self.group)
        pdt = self.mp.param_dtype if self.mp is not None else None
        if pdt is not None and _np_dtype(pdt) != full.dtype:
            full = full.astype(_np_dtype(pdt))
        return full

    def unshard(self):
        if self.world == 1 and self.mp is None:
            # NO_SHARD: the parameter itself (an optimizer may have replaced its array)
            if self.use_orig_params:
                self.pull_orig_params()
            self.full_arr = self.flat._array
        if self.full_arr is None:
            self.full_arr = self.gather()
            if self.full_t is not None:
                self.full_t._array = self.full_arr
                LIVE[id(self.full_arr)] = self

    def use_views(self, track_grad):
        """Point the modules' attributes at views of the gathered array."""
        full = self.full_arr
        if track_grad and self.flat.requires_grad:
            if self.full_t is None:
                self.full_t = _make(full)
                self.full_t.requires_grad_(True)
                self.grad_hook = self.full_t.register_post_accumulate_grad_hook(self._on_grad)
            else:
                self.full_t._array = full
            src = self.full_t
            LIVE[id(full)] = self
        else:
            src = _make(full)
        pieces = src.split(self._split_sizes(full.size))
        for s, piece in zip(self.slots, pieces[1::2]):
            v = piece.view(s.shape)
            for m, name, _ in [(s.module, s.name, s.fqn)] + s.aliases:
                m.__dict__[name] = v
        self.views_on = True

    def _split_sizes(self, size):
        """[gap, param, gap, param, ..., tail] sizes covering the full array."""
        out, at = [], 0
        for s in self.slots:
            out += [s.offset - at, s.numel]
            at = s.offset + s.numel
        return out + [size - at]

    def _set_placeholders(self):
        for s in self.slots:
            for m, name, _ in [(s.module, s.name, s.fqn)] + s.aliases:
                if self.use_orig_params:
                    m.__dict__.pop(name, None)
                else:
                    m.__dict__[name] = _placeholder(s.shape, self.np_dtype)
        self.views_on = False

    def reshard(self):
        """Drop the gathered array (a sharded unit) and the views that point into it."""
        if self.world == 1 and self.mp is None:
            # NO_SHARD: the full array is the parameter itself; views may stay
            return
        if self.full_arr is not None:
            LIVE.pop(id(self.full_arr), None)
        self.full_arr = None
        if self.full_t is not None:
            self.full_t._array = np.empty(0, self.full_t._array.dtype)
        if self.views_on:
            self._set_placeholders()

    def reset(self):
        """Start a new iteration: forget this one's leaf and its hook."""
        if self.grad_hook is not None:
            self.grad_hook.remove()
            self.grad_hook = None
        self.full_t = None
        self.backward_seen = False
        if self.full_arr is not None:
            LIVE.pop(id(self.full_arr), None)
        self.full_arr = None
        if self.views_on:
            self._set_placeholders()

    # -- gradients -----------------------------------------------------------------------

    def _on_grad(self, t):
        g = t._grad
        t._grad = None
        if g is None:
            return
        self.backward_seen = True
        g = g._array
        if self.pending is not None:
            g = g + self.pending
            self.pending = None
        if not self.unit._sync_grads:
            self.pending = g
            return
        self.reduce(g)
        self.reshard()

    def reduce(self, g):
        """Average the full gradient ``g`` over the ranks into this rank's shard gradient."""
        group_size = self.group.size()
        rdt = None
        if self.mp is not None:
            rdt = self.mp.reduce_dtype or self.mp.param_dtype
        if rdt is not None:
            g = g.astype(_np_dtype(rdt), copy=False)
        pre = predivide_factor(group_size)
        post = group_size / pre
        if group_size > 1:
            if pre > 1:
                g = g / g.dtype.type(pre)
            if self.world == 1:  # NO_SHARD: every rank keeps the whole average
                t = _make(np.ascontiguousarray(g))
                self._dist.all_reduce(t, group=self.group)
                out = t._array
            else:
                out = np.empty(self.shard_numel, g.dtype)
                g = np.ascontiguousarray(g)
                work = self._dist.reduce_scatter_single(_make(out), _make(g),
                                                        group=self.group,
                                                        async_op=not self.use_orig_params)
                if work is not None:
                    # finished when the gradient is first needed (FlatParameter.grad)
                    self.inflight.append((work, out, post, g))
                    return
            if post > 1:
                out = out / out.dtype.type(post)
        else:
            out = g
        self._store(out, out is g)

    def finish_reduce(self):
        """Wait for the reduce-scatters in flight and add them into the shard gradient."""
        pending, self.inflight = self.inflight, []
        for work, out, post, _ in pending:
            work.wait()
            if post > 1:
                out = out / out.dtype.type(post)
            self._store(out, False)

    def _store(self, out, aliases_input):
        keep_low = self.mp is not None and self.mp.keep_low_precision_grads
        if out.dtype != self.np_dtype and not keep_low:
            out = out.astype(self.np_dtype)
        if self.use_orig_params:
            self._grads_to_orig(out)
            return
        with no_grad():
            if self.flat._grad is None:
                self.flat._grad = _make(np.array(out, copy=True) if aliases_input else out)
            else:
                self.flat._grad._array += out

    def _grads_to_orig(self, out):
        acc = np.array(out, copy=True)
        for s in self.slots:
            a, b = self._piece(s)
            if s.param.grad is not None and b > a:
                acc[a:b] += np.asarray(s.param.grad._array).reshape(-1)
        for s in self.slots:
            a, b = self._piece(s)
            if s.param.requires_grad and b > a:
                s.param.grad = _make(acc[a:b])
            else:
                s.param.grad = None
        self.flat._grad = _make(acc)

    def local_grad(self):
        """This rank's shard of the gradient, or None."""
        if self.use_orig_params:
            have = [s for s in self.slots if s.param.grad is not None]
            if not have:
                return None
            out = np.zeros(self.shard_numel, self.np_dtype)
            for s in have:
                a, b = self._piece(s)
                out[a:b] = np.asarray(s.param.grad._array).reshape(-1)
            return out
        if self.inflight:
            self.finish_reduce()
        g = self.flat._grad
        return None if g is None else g._array

    # -- full parameters outside forward (summon_full_params, state dicts) ---------------

    def full_param_arrays(self, full):
        return [full[s.offset:s.offset + s.numel].reshape(s.shape) for s in self.slots]

    def write_full(self, full):
        """Store the first ``total`` entries of ``full`` as the parameters' values."""
        lo = self.rank * self.shard_numel
        with no_grad():
            local = self.flat._array
            src = np.zeros(self.shard_numel * self.world, self.np_dtype)
            src[:self.total] = full[:self.total]
            local[...] = src[lo:lo + self.shard_numel]
            if self.use_orig_params:
                self._point_params_at_shard()


LIVE = {}  # id(gathered array) -> its handle, for packing saved tensors as tokens


def pack_saved(t):
    a = t._array
    b = a.base if isinstance(a, np.ndarray) else None
    h = LIVE.get(id(b)) if b is not None else None
    if h is None or b is not h.full_arr:
        return t
    off = a.__array_interface__["data"][0] - b.__array_interface__["data"][0]
    return (_TOKEN, h, off, a.shape, a.strides, t.dtype)


_TOKEN = object()


def unpack_saved(packed):
    if type(packed) is not tuple or not packed or packed[0] is not _TOKEN:
        return packed
    _, h, off, shape, strides, _ = packed
    h.unshard()
    arr = np.ndarray(shape, h.full_arr.dtype, buffer=h.full_arr, offset=off, strides=strides)
    return _make(arr)
