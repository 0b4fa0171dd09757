"""Symbolic tracing: run a module's ``forward`` on proxies and record a ``Graph``
(``torch.fx.symbolic_trace``, ``Tracer``, ``wrap``).
"""

import builtins
import inspect
import math
import operator

from . import _patching
from .graph import Graph
from .proxy import ParameterProxy, Proxy, TraceError, TracerBase

__all__ = ["PH", "TraceError", "Tracer", "symbolic_trace", "wrap"]


class _PH:
    """A placeholder marker for ``concrete_args``: the argument stays an input."""

    def __repr__(self):
        return "PH"


PH = _PH()

# (globals dict, name) pairs registered by fx.wrap(); patched in every trace
_wrapped_fns_to_patch = {}


def wrap(fn_or_name):
    """Make calls to a module-level function graph leaves instead of tracing through them.

    Call at the top level of the module that defines or imports the function, with the
    function or its name. During tracing, calling it with a proxy argument records one
    ``call_function`` node.

    Args:
        fn_or_name (Callable or str): the function or its global name.

    Returns:
        the argument, unchanged (so it may be used as a decorator).
    """
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable "
                           "or string name")
    if callable(fn_or_name):
        name = fn_or_name.__code__.co_name if hasattr(fn_or_name, "__code__") \
            else fn_or_name.__name__
    else:
        name = fn_or_name
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(frame.f_globals), name)] = frame.f_globals
    return fn_or_name


def _is_numtorch_nn(module_name):
    return module_name.startswith(("numtorch.nn", "numtorch.ao.nn", "torch.nn"))


