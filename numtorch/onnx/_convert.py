"""Turning a recorded trace into ONNX nodes: the converter registry and the context each
converter works with.

A converter is a function of one ``Ctx``; it reads the node's inputs as ONNX value names
(``ctx.x(i)``), its parameters (``ctx.p(key)``; numbers that follow a dynamic axis are ``Sym``
ints) and the arrays seen while tracing (``ctx.arr(i)``, ``ctx.out()``), adds nodes through
``ctx.b`` and binds the node's outputs with ``ctx.set(...)``.

Nodes whose inputs are all constants (weights, and tensors made inside ``forward``) are not
converted at all when constant folding is on: their traced results become initializers.
"""

import numpy as np

from ._builder import tensor_type
from ._dynamic import DynArray, Sym, Unknown, has_dynamic
from ._onnx import onnx_modules
from ._trace import host
from .errors import SymbolicValueError, UnsupportedOperatorError

CONVERTERS = {}  # op class name (or "module:<Class>") -> converter
ATEN_NAMES = {}  # op class name -> torch's operator name, for messages and custom symbolics
CUSTOM = {}  # "domain::name" -> (symbolic function, opset) registered by the user
RANDOM = {"Bernoulli", "BernoulliFill", "Cauchy", "Exponential", "Geometric", "LogNormal",
          "Normal", "NormalFill", "Poisson", "Random", "Uniform"}  # numtorch._sampling's ops


def converter(*names, aten=None):
    """Register the decorated function as the converter of the op classes ``names``."""
    def register(fn):
        for n in names:
            CONVERTERS[n] = fn
            if aten is not None:
                ATEN_NAMES[n] = aten
        return fn
    return register


def aten_name(op):
    """How errors name op class ``op``: torch's operator name when known."""
    if op in ATEN_NAMES:
        return ATEN_NAMES[op]
    if op.startswith(("module:", "function:")):
        return op.split(":", 1)[1]
    return f"numtorch::{op}"


