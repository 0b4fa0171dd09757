"""User-written symbolic functions: ``register_custom_op_symbolic`` and the ``symbolic``
static method of an ``autograd.Function``.

They receive a ``GraphContext`` ``g`` and the op's inputs as graph values, and build nodes
with ``g.op("Name", *inputs, attr_f=1.0, ...)``: a ``"domain::Name"`` adds a node of a custom
domain, and an attribute's suffix says its type (``_i`` int, ``_f`` float, ``_s`` string,
``_t`` tensor, ``_is``/``_fs``/``_ss`` lists), as in torch.
"""

import numpy as np

from ._onnx import onnx_modules
from ._trace import host
from .errors import SymbolicValueError


class Value:
    """A value of the graph being built, as a symbolic function sees it."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def debugName(self):  # torch's spelling
        return self.name

    def __repr__(self):
        return f"Value({self.name})"


class GraphContext:
    """The ``g`` of a symbolic function."""

    def __init__(self, ctx):
        self._ctx = ctx
        self.opset = ctx.opset

    def op(self, opname, *args, outputs=1, **attrs):
        """Add node ``opname`` and return its output Value (a tuple when ``outputs`` > 1)."""
        b = self._ctx.b
        domain, _, name = opname.rpartition("::")
        domain = "" if domain in ("", "onnx") else domain
        inputs = [self._input(a) for a in args]
        converted = {}
        for key, value in attrs.items():
            base, kind = _split_suffix(key)
            converted[base] = _attribute(kind, value)
        got = b.op(name, *inputs, outputs=outputs, domain=domain, **converted)
        return tuple(Value(n) for n in got) if outputs > 1 else Value(got)

    def _input(self, a):
        if a is None:
            return ""
        if isinstance(a, Value):
            return a.name
        from ..autograd import graph

        if isinstance(a, graph.Tensor):
            return self._ctx.b.const(host(a._array))
        return self._ctx.b.const(a)  # a Python float becomes float32, as torch.tensor makes it


def _split_suffix(key):
    for suffix in ("_is", "_fs", "_ss", "_ts", "_i", "_f", "_s", "_t"):
        if key.endswith(suffix):
            return key[: -len(suffix)], suffix[1:]
    return key, None


def _attribute(kind, value):
    if kind == "t" or (kind is None and hasattr(value, "_array")):
        onnx = onnx_modules()[0]
        arr = host(value._array) if hasattr(value, "_array") else np.asarray(value)
        return onnx.numpy_helper.from_array(arr)
    if kind == "f":
        return float(value)
    if kind == "i":
        return int(value)
    if kind == "s":
        return str(value)
    if kind == "fs":
        return [float(v) for v in value]
    if kind == "is":
        return [int(v) for v in value]
    if kind == "ss":
        return [str(v) for v in value]
    return value


def _arguments(ctx):
    args = []
    for i, ref in enumerate(ctx.node.inputs):
        if ref[0] in ("v", "c"):
            args.append(Value(ctx.x(i)))
        elif ref[0] == "l":
            args.append([Value(n) for n in ctx.xs(i)])
        else:
            args.append(ref[1])
    return args


def _bind(ctx, result):
    results = result if isinstance(result, (tuple, list)) else (result,)
    names = []
    for r in results:
        if not isinstance(r, Value):
            raise SymbolicValueError("a symbolic function must return graph values made by "
                                     "g.op", r)
        names.append(r.name)
    ctx.set(*names)


def custom_converter(fn):
    """A converter that calls a function registered with ``register_custom_op_symbolic``
    with the op's inputs, then its parameters in order."""
    def convert(ctx):
        params = [v for k, v in ctx.node.params.items() if not k.startswith("_") and
                  k != "node_name"]
        _bind(ctx, fn(GraphContext(ctx), *_arguments(ctx), *params))
    return convert


def function_converter(ctx):
    """Export an ``autograd.Function`` call through its ``symbolic`` static method."""
    _bind(ctx, ctx.node.extra(GraphContext(ctx), *_arguments(ctx)))