class Tracer(TracerBase):
    """Records a module's ``forward`` (or a function) as a ``Graph``.

    Subclass it to change what is recorded: ``is_leaf_module`` decides which submodules stay
    one ``call_module`` node, ``create_proxy``/``create_node`` see every recorded operation,
    ``call_module`` and ``getattr`` intercept submodule calls and parameter reads.

    Args:
        autowrap_modules (tuple): modules whose functions are recorded as leaves when a
            traced function imported them by name (default: ``math``).
        autowrap_functions (tuple): more functions to record that way.
        param_shapes_constant (bool): answer ``shape``/``size()`` of parameters concretely.
    """

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(),
                 param_shapes_constant=False):
        super().__init__()
        self._autowrap_function_ids = {
            id(value) for module in autowrap_modules for name, value in vars(module).items()
            if not name.startswith("_") and callable(value)
        }
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.root = None
        self.tensor_attrs = {}

    # ---- hooks a subclass may override ----------------------------------------------------
    def is_leaf_module(self, m, module_qualified_name):
        """True if ``m`` is recorded as one ``call_module`` node: torch.nn's modules except
        ``Sequential``."""
        from numtorch import nn

        return _is_numtorch_nn(type(m).__module__) and not isinstance(m, nn.Sequential)

    def path_of_module(self, mod):
        """The qualified name of ``mod`` in the root module; ``NameError`` if not found."""
        if self.submodule_paths is not None:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for name, candidate in self.root.named_modules():
            if candidate is mod:
                return name
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """Record a leaf ``m`` as a ``call_module`` node, or trace through its ``forward``."""
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """Turn a parameter read inside ``forward`` into a ``get_attr`` proxy."""
        from numtorch import nn

        if isinstance(attr_val, nn.Parameter):
            for name, param in self.root.named_parameters():
                if attr_val is param:
                    if name not in parameter_proxy_cache:
                        if self.param_shapes_constant:
                            node = self.create_node("get_attr", name, (), {})
                            parameter_proxy_cache[name] = ParameterProxy(self, node, name,
                                                                         attr_val)
                        else:
                            parameter_proxy_cache[name] = self.create_proxy(
                                "get_attr", name, (), {})
                    return parameter_proxy_cache[name]
        return attr_val

    def create_arg(self, a):
        """As ``TracerBase.create_arg``, plus parameters, buffers, tensor attributes and
        submodules of the root become ``get_attr`` nodes; other tensors become constants."""
        import numtorch
        from numtorch import nn

        if isinstance(a, nn.Parameter):
            for name, param in self.root.named_parameters():
                if a is param:
                    return self.create_node("get_attr", name, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, numtorch.Tensor):
            for name, buf in self.root.named_buffers():
                if a is buf:
                    return self.create_node("get_attr", name, (), {})
            name = self.tensor_attrs.get(id(a))
            if name is None:
                i = 0
                while True:
                    name = f"_tensor_constant{i}"
                    if not hasattr(self.root, name):
                        break
                    i += 1
                setattr(self.root, name, a)
                self.tensor_attrs[id(a)] = name
            return self.create_node("get_attr", name, (), {})
        if isinstance(a, nn.Module):
            return self.create_node("get_attr", self.path_of_module(a), (), {})
        return super().create_arg(a)

    # ---- tracing --------------------------------------------------------------------------
    def _collect_tensor_attrs(self, module, prefix):
        import numtorch

        for key, value in vars(module).items():
            if isinstance(value, numtorch.Tensor):
                self.tensor_attrs.setdefault(id(value), ".".join(prefix + [key]))
        for name, child in module.named_children():
            self._collect_tensor_attrs(child, prefix + [name])

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """Make the placeholders for ``root_fn``'s parameters (skipping ``self``)."""
        sig = inspect.signature(root_fn)
        params = list(sig.parameters.values())
        if is_module:
            params = params[1:]
        # torch makes the placeholder of *args after those of keyword-only parameters
        order = {inspect.Parameter.VAR_POSITIONAL: 1, inspect.Parameter.VAR_KEYWORD: 2}
        params.sort(key=lambda p: order.get(p.kind, 0))
        concrete_args = dict(concrete_args or {})
        if not isinstance(concrete_args, dict):
            raise AssertionError("concrete_args must be a dict")
        hints = getattr(root_fn, "__annotations__", {})
        args = []
        kwargs_out = {}
        for p in params:
            if p.name in concrete_args and concrete_args[p.name] is not PH:
                args.append(self._concrete_placeholder(p, concrete_args[p.name]))
                continue
            if p.kind is inspect.Parameter.VAR_POSITIONAL:
                proxy = self.create_proxy("placeholder", "*" + p.name, (), {},
                                          type_expr=hints.get(p.name))
                args.append(proxy)
                continue
            if p.kind is inspect.Parameter.VAR_KEYWORD:
                proxy = self.create_proxy("placeholder", "**" + p.name, (), {},
                                          type_expr=hints.get(p.name))
                kwargs_out = proxy
                continue
            default = () if p.default is inspect.Parameter.empty else (p.default,)
            proxy = self.create_proxy("placeholder", p.name, default, {},
                                      type_expr=hints.get(p.name))
            if p.kind is inspect.Parameter.KEYWORD_ONLY:
                kwargs_out[p.name] = proxy
            else:
                args.append(proxy)
        return args, kwargs_out

    def _concrete_placeholder(self, p, value):
        # The input stays in the signature, with a check that callers pass the traced value.
        # the traced input keeps a numbered name (``flag_1``), as in torch
        self.graph._graph_namespace.create_name(p.name, None)
        # it keeps the parameter's default, so the generated signature stays valid
        default = () if p.default is inspect.Parameter.empty else (p.default,)
        node = self.create_node("placeholder", p.name, default, {}, name=p.name)
        node.target = node.name
        if value is None:
            msg = f"{p.name} has been specialized to have value None but got another value"
            self.create_proxy("call_function", _assert_is_none, (self.proxy(node), msg), {})
        else:
            eq = self.create_proxy("call_function", operator.eq, (self.proxy(node), value), {})
            msg = f"{p.name} has been specialized to have value {value} but got another value"
            import numtorch

            self.create_proxy("call_function", numtorch._assert, (eq, msg), {})
        return value

    def trace(self, root, concrete_args=None):
        """Trace ``root`` (a Module or a function) and return the recorded ``Graph``."""
        from numtorch import nn

        if isinstance(root, nn.Module):
            self.root = root
            fn = type(root).forward
            is_module = True
        else:
            self.root = nn.Module()
            fn = root
            is_module = False
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = {}
        self._collect_tensor_attrs(self.root, [])
        self.submodule_paths = {mod: name for name, mod in self.root.named_modules()}
        fn_globals = getattr(fn, "__globals__", {})
        parameter_proxy_cache = {}
        tracer = self
        orig_call = nn.Module.__call__
        orig_getattr = nn.Module.__getattr__

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*a, **k):
                return orig_call(mod, *a, **k)

            return tracer.call_module(mod, forward, args, kwargs)

        def module_getattr_wrapper(mod, attr):
            value = orig_getattr(mod, attr)
            return tracer.getattr(attr, value, parameter_proxy_cache)

        global _is_fx_tracing_flag
        was_tracing, _is_fx_tracing_flag = _is_fx_tracing_flag, True
        patcher = _patching.Patcher()
        _patching.activate()
        try:
            args, kwargs = self.create_args_for_root(fn, is_module, concrete_args)
            patcher.set_attr(nn.Module, "__call__", module_call_wrapper)
            patcher.set_attr(nn.Module, "__getattr__", module_getattr_wrapper)
            _patching.patch_globals(patcher, fn_globals)
            _patching.patch_tensor_methods(patcher)
            self._patch_autowrap(patcher, fn_globals)
            self._patch_wrapped(patcher)
            call_args = ([root] if is_module else []) + list(args)
            if isinstance(kwargs, Proxy):
                raise TraceError("**kwargs of the traced function cannot be traced")
            result = fn(*call_args, **kwargs)
            self.create_node("output", "output", (self.create_arg(result),), {},
                             type_expr=getattr(fn, "__annotations__", {}).get("return"))
        finally:
            patcher.restore()
            _patching.deactivate()
            _is_fx_tracing_flag = was_tracing
        self.submodule_paths = None
        code = getattr(fn, "__code__", None)
        if code is not None:  # names the generated code's file, as torch's does
            self.graph._co_fields = {"co_name": code.co_name, "co_filename": code.co_filename,
                                     "co_firstlineno": code.co_firstlineno}
        return self.graph

    def _patch_autowrap(self, patcher, fn_globals):
        # the traced function's globals, and the autowrap modules' own namespaces (so that
        # ``math.sqrt(...)`` and ``ops.fn(...)`` calls are leaves too, as in torch)
        spaces = [fn_globals] + [vars(m) for m in self._autowrap_search]
        for space in spaces:
            for key, value in list(space.items()):
                if not key.startswith("_") and callable(value) \
                        and id(value) in self._autowrap_function_ids:
                    patcher.set_item(space, key, _patching.proxy_wrapper(value, private=True))

    def _patch_wrapped(self, patcher):
        for (_, name), frame_globals in list(_wrapped_fns_to_patch.items()):
            orig = frame_globals.get(name)
            if orig is None:
                orig = getattr(builtins, name, None)
                if orig is None:
                    continue
            orig = _patching.original_of(orig)
            patcher.set_item(frame_globals, name,
                             _patching.proxy_wrapper(orig, wrapped_leaf=True))

    def __deepcopy__(self, memo):
        import copy

        new = Tracer.__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            setattr(new, key, copy.deepcopy(value, memo))
        return new