class Converter:
    """Converts the nodes of ``trace`` in order.

    Args:
        trace: the first (reference) trace.
        info: a DynInfo, or None when nothing is dynamic.
        builder: the Builder receiving the nodes.
        inputs (list): ``(value id, ONNX name)`` of the graph inputs.
        export_params (bool): parameters as initializers (else as graph inputs).
        fold (bool): fold nodes whose inputs are all constants.
    """

    def __init__(self, trace, info, builder, inputs, export_params, fold):
        self.trace, self.info, self.b = trace, info, builder
        self.export_params, self.fold = export_params, fold
        self.env = {vid: name for vid, name in inputs}
        self.input_of = {}  # symbol index -> (input name, dim)
        self.folded = {}  # value id -> array
        self.param_names = {}  # state_dict key -> ONNX name
        self.param_inputs = []  # (name, array) of parameters exported as graph inputs
        self._const_ids = {}  # id(array) -> ONNX name of a constant made from it
        self._sym_cache = {}

    def run(self):
        for i, node in enumerate(self.trace.nodes):
            if self._foldable(i, node):
                for vid in node.outputs:
                    if vid is not None:
                        self.folded[vid] = self.trace.arrays[vid]
                continue
            fn = self._converter(node)
            if fn is None:
                raise UnsupportedOperatorError(aten_name(node.op), self.b.opset, None)
            ctx = Ctx(self, i, node)
            fn(ctx)
            if any(v is not None and v not in self.env for v in node.outputs):
                raise SymbolicValueError(f"the converter of {node.op} left an output unset",
                                         node.op)

    def _converter(self, node):
        aten = ATEN_NAMES.get(node.op)
        if aten is not None and aten in CUSTOM:
            from ._symbolic import custom_converter

            return custom_converter(CUSTOM[aten][0])
        if node.op.startswith("function:"):
            from ._symbolic import function_converter

            return function_converter
        return CONVERTERS.get(node.op)

    # -- folding --------------------------------------------------------------------------
    def _foldable(self, i, node):
        if node.op.startswith(("module:", "function:")):
            return False
        info = self.info
        if info is not None and (i in info.params or any(v in info.shapes
                                                         for v in node.outputs)):
            return False
        for pos, ref in enumerate(node.inputs):
            if not self._is_const(ref, (i, pos)):
                return False
        if any(v not in self.folded for v in node.param_values.values()):
            return False
        if node.op in RANDOM and node.op in CONVERTERS:
            return False  # a fresh draw on every run of the exported model
        return self.fold or node.op not in CONVERTERS

    def _is_const(self, ref, key):
        kind = ref[0]
        info = self.info
        if kind == "v":
            return ref[1] in self.folded
        if kind == "c":
            if info is not None and key in info.consts:
                return False
            return ref[2] is None or self.export_params
        if kind == "s":
            return info is None or key not in info.scalars
        return all(self._is_const(r, key + (j,)) for j, r in enumerate(ref[1]))

    # -- names of values --------------------------------------------------------------------
    def value(self, vid):
        """The ONNX name of value ``vid`` (a folded value becomes an initializer)."""
        name = self.env.get(vid)
        if name is None:
            if vid not in self.folded:
                raise SymbolicValueError("a value was used before it was computed", vid)
            name = self.env[vid] = self.b.const(self.folded[vid])
        return name

    def constant(self, array, pname):
        """The ONNX name of a constant: a parameter keeps its state_dict name."""
        if pname is not None:
            name = self.param_names.get(pname)
            if name is None:
                name = self.param_names[pname] = self.b.reserve(pname)
                if self.export_params:
                    self.b.initializers[name] = np.asarray(array)
                    self.b.known[name] = np.asarray(array)
                else:
                    self.param_inputs.append((name, np.asarray(array)))
            return name
        name = self._const_ids.get(id(array))
        if name is None:
            name = self._const_ids[id(array)] = self.b.const(np.asarray(array))
        return name

    def sym(self, value):
        """A 1-D int64 tensor of one element holding ``value`` (an int or a Sym) at run
        time."""
        if isinstance(value, Unknown):
            raise SymbolicValueError(
                f"the size {int(value)} depends on the dynamic axes in a way the exporter "
                "cannot express; export without dynamic_axes or compute it from "
                "tensor sizes in a simpler way", int(value))
        if not isinstance(value, Sym):
            return self.b.ints([int(value)])
        key = value.key
        got = self._sym_cache.get(key)
        if got is not None:
            return got
        b = self.b
        out = None
        for k in value.factors:
            f = self._symbol(k)
            out = f if out is None else b.op("Mul", out, f)
        if value.coef != 1:
            out = b.op("Mul", out, b.ints([value.coef]))
        if value.pre:
            out = b.op("Add", out, b.ints([value.pre]))
        if value.div != 1:
            out = b.op("Div", out, b.ints([value.div]))
        if value.offset:
            out = b.op("Add", out, b.ints([value.offset]))
        self._sym_cache[key] = out
        return out

    def _symbol(self, k):
        got = self._sym_cache.get(("symbol", k))
        if got is None:
            name, dim = self.input_of[k]
            got = self.b.op("Gather", self.b.op("Shape", name), self.b.ints([dim]), axis=0)
            self._sym_cache[("symbol", k)] = got
        return got

    def shape_vec(self, dims):
        """A 1-D int64 shape tensor from ints and Syms."""
        return self.b.vec([d if not isinstance(d, (Sym, Unknown)) else self.sym(d)
                           for d in dims])

    def dyn_const(self, dc):
        """Emit a tensor made in ``forward`` whose size follows the dynamic axes."""
        b = self.b
        if dc.kind == "full":
            onnx = onnx_modules()[0]
            value = onnx.helper.make_tensor("value", tensor_type(dc.dtype), [1],
                                            [dc.value.item()] if dc.dtype != np.bool_
                                            else [bool(dc.value)])
            return b.op("ConstantOfShape", self.shape_vec(dc.shape), value=value)
        if dc.kind == "size":
            return b.cast(b.squeeze(self.sym(dc.value), [0]), dc.dtype)
        if dc.kind == "arange":
            n = b.op("Cast", b.squeeze(self.sym(dc.shape[0]), [0]), to=tensor_type(dc.dtype))
            start = b.const(np.asarray(dc.start, dtype=dc.dtype))
            step = b.const(np.asarray(dc.step, dtype=dc.dtype))
            limit = b.op("Add", start, b.op("Mul", n, step))
            return b.op("Range", start, limit, step)
        raise SymbolicValueError(
            "a tensor created inside forward has a size that follows a dynamic axis and "
            "contents the exporter cannot rebuild (only constant-filled tensors and aranges "
            "are supported)", dc.shape)


