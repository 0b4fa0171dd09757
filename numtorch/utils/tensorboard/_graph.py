"""``add_graph``: one forward call traced into a TensorBoard ``GraphDef``.

The trace uses the profiler's op hook (every ``Op.apply`` call is seen with its input and
output tensors) and forward hooks on the submodules for scope names, so the GRAPHS tab
groups ops as ``Net/Linear[fc1]/aten::addmm``. Per-op wall times go into the run metadata.
"""

import time
from functools import partial

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.config_pb2 import RunMetadata
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, NodeExecStats, StepStats
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef

from ...profiler import _recorder


def _shape_attr(tensors):
    shapes = [TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in t.shape])
              for t in tensors]
    return AttrValue(list=AttrValue.ListValue(shape=shapes))


class _Tracer:
    """The op-hook sink of one trace: nodes in call order, tensors mapped to their producer."""

    def __init__(self, model):
        self.nodes = []  # NodeDef
        self.stats = []  # NodeExecStats
        self.producer = {}  # id(tensor) -> node name
        self.keep = []  # every tensor seen, so ids stay unique during the trace
        self.scope = [type(model).__name__]
        self.params = {}
        self.counter = 0
        root = type(model).__name__
        for mname, mod in model.named_modules():
            prefix = root + "".join(f"/{type(m).__name__}[{p}]" for m, p in
                                    _chain(model, mname))
            for pname, p in mod.named_parameters(recurse=False):
                self.params[id(p)] = (f"{prefix}/{pname}", p)
            for bname, b in mod.named_buffers(recurse=False):
                if b is not None:
                    self.params[id(b)] = (f"{prefix}/{bname}", b)

    def add(self, name, op, inputs=(), outputs=(), attr=""):
        node = NodeDef(name=name, op=op, input=list(inputs))
        if outputs:
            node.attr["_output_shapes"].CopyFrom(_shape_attr(outputs))
        node.attr["attr"].CopyFrom(AttrValue(s=attr.encode()))
        self.nodes.append(node)
        for t in outputs:
            self.producer[id(t)] = name
            self.keep.append(t)

    def source(self, t):
        """The node a tensor comes from (parameters and constants get a node on first use)."""
        name = self.producer.get(id(t))
        if name is None:
            pname = self.params.get(id(t), (None,))[0]
            if pname is not None:
                self.add(pname, "prim::GetAttr", outputs=[t])
            else:
                self.counter += 1
                self.add(f"{'/'.join(self.scope)}/constant.{self.counter}", "prim::Constant",
                         outputs=[t])
            name = self.producer[id(t)]
        return name

    def op(self, hook, cls, inputs, params):
        from ..._tensor import Tensor

        start = time.perf_counter()
        out = _recorder.call_op(hook, cls, inputs, params)
        micros = int((time.perf_counter() - start) * 1e6)
        outs = [t for t in (out if type(out) is tuple else (out,)) if isinstance(t, Tensor)]
        srcs = [self.source(x) for x in inputs if isinstance(x, Tensor)]
        self.counter += 1
        name = f"{'/'.join(self.scope)}/{_recorder.aten_name(cls, out)}.{self.counter}"
        attr = ", ".join(f"{k}={v!r}" for k, v in params.items() if not k.startswith("_"))
        self.add(name, _recorder.aten_name(cls, out), srcs, outs, "{" + attr + "}")
        self.stats.append(NodeExecStats(node_name=name, all_start_micros=int(start * 1e6),
                                        all_end_rel_micros=micros))
        return out

    def node(self, node, buf, create_graph, root_arrays):
        return node._run(buf, create_graph, root_arrays)


def _chain(model, qualname):
    """(module, attribute name) pairs from ``model`` down to submodule ``qualname``."""
    out, mod = [], model
    for part in qualname.split(".") if qualname else []:
        mod = getattr(mod, part) if not part.isdigit() else mod[int(part)]
        out.append((mod, part))
    return out


def _enter(scope, label, module, inputs):
    scope.append(label)


def _leave(scope, module, inputs, output):
    scope.pop()


def graph(model, args, verbose=False):
    """Trace ``model(*args)`` and return (GraphDef, RunMetadata)."""
    from ..._tensor import Tensor
    from ...autograd.grad_mode import no_grad

    if args is None:
        args = ()
    elif not isinstance(args, (tuple, list)):
        args = (args,)
    tracer = _Tracer(model)
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            tracer.add(f"input/input.{i}", "IO Node", outputs=[a])
    handles = []
    for mname, mod in model.named_modules():
        if mod is model:
            continue
        label = f"{type(mod).__name__}[{mname.rsplit('.', 1)[-1]}]"
        handles.append(mod.register_forward_pre_hook(partial(_enter, tracer.scope, label)))
        handles.append(mod.register_forward_hook(partial(_leave, tracer.scope)))
    modes = {m: m.training for m in model.modules()}
    model.eval()  # as torch: the graph of the inference forward
    prev = _recorder.install(tracer)
    try:
        with no_grad():
            out = model(*args)
    finally:
        _recorder.uninstall(prev)
        for h in handles:
            h.remove()
        for m, mode in modes.items():
            m.training = mode
    outs = out if isinstance(out, (tuple, list)) else [out]
    for i, t in enumerate(o for o in outs if isinstance(o, Tensor)):
        tracer.add(f"output/output.{i}", "IO Node", [tracer.source(t)], [t])
    if verbose:
        for n in tracer.nodes:
            print(n.name, n.op, list(n.input))
    stats = StepStats(dev_stats=[DeviceStepStats(device="/device:CPU:0",
                                                 node_stats=tracer.stats)])
    return (GraphDef(node=tracer.nodes, versions=VersionDef(producer=22)),
            RunMetadata(step_stats=stats))