_is_fx_tracing_flag = False  # True while a Tracer (symbolic_trace) or torch.export runs code


def is_fx_tracing():
    """Whether code runs under ``fx.symbolic_trace`` or ``torch.export`` right now (libraries
    skip data-dependent checks then)."""
    return _is_fx_tracing_flag


def is_fx_symbolic_tracing():
    """Whether code runs under ``fx.symbolic_trace`` (not ``torch.export`` or compile)."""
    from ..compiler import is_compiling

    return _is_fx_tracing_flag and not is_compiling()


def _assert_is_none(value, msg):
    assert value is None, msg




def symbolic_trace(root, concrete_args=None):
    """Trace ``root`` (a Module or a function) into a ``GraphModule``.

    Args:
        root (Module or Callable): what to trace.
        concrete_args (dict, optional): parameter values to specialise on (they leave the
            traced code; a check that callers pass the same value stays in the graph).

    Returns:
        GraphModule: a module whose ``forward`` is the recorded graph.

    Example::

        >>> gm = torch.fx.symbolic_trace(torch.nn.Sequential(torch.nn.Linear(2, 2)))
        >>> [n.op for n in gm.graph.nodes]
        ['placeholder', 'call_module', 'output']
    """
    from numtorch import nn

    from .graph_module import GraphModule

    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, nn.Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
