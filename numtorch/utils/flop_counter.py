"""``torch.utils.flop_counter``: count the floating-point operations of the matrix products
and convolutions a block of code runs, forward and backward, per module.

Counted as torch counts them (2 per multiply-add), under torch's op names: ``aten.mm``
(2-D products, linear layers without bias, products folded to 2-D), ``aten.addmm`` (linear
layers with bias), ``aten.bmm`` (batched products, einsum), ``aten.convolution`` and
``aten.convolution_backward`` (one forward count per gradient it makes). Products with a
vector operand on the right (``mv``, ``dot``) and attention without weights on the CPU count
nothing, as in torch; ``addmm``/``baddbmm`` called directly count as ``aten.mm``/``aten.bmm``.

How: while the mode is active numtorch's op hook (``autograd.graph._hook``, the profiler's)
sees every op call and every backward node; module forward hooks keep the stack of modules
running, and each backward node is charged to the modules that were running when its
forward op ran."""

import collections
import threading
import warnings

from .. import _ops_tree
from ..autograd import graph as _graph

__all__ = ["FlopCounterMode", "bmm_flop", "conv_flop_count", "mm_flop"]


def _prod(xs):
    n = 1
    for x in xs:
        n *= int(x)
    return n


def mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs):
    """Flops of ``(m, k) @ (k, n)``."""
    m, k = a_shape
    _, n = b_shape
    return 2 * m * n * k


def bmm_flop(a_shape, b_shape, out_shape=None, **kwargs):
    """Flops of ``(b, m, k) @ (b, k, n)``."""
    b, m, k = a_shape
    return 2 * b * m * k * b_shape[2]


def conv_flop_count(x_shape, w_shape, out_shape, transposed=False):
    """Flops of a convolution: every output position of every sample takes one multiply-add
    per weight entry feeding it (a transposed one: every input position)."""
    spatial = x_shape[2:] if transposed else out_shape[2:]
    return 2 * x_shape[0] * _prod(spatial) * _prod(w_shape)


_KEYS = {}


def _packet(name):
    """torch.ops.aten.<name>, the key torch files counts under (a bare packet, kept here,
    where numtorch's aten namespace has no such operator to call: convolution_backward)."""
    key = _KEYS.get(name)
    if key is None:
        key = getattr(_ops_tree.namespace("aten"), name, None)
        if key is None:
            key = _ops_tree.OpOverloadPacket("aten", name)
        _KEYS[name] = key
    return key


class _Hook(threading.local):
    """The op hook while a FlopCounterMode is active (chained in front of a profiler's)."""

    busy = False
    in_backward = 0

    def __init__(self, mode, prev):
        self.mode, self.prev = mode, prev

    def op(self, cls, inputs, params):
        self.busy = True
        try:
            prev = self.prev
            if prev is not None and not prev.busy:
                out = prev.op(cls, inputs, params)
            else:
                out = cls.apply(*inputs, **params)
        finally:
            self.busy = False
        if not self.in_backward:
            self.mode._forward_op(cls, inputs, params, out)
        return out

    def node(self, node, buf, create_graph, root_arrays):
        self.in_backward += 1
        try:
            if self.prev is not None:
                res = self.prev.node(node, buf, create_graph, root_arrays)
            else:
                res = node._run(buf, create_graph, root_arrays)
        finally:
            self.in_backward -= 1
        self.mode._backward_node(node)
        return res


