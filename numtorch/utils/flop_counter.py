"""``torch.utils.flop_counter``: count the floating-point operations of the matrix products
and convolutions a block of code runs, forward and backward, per module.

Counted as torch counts them (2 per multiply-add), under torch's op names: ``aten.mm``
(2-D products, and batched operands that torch's matmul folds to 2-D), ``aten.addmm``
(linear layers with a bias on 1-D/2-D or contiguous inputs, torch.addmm), ``aten.bmm``
(broadcast batched products, einsum contractions, attention on torch's math path),
``aten.baddbmm``, ``aten.convolution`` and ``aten.convolution_backward`` (the input's gradient
once, the weight's once per group, as torch's formula has it). Products torch runs as
matrix-vector ones (``mv``, ``dot``, a batch against a vector), bilinear layers and
scaled_dot_product_attention on torch's fused CPU kernel count nothing, as in torch.
Recurrent layers and cells (RNN, GRU, LSTM where torch does not run it as one oneDNN operator,
and the cells) count the linear ops torch's CPU kernels run them with (``_recurrent_counts``).

How: while the mode is active numtorch's op hook (``autograd.graph._hook``, the profiler's)
sees every op call and every backward node; module forward hooks keep the stack of modules
running, and each backward node is charged to the modules that were running when its
forward op ran. Functions that torch runs as one operator of their own but numtorch composes
(addmm, baddbmm, addbmm, bilinear, scaled_dot_product_attention) hand their call to
``_Hook.count_call`` while a mode is active."""

import collections
import threading
import warnings

from .. import _ops_tree
from ..autograd import graph as _graph

__all__ = ["FlopCounterMode", "bmm_flop", "conv_flop_count", "mm_flop", "register_flop_formula"]

_REGISTRY = {}  # operator packet -> formula(*args, out_val=..., **kwargs) (register_flop_formula)


def _shapes_of(x):
    from .._tensor import Tensor

    if isinstance(x, Tensor):
        return x.shape
    if isinstance(x, (list, tuple)):
        return type(x)(_shapes_of(v) for v in x)
    if isinstance(x, dict):
        return {k: _shapes_of(v) for k, v in x.items()}
    return x


def shape_wrapper(f):
    """``f`` called with the shapes of the tensor arguments and ``out_shape=`` (the shapes of
    the result) in place of the tensors."""

    def wrapped(*args, out_val=None, **kwargs):
        return f(*_shapes_of(args), out_shape=_shapes_of(out_val), **_shapes_of(kwargs))

    return wrapped


