"""``GraphModule``: an ``nn.Module`` whose ``forward`` is generated from a ``Graph``
(``torch.fx.graph_module``).
"""

import copy
import linecache
import os
import sys
import traceback

from . import _codegen
from .graph import Graph
from .node import map_arg

__all__ = ["GraphModule"]

_READABLE_HINT = "# To see more debug info, please use `graph_module.print_readable()`"
_counter = [0]


def _module_base():
    from numtorch import nn

    return nn.Module


def _copy_attr(from_module, to_module, target):
    import numtorch
    from numtorch import nn

    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return  # the whole subtree is already shared
        if t is None:
            t = nn.Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    if isinstance(orig, numtorch.Tensor) and not isinstance(orig, nn.Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module, target):
    import numtorch
    from numtorch import nn

    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = nn.Module()
            setattr(to_module, item, t)
        to_module = t
    if isinstance(from_obj, numtorch.Tensor) and not isinstance(from_obj, nn.Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


class GraphModule(_module_base()):
    """A module built from ``root``'s attributes and ``graph``'s generated code.

    Args:
        root (Module or dict): where the submodules and attributes named by the graph's
            ``call_module``/``get_attr`` nodes come from (a Module, or a dict from target
            path to object).
        graph (Graph): the graph; its generated code becomes ``forward``.
        class_name (str): the name of the module's class (shown by ``print``).

    Each GraphModule gets a class of its own, so that ``recompile()`` can give it a new
    ``forward`` without touching other instances.
    """

    def __new__(cls, *args, **kwargs):
        if cls is GraphModule or cls.__dict__.get("_fx_generated") is None:
            impl = type(cls.__name__, (cls,), {"_fx_generated": True,
                                               "__module__": cls.__module__})
            return super().__new__(impl)
        return super().__new__(cls)

    def __init__(self, root, graph, class_name="GraphModule"):
        from numtorch import nn

        super().__init__()
        type(self).__name__ = class_name
        type(self).__qualname__ = class_name
        if isinstance(root, nn.Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if not isinstance(node.target, str):
                        raise AssertionError(f"node target {node.target} is not a str")
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = [n.target for n in graph.nodes if n.op in ("get_attr", "call_module")]
            for target in sorted(targets, key=lambda t: t.count(".")):
                if target not in root:
                    raise RuntimeError(f"Node {target} referenced target {target} but that "
                                       "target was not provided in ``root``!")
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.meta = {}
        self._tracer_cls = getattr(graph, "_tracer_cls", None)
        self.graph = graph

    # ---- the graph and its code -----------------------------------------------------------
    @property
    def graph(self):
        """The graph; assigning one regenerates ``forward``."""
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of the generated ``forward``."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self):
        """Regenerate ``forward`` from ``self.graph`` (call after editing the graph)."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        filename = f"<eval_with_key>.{_counter[0]}"
        _counter[0] += 1
        co = getattr(self._graph, "_co_fields", None)
        if co:  # a traced graph: where its source came from
            filename += f" from {co['co_filename']}:{co['co_firstlineno']} in {co['co_name']}"
        # the source goes into linecache so tracebacks through forward show its lines
        linecache.cache[filename] = (len(self._code), None, self._code.splitlines(True),
                                     filename)
        namespace = dict(python_code.globals)
        # what a pickle must carry besides the code (torch's own globals are rebuilt on load)
        self._code_globals = {k: v for k, v in namespace.items()
                              if k not in ("torch", "inf", "nan", "NoneType", "device")}
        exec(compile(self._code, filename, "exec"), namespace)
        forward = namespace["forward"]
        cls = type(self)
        cls.forward = forward
        return python_code

    def __call__(self, *args, **kwargs):
        from ._patching import _find_tracer

        tracer = _find_tracer(args, kwargs)
        if tracer is not None and not hasattr(tracer, "submodule_paths"):
            return self._inline(tracer, args, kwargs)
        try:
            return super().__call__(*args, **kwargs)
        except Exception:
            _report_generated_line(sys.exc_info()[2])
            raise

    def _inline(self, tracer, args, kwargs):
        """Run on proxies outside a trace: copy each node into the proxies' graph."""
        from ._patching import _find_tracer

        env = {}
        positional = list(args)
        load = lambda a: map_arg(a, lambda n: env[n])
        for node in self._graph.nodes:
            if node.op == "placeholder":
                name = node.target.lstrip("*")
                if positional:
                    env[node] = positional.pop(0)
                elif name in kwargs:
                    env[node] = kwargs[name]
                else:
                    env[node] = node.args[0]
            elif node.op == "get_attr":
                value = self
                for atom in node.target.split("."):
                    value = getattr(value, atom)
                env[node] = value
            elif node.op == "call_module":
                env[node] = self.get_submodule(node.target)(*load(node.args),
                                                            **load(node.kwargs))
            elif node.op in ("call_function", "call_method"):
                a, k = load(node.args), load(node.kwargs)
                if _find_tracer(a, k) is not None:
                    env[node] = tracer.create_proxy(node.op, node.target, tuple(a), dict(k))
                elif node.op == "call_function":
                    env[node] = node.target(*a, **k)
                else:
                    env[node] = getattr(a[0], node.target)(*a[1:], **k)
            elif node.op == "output":
                return load(node.args[0])
        return None

    # ---- printing, copying, pickling ------------------------------------------------------
    def __str__(self):
        return "\n".join([_module_base().__repr__(self), self._code, _READABLE_HINT])

    def _get_name(self):
        return type(self).__name__

    def print_readable(self, print_output=True, include_stride=False, include_device=False,
                       colored=False, **kwargs):
        """The generated code as a class definition (printed, and returned)."""
        body = self._code.strip("\n").rstrip()
        lines = body.split("\n")
        header, rest = [], []
        for i, line in enumerate(lines):
            if line.startswith("def forward"):
                rest = lines[i:]
                break
            header.append(line)
        out = [f"class {type(self).__name__}(torch.nn.Module):"]
        header = [line for line in header if line.strip()]
        if header:  # the wrap() registrations, indented into the class body
            out += ["    " + line for line in header] + [""]
        for line in rest:
            out.append("    " + line if line.strip() else "")
            if line.startswith("def forward"):
                out.append("        # No stacktrace found for following nodes")
        text = "\n".join(out) + "\n"
        if print_output:
            print(text)
        return text

    def __deepcopy__(self, memo):
        from numtorch import nn

        state = {k: v for k, v in self.__dict__.items() if k != "_graph"}
        fake = nn.Module()
        fake.__dict__.update(copy.deepcopy(state, memo))
        graph = copy.deepcopy(self._graph)
        res = GraphModule(fake, graph, "GraphModule")
        memo[id(self)] = res
        for key in ("training", "meta"):
            if key in fake.__dict__:
                res.__dict__[key] = fake.__dict__[key]
        return res

    def __copy__(self):
        res = GraphModule(self, self._graph)
        res.meta = getattr(self, "meta", {})
        return res

    def __reduce__(self):
        state = {k: v for k, v in self.__dict__.items()
                 if k not in ("_graph", "_code", "_code_globals")}
        return (_rebuild_graph_module, (state, self._code, self._code_globals))

    # ---- submodule management ---------------------------------------------------------
    def add_submodule(self, target, m):
        """Install module ``m`` at dotted path ``target`` (creating empty parents); returns
        False if a non-Module is in the way."""
        from numtorch import nn

        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = nn.Module()
                setattr(mod, item, sub)
            if not isinstance(sub, nn.Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        """Remove the submodule at ``target``; False if there is none."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
        if field not in getattr(mod, "_modules", {}):
            return False
        delattr(mod, field)
        return True

    def delete_all_unused_submodules(self):
        """Remove every submodule no ``call_module``/``get_attr`` node uses."""
        used = set()
        for node in self._graph.nodes:
            if node.op in ("call_module", "get_attr"):
                parts = node.target.split(".")
                for i in range(1, len(parts) + 1):
                    used.add(".".join(parts[:i]))
                if node.op == "call_module":
                    sub = self.get_submodule(node.target)
                    for name, _ in sub.named_modules():
                        if name:
                            used.add(node.target + "." + name)
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)


def _rebuild_graph_module(state, code, code_globals=None):
    """Unpickle a GraphModule: re-run its code under a tracer that keeps every module a leaf."""
    import numtorch
    from numtorch import nn

    from ._symbolic_trace import Tracer

    class _CodeOnlyModule(nn.Module):
        def __init__(self, body):
            super().__init__()
            self.__dict__ = body

    namespace = {"torch": _codegen._TorchNames(), "inf": float("inf"), "nan": float("nan"),
                 "NoneType": type(None), "device": numtorch.device, **(code_globals or {})}
    exec(compile(code, "<graph module>", "exec"), namespace)
    _CodeOnlyModule.forward = namespace["forward"]

    class _KeepModules(Tracer):
        def is_leaf_module(self, m, qualname):
            return True

    module = _CodeOnlyModule(dict(state))
    graph = _KeepModules().trace(module)
    return GraphModule(module, graph, "GraphModule")


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _report_generated_line(tb):
    """Where an error was raised by a line of generated code (the deepest frame outside
    numtorch itself; numtorch's ops stand for torch's C++ kernels), print the traceback and
    that line with its neighbours to stderr, as torch's GraphModule does; the error then
    propagates unchanged."""
    frames = [f for f in traceback.extract_tb(tb)
              if not os.path.abspath(f.filename).startswith(_PACKAGE_DIR + os.sep)]
    if not frames or not frames[-1].filename.startswith("<eval_with_key>"):
        return
    line_no = frames[-1].lineno
    lines = [line if line.endswith("\n") else line + "\n"
             for line in linecache.getlines(frames[-1].filename)]
    before = "".join(lines[max(line_no - 2, 0):line_no])
    after = "\n".join(lines[line_no:line_no + 2])
    marker = "~" * (len(lines[line_no - 1].rstrip("\n")) - 1) if line_no <= len(lines) else ""
    print(traceback.format_exc(), file=sys.stderr, end="")
    print(f"\nCall using an FX-traced Module, line {line_no} of the traced Module's generated "
          f"forward function:\n{before}\n{marker} <--- HERE\n{after}", file=sys.stderr)