class FlopCounterMode:
    """Count flops while active (``with FlopCounterMode() as fc: ...``), by module.

    Args:
        mods: ignored (torch's older argument; a warning says so).
        depth (int): module nesting shown by the table printed at exit.
        display (bool): print the table at exit.
        custom_mapping (dict): ``{torch.ops.aten.<op>: formula}`` replacing the formula of an
            op counted here; the formula gets the shapes of the op's tensor arguments and
            ``out_shape=``.
    """

    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it",
                          stacklevel=2)
        self.flop_counts = collections.defaultdict(lambda: collections.defaultdict(int))
        self.depth = depth
        self.display = display
        self.custom_mapping = dict(custom_mapping or {})
        self._stack = []
        self._running = []
        self._pending = {}
        self._handles = ()
        self._hook = None

    # -- counting ---------------------------------------------------------------------------
    def _add(self, name, flops, parents):
        if not flops:
            return
        key = _packet(name)
        for p in ("Global", *parents):
            self.flop_counts[p][key] += flops

    def _formula(self, name, shapes, out_shape, default):
        fn = self.custom_mapping.get(_packet(name))
        return int(fn(*shapes, out_shape=out_shape)) if fn is not None else default

    def _forward_op(self, cls, inputs, params, out):
        counted = _flops_of(cls, inputs, params, out)
        if counted is None:
            return
        name, shapes, out_shape, flops, backward = counted
        flops = self._formula(name, shapes, out_shape, flops)
        parents = tuple(self._stack)
        self._add(name, flops, parents)
        first = out[0] if isinstance(out, tuple) else out
        node = getattr(first, "_grad_fn", None)
        if node is not None and backward:
            self._pending[node] = (parents, backward)

    def _backward_node(self, node):
        got = self._pending.pop(node, None)
        if got is not None:
            parents, backward = got
            for name, flops in backward:
                self._add(name, flops, parents)

    def _name_for(self, module):
        # a child of a running module is named by its path under it; anything else by its
        # class (torch's naming)
        for parent in reversed(self._running):
            for path, sub in parent[1].named_modules():
                if sub is module and path:
                    return parent[0] + "." + path
        return type(module).__name__

    def _pre(self, module, args):
        name = self._name_for(module)
        self._running.append((name, module))
        self._stack.append(name)

    def _post(self, module, args, output):
        if self._running and self._running[-1][1] is module:
            self._running.pop()
            self._stack.pop()

    # -- the mode -----------------------------------------------------------------------------
    def __enter__(self):
        from ..nn.modules import _hooks

        self.flop_counts.clear()
        self._pending.clear()
        self._stack, self._running = [], []
        self._handles = (_hooks.register_module_forward_pre_hook(self._pre),
                         _hooks.register_module_forward_hook(self._post, always_call=True))
        self._prev = _graph._hook
        self._hook = _Hook(self, self._prev)
        _graph._hook = self._hook
        return self

    def __exit__(self, *exc):
        _graph._hook = self._prev
        for h in self._handles:
            h.remove()
        self._handles = ()
        self._pending.clear()
        if self.display:
            print(self.get_table(self.depth))
        return False

    # -- results ------------------------------------------------------------------------------
    def get_total_flops(self):
        """All flops counted."""
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self):
        """``{module name: {op: flops}}``, with ``"Global"`` for everything."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None):
        """The counts as a text table: each module to ``depth`` levels of nesting, with its
        flops, share of the total, and the flops of each op under it."""
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        total = self.get_total_flops()
        rows = [("Module", "FLOP", "% Total")]

        def fmt(n):
            for unit, div in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3)):
                if n >= div:
                    return f"{n / div:.3f}{unit}"
            return str(n)

        def share(n):
            return f"{100 * n / total:.2f}%" if total else "0.00%"

        for mod in sorted(self.flop_counts, key=lambda m: (m != "Global", m)):
            level = 0 if mod == "Global" else mod.count(".") + 1
            if level > depth:
                continue
            counts = self.flop_counts[mod]
            n = sum(counts.values())
            rows.append((" " * level + mod, fmt(n), share(n)))
            for op, c in counts.items():
                rows.append((" " * level + " - " + str(op), fmt(c), share(c)))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)


# -- which numtorch ops are which of torch's, and their flops -------------------------------
def _shape(t):
    return tuple(t.shape)


def _needs(t):
    return bool(getattr(t, "requires_grad", False))


def _flops_of(cls, inputs, params, out):
    """``(name, input shapes, out shape, forward flops, [(backward name, flops), ...])`` for
    an op this counts, else None."""
    kind = getattr(cls, "_op_cls", cls).__name__
    if kind == "MatMul":
        return _matmul(inputs, out)
    if kind == "LinearFused":
        return _linear(inputs)
    if kind in ("Conv", "ConvTranspose"):
        x, w = inputs[0], inputs[1]
        first = out[0] if isinstance(out, tuple) else out
        f = conv_flop_count(_shape(x), _shape(w), _shape(first), kind == "ConvTranspose")
        grads = _needs(x) + _needs(w)
        shapes = [_shape(x), _shape(w)] + ([_shape(inputs[2])] if len(inputs) > 2
                                           and inputs[2] is not None else [None])
        return ("convolution", shapes, _shape(first), f,
                [("convolution_backward", f * grads)] if grads else [])
    if kind == "Einsum" and len(inputs) == 2:
        return _einsum(inputs, params)
    if kind == "MultiHeadAttentionCore" and params.get("weights"):
        return _attention_with_weights(inputs, params)
    return None


def _attention_with_weights(inputs, params):
    """nn.MultiheadAttention returning its weights: torch computes it with two batched
    products (q k^T, then p v), which it counts; without weights it runs
    scaled_dot_product_attention, which counts nothing on the CPU."""
    q = inputs[0]
    tgt, n, width = _shape(q)
    heads = params["heads"]
    if params.get("packed"):
        src, e, ev, operands = tgt, width // 3, width // 3, [q]
    else:
        k, v = inputs[1], inputs[2]
        src, e, ev, operands = _shape(k)[0], width, _shape(v)[-1], [q, k, v]
    bh, d, dv = n * heads, e // heads, ev // heads
    f = 2 * bh * tgt * src * d + 2 * bh * tgt * src * dv
    back = [("bmm", 2 * f)] if any(_needs(t) for t in operands) else []
    return "bmm", [(bh, tgt, d), (bh, d, src)], (bh, tgt, dv), f, back


def _matmul(inputs, out):
    a, b = inputs[0], inputs[1]
    sa, sb = _shape(a), _shape(b)
    if len(sb) == 1:  # mv / dot: not counted by torch
        return None
    if len(sa) == 1:
        sa = (1,) + sa
    k, n = sb[-2], sb[-1]
    if len(sb) == 2:  # folded to one 2-D product
        m = _prod(sa[:-1])
        f = 2 * m * k * n
        name = "mm"
    else:
        batch = _prod(_shape(out)[:-2]) if len(_shape(out)) > 2 else 1
        f = 2 * batch * sa[-2] * k * n
        name = "bmm"
    back = [(name, f)] * (_needs(a) + _needs(b))
    return name, [sa, sb], _shape(out), f, back


def _linear(inputs):
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    sx, sw = _shape(x), _shape(w)
    if len(sw) != 2:
        return None
    m = _prod(sx[:-1]) if len(sx) > 1 else 1
    f = 2 * m * sw[0] * sw[1]
    # torch's linear adds the bias inside the product (addmm) for a 2-D input or a
    # contiguous 3-D one; other inputs go through matmul (mm) and a separate add
    fused = len(sx) == 2 or (len(sx) == 3 and _contiguous(x))
    name = "addmm" if b is not None and fused else "mm"
    back = [("mm", f)] * (_needs(x) + _needs(w))
    shapes = ([_shape(b)] if name == "addmm" else []) + [(m, sx[-1]), (sw[1], sw[0])]
    return name, shapes, (m, sw[0]), f, back


def _contiguous(t):
    try:
        return bool(t.is_contiguous())
    except AttributeError:
        return True


def _einsum(inputs, params):
    terms = params.get("terms")
    if not terms or len(terms) != 2:
        return None
    sizes = {}
    for term, t in zip(terms, inputs):
        for label, n in zip(term, _shape(t)):
            sizes[label] = n
    f = 2 * _prod(sizes.values())
    back = [("bmm", f)] * (_needs(inputs[0]) + _needs(inputs[1]))
    return "bmm", [_shape(inputs[0]), _shape(inputs[1])], None, f, back