class Ctx:
    """What a converter sees of one node (see the module docstring)."""

    def __init__(self, conv, index, node):
        self.conv, self.index, self.node = conv, index, node
        self.b = conv.b
        self.opset = conv.b.opset
        info = conv.info
        self.params = info.params.get(index, node.params) if info is not None else node.params

    # -- parameters ---------------------------------------------------------------------
    def p(self, key, default=None):
        """Parameter ``key`` (numbers that follow a dynamic axis are Syms)."""
        return self.params.get(key, default)

    def static(self, key, default=None):
        """Parameter ``key``, which must not depend on a dynamic axis."""
        value = self.params.get(key, default)
        if has_dynamic(value):
            raise SymbolicValueError(
                f"{aten_name(self.node.op)}: its '{key}' depends on a dynamic axis, which this "
                "operator cannot follow in ONNX", key)
        return value

    def param_value(self, key):
        """The ONNX name of the traced value an array parameter holds, or None."""
        vid = self.node.param_values.get(key)
        return None if vid is None else self.conv.value(vid)

    # -- inputs --------------------------------------------------------------------------
    @property
    def n_inputs(self):
        return len(self.node.inputs)

    def is_none(self, i):
        return i >= len(self.node.inputs) or self.node.inputs[i] == ("s", None)

    def arr(self, i):
        """Input ``i`` as traced: an array (or the Python object passed)."""
        ref = self.node.inputs[i]
        if ref[0] == "v":
            return self.conv.trace.arrays[ref[1]]
        if ref[0] == "c":
            return ref[1]
        if ref[0] == "s":
            return ref[1]
        return [self._arr_of(r) for r in ref[1]]

    def _arr_of(self, ref):
        return self.conv.trace.arrays[ref[1]] if ref[0] == "v" else ref[1]

    def dtype(self, i):
        """The dtype input ``i`` enters the op with (after the op's promotion)."""
        if self.node.dtypes is not None and self.node.dtypes[i] is not None:
            return np.dtype(self.node.dtypes[i])
        a = self.arr(i)
        return np.asarray(a).dtype if not isinstance(a, np.ndarray) else a.dtype

    def rank(self, i):
        return np.ndim(self.arr(i))

    def shape(self, i):
        """Input ``i``'s shape with Syms for the dims that follow a dynamic axis."""
        ref = self.node.inputs[i]
        info = self.conv.info
        if info is not None:
            if ref[0] == "v" and ref[1] in info.shapes:
                return info.shapes[ref[1]]
            dc = info.consts.get((self.index, i))
            if dc is not None:
                return dc.shape
        return tuple(np.shape(self.arr(i)))

    def x(self, i, dtype=None):
        """The ONNX name of input ``i``, cast to ``dtype`` (default: the op's input dtype)."""
        name, have = self._name(self.node.inputs[i], (self.index, i))
        if name == "":
            return name
        want = np.dtype(dtype) if dtype is not None else self.dtype(i)
        if have != want:
            name = self.b.cast(name, want)
        return name

    def xs(self, i, dtype=None):
        """The ONNX names of a list input ``i`` (``cat``'s tensors)."""
        ref = self.node.inputs[i]
        out = []
        for j, r in enumerate(ref[1]):
            name, have = self._name(r, (self.index, i, j))
            if dtype is not None and have != np.dtype(dtype):
                name = self.b.cast(name, dtype)
            out.append(name)
        return out

    def _name(self, ref, key):
        conv = self.conv
        info = conv.info
        kind = ref[0]
        if kind == "v":
            return conv.value(ref[1]), conv.trace.arrays[ref[1]].dtype
        if kind == "c":
            if info is not None and key in info.consts:
                return conv.dyn_const(info.consts[key]), ref[1].dtype
            return conv.constant(ref[1], ref[2]), ref[1].dtype
        if kind == "s":
            if info is not None and key in info.scalars:
                return self.b.squeeze(conv.sym(info.scalars[key]), [0]), np.dtype(np.int64)
            value = ref[1]
            if value is None:
                return "", None
            dt = self.dtype(key[1])
            return self.b.const(np.asarray(value, dtype=dt)), dt
        raise SymbolicValueError("a list where a tensor was expected", key)

    def tensor(self, t, dtype=None):
        """The ONNX name of a tensor the converter reads off a module (a parameter keeps its
        state_dict name; a traced value is used as such)."""
        conv = self.conv
        vid = conv.trace.value_of(t)
        if vid is not None:
            name, have = conv.value(vid), conv.trace.arrays[vid].dtype
        else:
            name = conv.constant(host(t._array), conv.trace.names.get(id(t._array)))
            have = t._array.dtype
        if dtype is not None and have != np.dtype(dtype):
            name = self.b.cast(name, dtype)
        return name

    # -- outputs -------------------------------------------------------------------------
    def out(self, k=0):
        """Output ``k`` as traced."""
        return self.conv.trace.arrays[self.node.outputs[k]]

    def out_shape(self, k=0):
        vid = self.node.outputs[k]
        info = self.conv.info
        if info is not None and vid in info.shapes:
            return info.shapes[vid]
        return tuple(self.out(k).shape)

    def set(self, *names):
        """Bind the node's outputs to ONNX names (in order; None leaves one unbound)."""
        for vid, name in zip(self.node.outputs, names):
            if vid is not None and name is not None:
                self.conv.env[vid] = name

    # -- helpers -------------------------------------------------------------------------
    def unsupported(self, detail=None):
        name = aten_name(self.node.op) + (f" ({detail})" if detail else "")
        return UnsupportedOperatorError(name, self.opset, None)

    def vec(self, dims):
        return self.conv.shape_vec(dims)

    def sym(self, value):
        return self.conv.sym(value)


def is_dynamic(value):
    """Whether ``value`` (an int, Sym or nested structure) depends on a dynamic axis."""
    return has_dynamic(value)


__all__ = ["CONVERTERS", "Converter", "Ctx", "DynArray", "converter", "is_dynamic"]
