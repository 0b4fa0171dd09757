"""An ONNX graph under construction: nodes, constants, and folding of constant subgraphs.

Converters add nodes with ``op(...)``; when every input of a node is a known constant and the
node is one of the simple kinds below, the builder computes it with NumPy at once (when
constant folding is on), so rearranging weights (gate reordering, slicing a packed projection)
costs nothing in the exported file. The opset-dependent spellings of a few operators (axes as
an attribute before opset 13, as an input after) are hidden behind helpers.
"""

import numpy as np

from ._onnx import onnx_modules

_INT64 = np.dtype(np.int64)


class Builder:
    """Collects the nodes and initializers of one graph.

    Args:
        opset (int): the default-domain opset the graph targets.
        fold (bool): compute nodes whose inputs are all constants.
    """

    def __init__(self, opset, fold=True):
        self.opset = opset
        self.fold = fold
        self.nodes = []
        self.initializers = {}  # name -> array, in creation order
        self.known = {}  # name -> array: every value whose content is known here
        self._taken = set()
        self._small = {}  # (dtype, shape, bytes) -> name: small constants are shared
        self._count = 0

    # -- names and constants ----------------------------------------------------------------
    def fresh(self, hint="v"):
        """A value name not used yet, starting with ``hint``."""
        hint = hint or "v"
        if hint not in self._taken:
            self._taken.add(hint)
            return hint
        while True:
            self._count += 1
            name = f"{hint}_{self._count}"
            if name not in self._taken:
                self._taken.add(name)
                return name

    def reserve(self, name):
        """Claim ``name`` (a graph input or a parameter) so nothing else gets it."""
        self._taken.add(name)
        return name

    def const(self, value, dtype=None, name=None):
        """An initializer holding ``value`` (small ones are shared); returns its name."""
        arr = np.asarray(value, dtype=dtype)
        if arr.dtype == np.float64 and dtype is None and not isinstance(value, np.ndarray) \
                and not isinstance(value, np.generic):
            arr = arr.astype(np.float32)  # a bare Python float: float32 unless asked
        key = None
        if name is None and arr.size <= 16:
            key = (arr.dtype.str, arr.shape, arr.tobytes())
            found = self._small.get(key)
            if found is not None:
                return found
        name = self.reserve(name) if name is not None else self.fresh("onnx::Constant")
        self.initializers[name] = arr
        self.known[name] = arr
        if key is not None:
            self._small[key] = name
        return name

    def ints(self, values):
        """A 1-D int64 constant."""
        return self.const(np.asarray(list(values), dtype=np.int64))

    # -- nodes -------------------------------------------------------------------------------
    def op(self, op_type, *inputs, outputs=1, domain="", **attrs):
        """Add ``op_type(*inputs)`` (an input may be ``""`` when omitted); returns the output
        name, or a tuple of names when ``outputs`` > 1."""
        inputs = list(inputs)
        while inputs and inputs[-1] in ("", None):
            inputs.pop()
        inputs = ["" if i is None else i for i in inputs]
        if self.fold and not domain and op_type in _FOLD and all(
                i in self.known for i in inputs if i):
            got = _FOLD[op_type](self, [self.known[i] if i else None for i in inputs], attrs,
                                 outputs)
            if got is not None:
                names = tuple(self.const(np.asarray(a)) for a in got)
                return names[0] if outputs == 1 else names
        names = tuple(self.fresh(f"/{op_type}_output_0") for _ in range(outputs))
        self.nodes.append((op_type, inputs, list(names), attrs, domain))
        return names[0] if outputs == 1 else names

    def to_proto_nodes(self):
        """The nodes as ``onnx.NodeProto`` objects."""
        onnx = onnx_modules()[0]
        out = []
        for k, (op_type, inputs, outputs, attrs, domain) in enumerate(self.nodes):
            attrs = {a: v for a, v in attrs.items() if v is not None}
            out.append(onnx.helper.make_node(op_type, inputs, outputs, name=f"/{op_type}_{k}",
                                             domain=domain or None, **attrs))
        return out

    # -- opset-aware helpers ------------------------------------------------------------------
    def cast(self, x, dtype):
        """``x`` as NumPy dtype ``dtype``."""
        return self.op("Cast", x, to=tensor_type(dtype))

    def unsqueeze(self, x, axes):
        axes = list(axes)
        if self.opset >= 13:
            return self.op("Unsqueeze", x, self.ints(axes))
        return self.op("Unsqueeze", x, axes=axes)

    def squeeze(self, x, axes):
        axes = list(axes)
        if self.opset >= 13:
            return self.op("Squeeze", x, self.ints(axes))
        return self.op("Squeeze", x, axes=axes)

    def reduce(self, op_type, x, axes, keepdims):
        """``Reduce<op>`` over ``axes`` (None: every axis)."""
        keep = int(bool(keepdims))
        if axes is None:
            return self.op(op_type, x, keepdims=keep)
        axes = list(axes)
        if not axes:
            return self.op("Identity", x)
        if self.opset >= 18 or (op_type == "ReduceSum" and self.opset >= 13):
            return self.op(op_type, x, self.ints(axes), keepdims=keep)
        return self.op(op_type, x, axes=axes, keepdims=keep)

    def split(self, x, sizes, axis):
        """Pieces of ``x`` of the given (static) sizes along ``axis``."""
        sizes = [int(s) for s in sizes]
        if self.opset >= 13:
            got = self.op("Split", x, self.ints(sizes), axis=axis, outputs=len(sizes))
        else:
            got = self.op("Split", x, axis=axis, split=sizes, outputs=len(sizes))
        return list(got) if len(sizes) > 1 else [got]

    def slice(self, x, starts, ends, axes, steps=None):
        """``x[starts:ends:steps]`` on ``axes``; each bound list is ints or an int64 name."""
        parts = [self.vec(starts), self.vec(ends), self.ints(axes)]
        if steps is not None:
            parts.append(self.vec(steps))
        return self.op("Slice", x, *parts)

    def vec(self, items):
        """A 1-D int64 tensor from ints and one-element int64 names (or one whole name)."""
        if isinstance(items, str):
            return items
        items = list(items)
        if all(isinstance(i, (int, np.integer)) for i in items):
            return self.ints(items)
        pieces, run = [], []
        for i in items:
            if isinstance(i, (int, np.integer)):
                run.append(int(i))
                continue
            if run:
                pieces.append(self.ints(run))
                run = []
            pieces.append(i)
        if run:
            pieces.append(self.ints(run))
        return pieces[0] if len(pieces) == 1 else self.op("Concat", *pieces, axis=0)

    def softmax(self, x, axis, rank, log=False):
        """Softmax (or log-softmax) along ``axis`` of a rank-``rank`` tensor. Before opset 13
        ONNX's softmax spans every axis from ``axis`` on, so another axis goes last first."""
        op_type = "LogSoftmax" if log else "Softmax"
        axis = axis % max(rank, 1)
        if self.opset >= 13 or axis == rank - 1:
            return self.op(op_type, x, axis=axis)
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        y = self.op(op_type, self.op("Transpose", x, perm=perm), axis=rank - 1)
        return self.op("Transpose", y, perm=perm)


