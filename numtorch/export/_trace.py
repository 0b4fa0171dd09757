"""Capture a module's forward as a list of torch-level calls, by running it once under a
``TorchFunctionMode`` that records every numtorch function and Tensor method it calls.

Every tensor the program touches is a *value*: a parameter, buffer, constant or user input
(known before the run) or the output of a recorded call. A recorded call keeps its arguments
as a template in which tensors are :class:`V` (the value's number) and the rest is kept as it
was given. Python code between the calls (shape arithmetic, control flow) runs once and is
specialised, as torch's export specialises it; ``_dynamic.py`` turns the integers that follow
a dynamic dimension back into expressions of it.
"""

import gc
import operator
import sys

from .. import _tensor
from .._function_mode import TorchFunctionMode, _pop_mode_temporarily
from ._errors import GuardOnDataDependentSymNode, UserError

Tensor = _tensor.Tensor

# calls whose result a Python branch would read: export cannot follow a tensor's data
_DATA_DEPENDENT = {"item", "tolist", "__bool__", "__int__", "__float__", "__index__",
                   "__complex__", "numpy"}
# dunder methods replayed through the operator module (as fx graphs spell them)
_OPERATORS = {"__getitem__": operator.getitem, "__setitem__": operator.setitem}


class V:
    """A tensor value in a call template: its number in the trace."""

    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return isinstance(other, V) and other.k == self.k

    def __hash__(self):
        return hash(("V", self.k))

    def __repr__(self):
        return f"V({self.k})"


class Call:
    """One recorded call: ``kind`` is 'method' (a Tensor method by ``name``), 'attr' (a Tensor
    property) or 'function' (``target``); ``outputs`` is the structure of value numbers it made
    (an int, a tuple of ints/None, or None)."""

    __slots__ = ("args", "kind", "kwargs", "name", "out_type", "outputs", "target")

    def __init__(self, kind, name, target, args, kwargs, outputs, out_type):
        self.kind, self.name, self.target = kind, name, target
        self.args, self.kwargs, self.outputs, self.out_type = args, kwargs, outputs, out_type

    def signature(self):
        return (self.kind, self.name, self.target, self.outputs, self.out_type)


def _classify(func):
    name = getattr(func, "__name__", "")
    qual = getattr(func, "__qualname__", "") or ""
    owner = qual.rsplit(".", 1)[0] if "." in qual else ""
    if name == "__get__":
        return "attr", qual.rsplit(".", 1)[-1], None
    if owner and getattr(Tensor, name, None) is not None and (
            owner in ("Tensor", "_TensorMath") or owner.startswith("_Tensor")):
        return "method", name, None
    # the dispatch wrappers differ between runs; the function they wrap does not
    return "function", name, getattr(func, "__wrapped__", func)


class _Recorder(TorchFunctionMode):
    def __init__(self, known, preexisting):
        super().__init__()
        self.ids = {}          # id(tensor) -> value number
        self.keep = []         # every tensor seen, so ids are not reused meanwhile
        self.calls = []
        self.constants = []    # (value number, tensor) lifted from outside the known values
        self.preexisting = preexisting
        self.count = 0
        for t in known:
            self.register(t)

    def register(self, t):
        k = self.count
        self.count += 1
        self.ids[id(t)] = k
        self.keep.append(t)
        return k

    def template(self, obj, where):
        if isinstance(obj, Tensor):
            k = self.ids.get(id(obj))
            if k is None:
                if id(obj) not in self.preexisting:
                    raise UserError(
                        f"numtorch.export: an argument of {where} is a tensor made by code the "
                        "exporter cannot see (not a numtorch function or Tensor method call); "
                        "such a program cannot be exported")
                k = self.register(obj)
                self.constants.append((k, obj))
            return V(k)
        if isinstance(obj, tuple):
            items = tuple(self.template(o, where) for o in obj)
            return type(obj)(*items) if hasattr(obj, "_fields") else items
        if isinstance(obj, list):
            return [self.template(o, where) for o in obj]
        if isinstance(obj, dict):
            return {key: self.template(o, where) for key, o in obj.items()}
        if isinstance(obj, slice):
            return slice(self.template(obj.start, where), self.template(obj.stop, where),
                         self.template(obj.step, where))
        return obj

    def outputs(self, out):
        """The value numbers of the tensors in ``out``: an int, a (nested) tuple of them and
        None, or None."""
        if isinstance(out, Tensor):
            return self.register(out)
        if isinstance(out, (tuple, list)) and self.outputs_of(out):
            return tuple(self.outputs(o) for o in out)
        return None

    def module_call(self, path, original):
        """A forward that records the whole call of an opaque submodule as one call."""

        def forward(*args, **kwargs):
            where = f"the submodule {path!r}"
            t_args, t_kwargs = self.template(args, where), self.template(kwargs, where)
            with _pop_mode_temporarily():
                out = original(*args, **kwargs)
            self.calls.append(Call("module", path, None, t_args, t_kwargs, self.outputs(out),
                                   None))
            return out

        return forward

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        kind, name, target = _classify(func)
        if name in _DATA_DEPENDENT:
            raise GuardOnDataDependentSymNode(
                f"Could not guard on data-dependent expression: the exported program reads a "
                f"tensor's value in Python ({name}); export cannot follow it")
        where = f"{name}()"
        t_args, t_kwargs = self.template(args, where), self.template(kwargs, where)
        out = func(*args, **kwargs)
        mutates = name.endswith("_") and not name.endswith("__") or name == "__setitem__"
        if not mutates and self.outputs_of(out) is None:
            return out
        self.calls.append(Call(kind, name, target, t_args, t_kwargs, self.outputs(out),
                               type(out) if isinstance(out, tuple) else None))
        return out

    @staticmethod
    def outputs_of(out):
        if isinstance(out, Tensor):
            return True
        if isinstance(out, (tuple, list)) and any(_Recorder.outputs_of(o) for o in out):
            return True
        return None


