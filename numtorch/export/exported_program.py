"""``torch.export.exported_program``: the ``ExportedProgram`` class."""

from . import _graph
from .graph_signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    TensorArgument,
)


class _Range:
    """The value range of a dynamic size, printed as torch prints it."""

    def __init__(self, lower, upper):
        self.lower, self.upper = lower, upper

    def __repr__(self):
        upper = "int_oo" if self.upper == float("inf") else self.upper
        return f"VR[{self.lower}, {upper}]"

    def __eq__(self, other):
        return isinstance(other, _Range) and (self.lower, self.upper) == (other.lower,
                                                                          other.upper)

    def __hash__(self):
        return hash((self.lower, self.upper))


class ExportedProgram:
    """A module's forward captured as a graph of numtorch calls, with its state.

    Run it with :meth:`module`; the graph, signature and state are inspectable, and
    :func:`numtorch.export.save` / :func:`~numtorch.export.load` store it.
    """

    def __init__(self, parts):
        self._parts = parts
        self._lifted = None

    # -- the parts ------------------------------------------------------------------------
    @property
    def graph_module(self):
        if self._lifted is None:
            self._lifted = _graph.graph_module(self._parts, lifted=True)
        return self._lifted

    @property
    def graph(self):
        return self.graph_module.graph

    @property
    def graph_signature(self):
        p = self._parts
        inputs = [InputSpec(InputKind[s.kind], TensorArgument(s.name) if s.constant is None
                            else ConstantArgument(s.name, s.constant[0]), s.target,
                            s.persistent) for s in p.input_specs]
        names = {}
        for node in self.graph.nodes:
            names[node] = node.name
        outs = []
        out_node = next(n for n in self.graph.nodes if n.op == "output")
        for arg in _flat_nodes(out_node.args[0]):
            outs.append(OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(arg.name), None))
        return ExportGraphSignature(inputs, outs)

    @property
    def state_dict(self):
        return {s.target: self._parts.tensor_of(s) for s in self._parts.input_specs
                if s.kind in ("PARAMETER", "BUFFER")}

    @property
    def constants(self):
        return {s.target: self._parts.tensor_of(s) for s in self._parts.input_specs
                if s.kind == "CONSTANT_TENSOR"}

    @property
    def tensor_constants(self):
        return self.constants

    @property
    def example_inputs(self):
        return self._parts.example_inputs

    @property
    def range_constraints(self):
        return {f"s{i}": _Range(lo, hi)
                for i, (lo, hi) in enumerate(self._parts.group_range.values())}

    @property
    def call_spec(self):
        return None

    @property
    def verifiers(self):
        return []

    @property
    def dialect(self):
        return "TRAINING"

    def named_parameters(self):
        for s in self._parts.input_specs:
            if s.kind == "PARAMETER":
                yield s.target, self._parts.tensor_of(s)

    def parameters(self):
        for _, p in self.named_parameters():
            yield p

    def named_buffers(self):
        for s in self._parts.input_specs:
            if s.kind == "BUFFER":
                yield s.target, self._parts.tensor_of(s)

    def buffers(self):
        for _, b in self.named_buffers():
            yield b

    # -- running it -----------------------------------------------------------------------
    def module(self):
        """An ``nn.Module`` (a GraphModule) that runs the program, holding the state under its
        original names and checking its inputs' sizes as torch's guards do."""
        gm = _graph.graph_module(self._parts, lifted=False)
        gm.register_forward_pre_hook(self._parts.guard, with_kwargs=True)
        spec = self._parts.out_spec
        if spec is not None:
            from ..utils import _pytree

            gm.register_forward_hook(
                lambda m, args, out: _pytree.tree_unflatten(_pytree.tree_leaves(out), spec))
        return gm

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """The program itself: its calls are torch-level functions numtorch runs directly, so
        there is nothing to decompose."""
        return self

    def validate(self):
        return None

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use "
                           "`exported_program.module()` instead.")

    def __str__(self):
        code = self.graph_module.code.strip("\n")
        body = "\n".join("        " + line if line else "" for line in code.splitlines())
        return (f"ExportedProgram:\n    class GraphModule(torch.nn.Module):\n{body}\n\n"
                f"Graph signature: {self.graph_signature}Range constraints: "
                f"{self.range_constraints}\n")

    __repr__ = __str__


def _flat_nodes(obj):
    from ..fx.node import Node

    if isinstance(obj, Node):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [n for o in obj for n in _flat_nodes(o)]
    if isinstance(obj, dict):
        return [n for o in obj.values() for n in _flat_nodes(o)]
    return []