def tensor_type(dtype):
    """The ONNX element type of NumPy dtype ``dtype``."""
    onnx = onnx_modules()[0]
    dtype = np.dtype(dtype)
    if dtype.name == "bfloat16":
        return onnx.TensorProto.BFLOAT16
    return onnx.helper.np_dtype_to_tensor_dtype(dtype)


# -- constant folding (NumPy versions of simple operators) -------------------------------------


def _np_dtype(code):
    onnx = onnx_modules()[0]
    if code == onnx.TensorProto.BFLOAT16:
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return onnx.helper.tensor_dtype_to_np_dtype(code)


def _axes(b, ins, attrs, pos):
    if len(ins) > pos and ins[pos] is not None:
        return [int(a) for a in ins[pos]]
    return list(attrs.get("axes", []))


def _fold_reshape(b, ins, attrs, n):
    x, shape = ins
    shape = [int(s) for s in shape]
    shape = [x.shape[i] if s == 0 and not attrs.get("allowzero") else s
             for i, s in enumerate(shape)]
    return (x.reshape(shape),)


def _fold_unsqueeze(b, ins, attrs, n):
    x = ins[0]
    axes = sorted(a % (x.ndim + len(_axes(b, ins, attrs, 1)))
                  for a in _axes(b, ins, attrs, 1))
    for a in axes:
        x = np.expand_dims(x, a)
    return (x,)


def _fold_squeeze(b, ins, attrs, n):
    x = ins[0]
    axes = _axes(b, ins, attrs, 1)
    if not axes:
        return (np.squeeze(x),)
    return (np.squeeze(x, axis=tuple(a % x.ndim for a in axes)),)


def _fold_slice(b, ins, attrs, n):
    x, starts, ends = ins[:3]
    axes = ins[3] if len(ins) > 3 and ins[3] is not None else range(len(starts))
    steps = ins[4] if len(ins) > 4 and ins[4] is not None else [1] * len(starts)
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[int(a) % x.ndim] = slice(int(s), int(e), int(st))
    return (x[tuple(index)],)


def _fold_split(b, ins, attrs, n):
    x = ins[0]
    axis = attrs.get("axis", 0)
    sizes = ins[1] if len(ins) > 1 and ins[1] is not None else attrs.get("split")
    if sizes is None:
        return None
    cuts = np.cumsum([int(s) for s in sizes])[:-1]
    return tuple(np.split(x, cuts, axis=axis))


def _binary(fn):
    def fold(b, ins, attrs, n):
        a, c = ins
        if a.dtype != c.dtype:
            return None
        return (np.asarray(fn(a, c)).astype(a.dtype, copy=False),)
    return fold


def _fold_div(b, ins, attrs, n):
    a, c = ins
    if a.dtype != c.dtype or a.dtype.kind != "f":
        return None  # integer Div truncates: leave it to the runtime
    return (np.asarray(a / c).astype(a.dtype, copy=False),)


_FOLD = {
    "Identity": lambda b, ins, attrs, n: (ins[0],),
    "Cast": lambda b, ins, attrs, n: (ins[0].astype(_np_dtype(attrs["to"])),),
    "Transpose": lambda b, ins, attrs, n: (np.transpose(ins[0], attrs.get("perm")),),
    "Reshape": _fold_reshape,
    "Unsqueeze": _fold_unsqueeze,
    "Squeeze": _fold_squeeze,
    "Concat": lambda b, ins, attrs, n: (np.concatenate(ins, axis=attrs["axis"]),),
    "Slice": _fold_slice,
    "Split": _fold_split,
    "Gather": lambda b, ins, attrs, n: (np.take(ins[0], ins[1], axis=attrs.get("axis", 0)),),
    "Add": _binary(np.add),
    "Sub": _binary(np.subtract),
    "Mul": _binary(np.multiply),
    "Div": _fold_div,
    "Neg": lambda b, ins, attrs, n: (np.negative(ins[0]),),
    "Sqrt": lambda b, ins, attrs, n: (np.sqrt(ins[0]),),
    "Shape": lambda b, ins, attrs, n: (np.asarray(ins[0].shape, dtype=np.int64),),
}