def flat_tensors(obj, out=None):
    """The tensors of a nested tuple/list/dict structure, in order."""
    out = [] if out is None else out
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            flat_tensors(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            flat_tensors(o, out)
    return out


def _plain_output(obj):
    """The output with each registered pytree node (a user class, such as transformers'
    DynamicCache) replaced by the list of its children: the graph returns those, and
    ``module()`` rebuilds the node from the output spec, as torch does."""
    from ..utils import _pytree

    if isinstance(obj, tuple):
        items = tuple(_plain_output(o) for o in obj)
        return type(obj)(*items) if hasattr(obj, "_fields") else items
    if isinstance(obj, list):
        return [_plain_output(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _plain_output(o) for k, o in obj.items()}
    node = _pytree.SUPPORTED_NODES.get(type(obj))
    if node is not None and not isinstance(obj, (_tensor.Tensor, slice)):
        children, _ = node.flatten_fn(obj)
        return [_plain_output(c) for c in children]
    return obj


class Trace:
    """The result of one run: the calls, the lifted constants, and the output template."""

    def __init__(self, calls, constants, output, n_known):
        self.calls, self.constants, self.output, self.n_known = calls, constants, output, n_known


def opaque_modules(module):
    """{path: submodule} of the submodules recorded as one call: the recurrent layers and
    multi-head attention, whose inner work runs inside numtorch below the functions a mode
    sees (the outermost of them only)."""
    from ..nn.modules.activation import MultiheadAttention
    from ..nn.modules.rnn import RNNBase

    if isinstance(module, (RNNBase, MultiheadAttention)):
        raise UserError(f"numtorch.export: a {type(module).__name__} is exported as one call "
                        "inside a model; wrap it in a Module of your own to export it")
    found = {}
    for path, m in module.named_modules():
        if path and isinstance(m, (RNNBase, MultiheadAttention)) and not any(
                path.startswith(p + ".") for p in found):
            found[path] = m
    return found


def _rebind(module):
    """While a mode is active the public functions are dispatching wrappers, but a model that
    took a function before (``self.act = F.gelu``, ``from torch.nn.functional import relu``
    in its file) holds the plain one, which a mode does not see. Point those names at the
    wrappers for the run: the model's attributes and the globals of the files its classes
    come from. Returns what to put back."""
    from .. import _torch_function

    wrappers = {}
    for space, name, original in _torch_function._ORIGINALS:
        now = getattr(space, name, None)
        if now is not original:
            wrappers[id(original)] = (original, now)
    spaces, seen, swaps = [], set(), []
    for sub in module.modules():
        spaces.append(vars(sub))
        home = sys.modules.get(type(sub).__module__)
        if home is not None and not home.__name__.startswith("numtorch"):
            spaces.append(vars(home))
    for space in spaces:
        if id(space) in seen:
            continue
        seen.add(id(space))
        for key, value in list(space.items()):
            hit = wrappers.get(id(value))
            if hit is not None and hit[0] is value:
                swaps.append((space, key, value))
                space[key] = hit[1]
    return swaps


def run(module, args, kwargs, known):
    """Run ``module(*args, **kwargs)`` once, recording; ``known`` lists the tensors that are
    values before the run (parameters, buffers, attribute constants, user inputs)."""
    preexisting = {id(o) for o in gc.get_objects() if issubclass(type(o), Tensor)}
    rec = _Recorder(known, preexisting)
    leaves = opaque_modules(module)
    for path, sub in leaves.items():
        sub.forward = rec.module_call(path, sub.forward)
    from .. import compiler
    from ..fx import _symbolic_trace

    was_tracing = _symbolic_trace._is_fx_tracing_flag
    _symbolic_trace._is_fx_tracing_flag = True  # (torch's is_fx_tracing() is True in export)
    compiler._exporting[0] += 1
    try:
        with rec:
            swaps = _rebind(module)
            try:
                result = module(*args, **kwargs)
            finally:
                for space, key, value in swaps:
                    space[key] = value
    finally:
        compiler._exporting[0] -= 1
        _symbolic_trace._is_fx_tracing_flag = was_tracing
        for sub in leaves.values():
            del sub.forward
    output = rec.template(_plain_output(result), "the output")
    return Trace(rec.calls, rec.constants, output, len(known)), result
