"""``Proxy``: the stand-in value that records operations into a graph (``torch.fx.proxy``).

During symbolic tracing the traced function receives proxies instead of tensors. Operators
(``x + 1``), methods (``x.view(-1)``), attribute reads (``x.shape``), indexing and torch
functions applied to a proxy each add a node to the tracer's graph and return a new proxy.
numtorch's functions are plain Python, so torch functions see proxies through the wrappers
that :mod:`numtorch.fx._patching` puts in the torch namespaces while proxies are in use.
"""

import dis
import inspect
import operator

from . import _patching
from .node import Node, magic_methods, unary_methods

__all__ = [
    "Attribute",
    "GraphAppendingTracer",
    "ParameterProxy",
    "Proxy",
    "TraceError",
    "TracerBase",
]


class TraceError(ValueError):
    """Raised when a traced program needs a concrete value (control flow, iteration)."""


def _base_constant(a):
    import numtorch

    return isinstance(a, (str, int, float, bool, complex, type(None), type(...), bytes,
                          numtorch.dtype, numtorch.device, numtorch.layout,
                          numtorch.memory_format)) or a is Ellipsis


class TracerBase:
    """The part of a tracer that turns operations on proxies into graph nodes."""

    graph = None
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    scope = None

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """Add one node to ``self.graph`` (override to customise every recorded node)."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        """Wrap ``node`` in a :class:`Proxy` of this tracer."""
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        """Record ``target`` applied to ``args``/``kwargs`` and return the result's proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        if not isinstance(args_, tuple):
            raise AssertionError("args must be a tuple")
        if not isinstance(kwargs_, dict):
            raise AssertionError("kwargs must be a dict")
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """Turn a value into something a node may hold: proxies become their nodes."""
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple):
            if hasattr(a, "_fields"):
                # a named tuple holding traced values is built by a node of its own
                args = tuple(self.create_arg(x) for x in a)
                return self.create_node("call_function", type(a), args, {})
            return tuple(self.create_arg(x) for x in a)
        if isinstance(a, list):
            return [self.create_arg(x) for x in a]
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError("Keys for dictionaries used as an argument cannot "
                                       f"contain a Node. Got key: {k}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, Node) or _base_constant(a):
            return a
        import numtorch

        if isinstance(a, numtorch.Size):
            return a
        if callable(a) or isinstance(a, type):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj):
        """Called by ``bool(proxy)``: tracing cannot decide a branch on a traced value."""
        raise TraceError("symbolically traced variables cannot be used as inputs to control "
                         "flow")

    def iter(self, obj):
        """Called when a proxy is iterated in a way the tracer cannot unroll."""
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the "
                         "Proxy is used in a loop or as a *args or **kwargs function argument. "
                         "See the torch.fx docs on pytorch.org for a more detailed explanation"
                         " of what types of control flow can be traced, and check out the "
                         "Proxy docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj):
        """Called for ``**proxy``: record a ``keys()`` method call."""
        return Attribute(obj, "keys")()

    def path_of_module(self, mod):
        raise NotImplementedError("path_of_module is implemented by Tracer")


class GraphAppendingTracer(TracerBase):
    """A tracer that appends the operations on its proxies to an existing ``graph``."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.scope = None
        self.module_stack = {}
        self.node_name_to_scope = {}
        self.root = None


class Proxy:
    """A value in a graph under construction; operations on it add nodes.

    Args:
        node (Node): the node whose value this proxy stands for.
        tracer (TracerBase, optional): where new nodes go (default: a
            :class:`GraphAppendingTracer` of ``node.graph``).
    """

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node
        _patching.ensure_active()

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        # attribute reads are recorded lazily: a method call needs no getattr node
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = d

    def __deepcopy__(self, memo):
        import copy

        new = Proxy.__new__(Proxy)
        memo[id(self)] = new
        new.__dict__ = copy.deepcopy(self.__dict__, memo)
        return new

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        instructions = dis.get_instructions(frame.f_code)
        offset = frame.f_lasti
        # `a, b = proxy` unpacks a known number of items: index them
        for inst in instructions:
            if inst.offset >= offset:
                if inst.opname == "UNPACK_SEQUENCE":
                    return (self[j] for j in range(inst.argval))
                break
        return self.tracer.iter(self)

    def __abs__(self):
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self):
        return self.tracer.to_bool(self)

    def keys(self):
        return self.tracer.keys(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you "
                           "want this call to be recorded, please call torch.fx.wrap('len') "
                           "at module scope")

    def __index__(self):
        raise TraceError("symbolically traced variables cannot be used as inputs to control "
                         "flow")


class Attribute(Proxy):
    """``proxy.name``: becomes a method call when called, a ``getattr`` node otherwise."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy(
                "call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A proxy for a module parameter that answers ``shape``/``size()``/``dim()`` concretely,
    as torch's does."""

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self):
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


def _binary(name):
    target = getattr(operator, name)

    def impl(self, other):
        return self.tracer.create_proxy("call_function", target, (self, other), {})

    def rimpl(self, other):
        return self.tracer.create_proxy("call_function", target, (other, self), {})

    impl.__name__ = f"__{name.rstrip('_')}__"
    rimpl.__name__ = f"__r{name.rstrip('_')}__"
    return impl, rimpl


for _name in magic_methods:
    _impl, _rimpl = _binary(_name)
    _dunder = _name.rstrip("_")
    setattr(Proxy, f"__{_dunder}__", _impl)
    if _name not in ("eq", "ne", "lt", "gt", "le", "ge", "getitem"):
        setattr(Proxy, f"__r{_dunder}__", _rimpl)


def _unary(target):
    def impl(self):
        return self.tracer.create_proxy("call_function", target, (self,), {})

    return impl


for _name in unary_methods:
    setattr(Proxy, f"__{_name}__", _unary(getattr(operator, _name)))
Proxy.__hash__ = object.__hash__  # __eq__ records a node; proxies stay usable as dict keys
del _name, _impl, _rimpl, _dunder