def register_flop_formula(targets, get_raw=False):
    """Decorator: ``formula`` counts the flops of the operator(s) ``targets``
    (``torch.ops.<ns>.<op>`` or one of its overloads); it gets the shapes of the arguments and
    ``out_shape=`` (``get_raw=True``: the tensors and ``out_val=``). Custom operators
    (``torch.library.custom_op``) are counted with it, their own products not."""

    def register(formula):
        fn = formula if get_raw else shape_wrapper(formula)
        for target in targets if isinstance(targets, (list, tuple)) else [targets]:
            packet = getattr(target, "overloadpacket", target)
            if packet in _REGISTRY:
                raise RuntimeError(f"duplicate registrations for {packet}")
            _REGISTRY[packet] = fn
        return formula

    return register


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
        if not self.in_backward and "count_call" not in self.__dict__:
            self.mode._forward_op(cls, inputs, params, out)
        return out

    def count_call(self, kind, fn, args, kwargs):
        """Run ``fn(*args, **kwargs)`` (a function torch runs as one operator of its own,
        ``kind``) with the ops it is made of uncounted, then count it as torch does. Its
        callers ask for this method while a mode is active; it is None during the call."""
        self.count_call = None
        try:
            out = fn(*args, **kwargs)
        finally:
            del self.count_call
        if not self.in_backward:
            self.mode._forward_call(kind, args, kwargs, out)
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
        self._recurrent = []  # (module, counts) of the recurrent layers running
        self._handles = ()
        self._hook = None

    # -- counting ---------------------------------------------------------------------------
    def _add(self, name, flops, parents):
        if not flops:
            return
        key = _packet(name) if isinstance(name, str) else name
        for p in ("Global", *parents):
            self.flop_counts[p][key] += flops

    def _formula(self, name, shapes, out_shape, default):
        fn = self.custom_mapping.get(_packet(name))
        return int(fn(*shapes, out_shape=out_shape)) if fn is not None else default

    def _forward_op(self, cls, inputs, params, out):
        counted = _flops_of(cls, inputs, params, out)
        if counted is None:
            return
        self._count(counted, out)

    def _count(self, counted, out):
        name, shapes, out_shape, flops, backward = counted
        flops = self._formula(name, shapes, out_shape, flops)
        parents = tuple(self._stack)
        self._add(name, flops, parents)
        first = out[0] if isinstance(out, tuple) else out
        node = getattr(first, "_grad_fn", None)
        if node is not None and backward:
            self._pending[node] = (parents, backward)

    def _forward_call(self, kind, args, kwargs, out):
        if not isinstance(kind, str):  # a custom operator: its registered formula, else none
            formula = _REGISTRY.get(kind)
            if formula is not None:
                self._add(kind, int(formula(*args, **kwargs, out_val=out)), tuple(self._stack))
            return
        counted = _CALLS[kind](*args, **kwargs)
        if counted is not None:
            self._count(counted, out)

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
        counts = _recurrent_counts(module, args)
        if counts is not None:
            # torch runs these layers as linear ops per time step: count those (by formula);
            # the fused ops numtorch runs them with are not counted
            self._recurrent.append((module, counts))
            self._hook.count_call = None

    def _post(self, module, args, output):
        if self._recurrent and self._recurrent[-1][0] is module:
            forward, backward = self._recurrent.pop()[1]
            if not self._recurrent:
                del self._hook.count_call
            parents = tuple(self._stack)
            for op_name, flops in forward:
                self._add(op_name, flops, parents)
            first = output[0] if isinstance(output, tuple) else output
            if isinstance(first, tuple) and hasattr(first, "batch_sizes"):
                first = first.data  # a PackedSequence's values
            node = getattr(first, "_grad_fn", None)
            if node is not None and backward:
                self._pending[node] = (parents, backward)
        if self._running and self._running[-1][1] is module:
            self._running.pop()
            self._stack.pop()

    # -- the mode -----------------------------------------------------------------------------
    def __enter__(self):
        from ..nn.modules import _hooks

        self.flop_counts.clear()
        self._pending.clear()
        self._stack, self._running, self._recurrent = [], [], []
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
        """The counts as a text table, laid out as torch's: each module to ``depth`` levels of
        nesting (sorted by name) with its flops and share of the total, then the flops of each
        op under it; a ``Global`` block first where some flops ran outside every module. All
        counts share the total's unit (K, M, B, T); counts below a thousand print as numbers."""
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        total = self.get_total_flops()
        units = ["", "K", "M", "B", "T"]
        unit = max(0, min(len(units) - 1, (len(str(total)) - 2) // 3))

        def fmt(n):
            text = f"{n / 1000 ** unit:.3f}"
            return f"{float(text):g}" if unit == 0 else text + units[unit]

        def share(n):
            return f"{n / total:.2%}" if total else "0%"

        def rows_of(mod):
            counts = self.flop_counts[mod]
            n = sum(counts.values())
            return n, [(mod, fmt(n), share(n))] + [
                ("- " + str(op), fmt(c), share(c)) for op, c in counts.items()]

        rows, subsumed = [], False
        for mod in sorted(self.flop_counts):
            if mod == "Global" or mod.count(".") + 1 > depth:
                continue
            n, block = rows_of(mod)
            subsumed |= n >= total
            rows.extend(block)
        if "Global" in self.flop_counts and not subsumed:
            rows = rows_of("Global")[1] + rows
        if not rows:
            rows = [("Global", "0", "0%")]
        header = ("Module", "FLOP", "% Total")
        widths = [max([len(header[i]) + 2] + [len(r[i]) for r in rows]) for i in range(3)]

        def line(r):
            return "  ".join([r[0].ljust(widths[0]), r[1].rjust(widths[1]),
                              r[2].rjust(widths[2])])

        return "\n".join([line(header), "  ".join("-" * w for w in widths)]
                         + [line(r) for r in rows])


# -- which numtorch ops are which of torch's, and their flops -------------------------------
def _recurrent_counts(module, args):
    """``([(op, forward flops)], [(op, backward flops)])`` of a recurrent layer or cell as
    torch's CPU kernels run it (None for other modules, and for an LSTM layer torch runs as
    one oneDNN operator, which it does not count: float32 without projections).

    Every product is counted as a linear op (``aten.addmm`` with a bias, ``aten.mm``
    without): a layer projects its whole input at once, then the hidden state at each time
    step (the rows still running, for a packed sequence). Backward computes each weight's
    gradient, and the gradient of the other operand where that needs one: the input when it
    requires grad (always for layers above the first), the hidden state at every step but the
    first one run, and at that one too when the given initial state requires grad."""
    from .. import is_grad_enabled
    from ..nn.modules._rnn_cell import RNNCellBase
    from ..nn.modules.rnn import RNNBase
    from ..nn.utils.rnn import PackedSequence

    cell = isinstance(module, RNNCellBase)
    if not (cell or isinstance(module, RNNBase)) or not args:
        return None
    x = args[0]
    hx = args[1] if len(args) > 1 else None
    h0 = hx[0] if isinstance(hx, (tuple, list)) else hx
    mode = type(module).__name__.upper() if cell else module.mode
    gates = 4 if "LSTM" in mode else 3 if "GRU" in mode else 1
    hidden = module.hidden_size
    proj = getattr(module, "proj_size", 0) or 0
    weight = module.weight_ih if cell else module.weight_ih_l0
    if "LSTM" in mode and not cell and not proj and weight.dtype == _float32():
        return None
    name = "addmm" if module.bias else "mm"
    grads = is_grad_enabled()
    w_grad = grads and weight.requires_grad
    if isinstance(x, PackedSequence):
        sizes = [int(b) for b in x.batch_sizes]
        x_grad = grads and x.data.requires_grad
        strided_input = False
    elif not hasattr(x, "shape"):
        return None
    else:
        batched = x.dim() == (2 if cell else 3)
        if cell:
            sizes = [x.shape[0] if batched else 1]
        else:
            steps, batch = (x.shape[0], 1) if not batched else \
                (x.shape[1], x.shape[0]) if module.batch_first else (x.shape[0], x.shape[1])
            sizes = [batch] * steps
        x_grad = grads and x.requires_grad
        strided_input = not cell and batched and module.batch_first
    h0_grad = grads and h0 is not None and getattr(h0, "requires_grad", False)
    rows = sum(sizes)
    width = proj or hidden  # what the hidden product multiplies
    layers = 1 if cell else module.num_layers
    directions = 2 if not cell and module.bidirectional else 1
    fwd = {name: 0, "mm": 0}
    bwd = 0
    for layer in range(layers):
        in_size = module.input_size if layer == 0 else width * directions
        in_grad = x_grad if layer == 0 else (w_grad or x_grad or h0_grad)
        for direction in range(directions):
            ih = 2 * rows * in_size * gates * hidden
            hh = 2 * rows * width * gates * hidden
            # the step that starts from h0: the first, or the last one going backwards
            first = 2 * sizes[-direction] * width * gates * hidden
            # a batch-first input is projected as a strided (time-major) view: torch's
            # matmul copies it and runs a plain mm, then adds the bias
            fwd["mm" if layer == 0 and strided_input else name] += ih
            fwd[name] += hh
            bwd += (ih + hh) if w_grad else 0
            bwd += ih if in_grad else 0
            state_grad = w_grad or in_grad or h0_grad
            bwd += (hh - first if state_grad else 0) + (first if h0_grad else 0)
            if proj:
                hr = 2 * rows * hidden * proj
                fwd["mm"] += hr
                bwd += (hr if w_grad else 0) + (hr if state_grad else 0)
    forward = [(k, v) for k, v in fwd.items() if v]
    return forward, ([("mm", bwd)] if bwd else [])


def _float32():
    from .. import float32

    return float32


def _shape(t):
    return tuple(t.shape)


def _needs(t):
    return bool(getattr(t, "requires_grad", False))


def _flops_of(cls, inputs, params, out):
    """``(name, input shapes, out shape, forward flops, [(backward name, flops), ...])`` for
    an op this counts, else None."""
    kind = getattr(cls, "_op_cls", cls).__name__
    if kind == "MatMul":
        return _matmul(inputs[0], inputs[1], _shape(inputs[1]), _strides(inputs[1]))
    if kind == "LinearFused":
        return _linear(inputs)
    if kind in ("Conv", "ConvTranspose"):
        return _conv(inputs, params, out, kind == "ConvTranspose")
    if kind == "Einsum" and len(inputs) >= 2:
        return _einsum(inputs, params)
    if kind == "MultiHeadAttentionCore" and params.get("weights"):
        return _attention_with_weights(inputs, params)
    return None


def _conv(inputs, params, out, transposed):
    """torch's counts: the forward product once; in backward the input's gradient once more
    and the weight's gradient once per group (torch's formula for it takes the whole input
    channel count against each group's weights)."""
    x, w = inputs[0], inputs[1]
    first = out[0] if isinstance(out, tuple) else out
    f = conv_flop_count(_shape(x), _shape(w), _shape(first), transposed)
    back = f * _needs(x) + f * int(params.get("groups", 1)) * _needs(w)
    shapes = [_shape(x), _shape(w)] + ([_shape(inputs[2])] if len(inputs) > 2
                                       and inputs[2] is not None else [None])
    return ("convolution", shapes, _shape(first), f,
            [("convolution_backward", back)] if back else [])


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


def _strides(t):
    try:
        return tuple(t.stride())
    except (AttributeError, RuntimeError):
        return None


def _rows_fold(shape, strides):
    """Whether all but the last dim of a tensor view as one without a copy."""
    if strides is None or _prod(shape) == 0:
        return True
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _matmul(a, b, sb, b_strides, b_needs=None):
    """torch.matmul's products, as torch runs them: ``dot``/``mv`` (uncounted), ``mm`` for
    2-D operands and for a batched operand folded to 2-D against a matrix or vector, else a
    broadcast ``bmm``. ``b`` may stand for a transposed weight (shape ``sb``, strides
    ``b_strides``)."""
    sa, sa_strides = _shape(a), _strides(a)
    na, nb = _needs(a), _needs(b) if b_needs is None else b_needs
    if len(sb) == 1 and len(sa) <= 2:  # dot / mv
        return None
    if len(sa) == 3 and len(sb) == 3 and (sa[0] == 1) != (sb[0] == 1):
        # a 3-D operand with one batch entry against a batched one takes the 2-D route
        if sa[0] == 1:
            sa, sa_strides = sa[1:], sa_strides and sa_strides[1:]
        else:
            sb, b_strides = sb[1:], b_strides and b_strides[1:]
    if len(sa) <= 2 and len(sb) <= 2:  # (1-D or 2-D) @ 2-D: one mm
        f = 2 * (sa[0] if len(sa) == 2 else 1) * sa[-1] * sb[-1]
        return "mm", [sa, sb], None, f, [("mm", f)] * (na + nb)
    folded = _fold(sa, sa_strides, na, sb, b_strides, nb)
    if folded is not None:
        if folded:  # a batched operand against a vector: one mv
            return None
        f = 2 * _prod(_shape_out(sa, sb)) * (sa[-1] if len(sa) > 1 else sb[-2])
        return "mm", [sa, sb], None, f, [("mm", f)] * (na + nb)
    batch = _broadcast(sa[:-2], sb[:-2])
    m = sa[-2] if len(sa) > 1 else 1
    n = sb[-1] if len(sb) > 1 else 1
    f = 2 * _prod(batch) * m * sa[-1] * n
    return "bmm", [sa, sb], None, f, [("bmm", f)] * (na + nb)


def _fold(sa, sa_strides, na, sb, sb_strides, nb):
    """torch's choice of folding a batched operand against a matrix/vector operand: None when
    it does not fold, else whether the folded product is a matrix-vector one."""
    if len(sa) >= len(sb):
        big, big_strides, small, small_needs = sa, sa_strides, sb, nb
    else:  # the batched right operand folds transposed
        big, small, small_needs = sb[:-2] + (sb[-1], sb[-2]), sa, na
        big_strides = sb_strides and sb_strides[:-2] + (sb_strides[-1], sb_strides[-2])
    if not (len(big) >= 3 and len(small) <= 2):
        return None
    if not small_needs and (len(sa) == 2 or not _rows_fold(big, big_strides)):
        return None
    return len(small) == 1


def _shape_out(sa, sb):
    """The rows x columns of a folded product (its flops are 2 * this * the inner size)."""
    if len(sa) >= len(sb):
        return tuple(sa[:-1]) + ((sb[-1],) if len(sb) == 2 else ())
    return ((sa[0],) if len(sa) == 2 else ()) + tuple(sb[:-2]) + (sb[-1],)


def _broadcast(x, y):
    n = max(len(x), len(y))
    x, y = (1,) * (n - len(x)) + tuple(x), (1,) * (n - len(y)) + tuple(y)
    return tuple(max(i, j) if min(i, j) != 0 else 0 for i, j in zip(x, y))


def _linear(inputs):
    """torch's linear: with a bias, one ``addmm`` for a 1-D/2-D input or a contiguous
    batched one; otherwise ``input @ weight.T`` (matmul's rules) and a separate add."""
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    sx, sw = _shape(x), _shape(w)
    if len(sw) != 2:
        return None
    if b is not None and (len(sx) <= 2 or _contiguous(x)):
        m = _prod(sx[:-1]) if len(sx) > 1 else 1
        f = 2 * m * sw[0] * sw[1]
        back = [("mm", f)] * (_needs(x) + _needs(w))
        return "addmm", [_shape(b), (m, sx[-1]), (sw[1], sw[0])], (m, sw[0]), f, back
    ws = _strides(w)
    return _matmul(x, w, (sw[1], sw[0]), ws and (ws[1], ws[0]), _needs(w))


def _contiguous(t):
    try:
        return bool(t.is_contiguous())
    except AttributeError:
        return True


def _einsum(inputs, params):
    """An einsum, as torch contracts it: two operands at a time (in the order of the optimal
    path, as torch's opt_einsum path finds it), each pair one batched product (counted as
    ``bmm``) after the labels of one operand only are summed, or a plain product, which
    counts nothing, where no label is contracted."""
    terms, out = params.get("terms"), params.get("out")
    if not terms or len(terms) != len(inputs) or out is None:
        return None
    sizes = {}
    for term, t in zip(terms, inputs):
        for label, n in zip(term, _shape(t)):
            sizes[label] = max(sizes.get(label, 1), n)
    operands = [(term, _needs(t)) for term, t in zip(terms, inputs)]
    forward, backward = 0, 0
    for i, j in _einsum_path(terms, out, sizes):
        (ta, na), (tb, nb) = operands[i], operands[j]
        rest = [t for k, (t, _) in enumerate(operands) if k not in (i, j)]
        keep = set(out).union(*rest)
        a, b = set(ta), set(tb)
        used = (a & b) | ((a | b) & keep)
        if (a & b) - keep:  # something contracted: one batched product
            f = 2 * _prod(sizes[label] for label in used)
            forward += f
            backward += f * (na + nb)
        joined = "".join(sorted(used - ((a & b) - keep)))
        operands = [o for k, o in enumerate(operands) if k not in (i, j)] + [(joined, na or nb)]
    if not forward:
        return None
    shapes = [_shape(t) for t in inputs]
    return "bmm", shapes, None, forward, [("bmm", backward)] if backward else []


def _einsum_path(terms, out, sizes):
    """The pairs contracted in turn: left to right for two operands, or when torch does not
    plan with opt_einsum (the package is absent or turned off), else the optimal path."""
    from ..backends import opt_einsum

    left_to_right = [(0, 1)] + [(0, len(terms) - 2 - k) for k in range(len(terms) - 2)]
    if len(terms) == 2 or not (opt_einsum.enabled and opt_einsum.is_available()):
        return left_to_right
    import numpy as np

    spec = ",".join(terms) + "->" + out
    dummies = [np.empty([sizes[label] for label in term], dtype=np.int8) for term in terms]
    try:
        path = np.einsum_path(spec, *dummies, optimize="optimal")[0][1:]
    except ValueError:
        return left_to_right
    # numpy's steps index the current list (contracted operands removed, result appended);
    # a step of more than two operands is contracted two at a time, in its order
    pairs, current = [], list(range(len(terms)))
    for step in path:
        ids = [current[k] for k in step]
        acc = ids[0]
        for other in ids[1:]:
            i, j = sorted((current.index(acc), current.index(other)))
            pairs.append((i, j))
            current = [c for k, c in enumerate(current) if k not in (i, j)]
            acc = object()
            current.append(acc)
    return pairs


# -- functions torch runs as operators of their own (see _Hook.count_call) ---------------------
def _addmm(input, mat1, mat2, **kwargs):
    f = 2 * _prod(_shape(mat1)) * _shape(mat2)[-1]
    back = [("mm", f)] * (_needs(mat1) + _needs(mat2))
    return "addmm", [_shape(input), _shape(mat1), _shape(mat2)], None, f, back


def _baddbmm(input, batch1, batch2, **kwargs):
    f = 2 * _prod(_shape(batch1)) * _shape(batch2)[-1]
    back = [("bmm", f)] * (_needs(batch1) + _needs(batch2))
    return "baddbmm", [_shape(input), _shape(batch1), _shape(batch2)], None, f, back


def _addbmm(input, batch1, batch2, **kwargs):
    """Uncounted forward (torch has no formula for addbmm); its gradients are ``bmm``s."""
    f = 2 * _prod(_shape(batch1)) * _shape(batch2)[-1]
    back = [("bmm", f)] * (_needs(batch1) + _needs(batch2))
    return "bmm", [_shape(batch1), _shape(batch2)], None, 0, back


def _bilinear(*args, **kwargs):
    """torch's bilinear is one uncounted operator (``_trilinear``): nothing to count."""


def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
          enable_gqa=False):
    """scaled_dot_product_attention on the CPU: torch's fused kernel (uncounted) serves 4-D
    inputs of one head size, without dropout, with unit last strides, one batch size and
    head count (or grouped heads); anything else runs as two (batched) products and counts
    their flops, and those of their gradients."""
    sq, sk, sv = _shape(query), _shape(key), _shape(value)
    from ..nn.attention import _flags

    fused = (_flags.ENABLED[1] and len(sq) == len(sk) == len(sv) == 4 and dropout_p <= 0
             and sq[-1] == sk[-1] == sv[-1] and sq[0] == sk[0] == sv[0] and sk[1] == sv[1]
             and (sq[1] == sk[1] or enable_gqa)
             and all(_strides(t) is None or _strides(t)[-1] == 1 or _shape(t)[-1] <= 1
                     for t in (query, key, value)))
    if fused or min(len(sq), len(sk), len(sv)) < 2:
        return None
    batch = _broadcast(sq[:-2], _broadcast(sk[:-2], sv[:-2]))
    rows = _prod(batch) * sq[-2] * sk[-2]
    f_qk, f_av = 2 * rows * sq[-1], 2 * rows * sv[-1]
    nq, nk, nv = _needs(query), _needs(key), _needs(value)
    name = "mm" if len(sq) == 2 else "bmm"
    back = [(name, f_qk * (nq + nk) + f_av * ((nq or nk) + nv))] if nq or nk or nv else []
    return name, [sq, sk, sv], None, f_qk + f_av, back


_CALLS = {"addmm": _addmm, "baddbmm": _baddbmm, "addbmm": _addbmm, "bilinear": _bilinear,
          "scaled_dot_product_attention": _sdpa}
