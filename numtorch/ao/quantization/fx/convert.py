"""Convert a prepared (observed) GraphModule: observers become ``quantize_per_tensor`` calls,
conv/linear/batch norm modules become quantized modules, ``add``/``mul``/``F.linear`` become
``torch.ops.quantized`` calls, and values leaving the quantized region are dequantized."""

import numtorch as torch
from numtorch.fx import Node

from ..quantize import _is_activation_post_process
from ..utils import _parent_name
from . import _op_kinds
from .graph_module import QuantizedGraphModule
from .prepare import STATE_KEY

__all__ = ["convert"]


def _static_module_class(float_cls):
    from numtorch.ao.nn import intrinsic as nni
    from numtorch.ao.nn import quantized as nnq
    from numtorch.ao.nn.intrinsic import quantized as nniq

    nn = torch.nn
    return {nn.Conv1d: nnq.Conv1d, nn.Conv2d: nnq.Conv2d, nn.Conv3d: nnq.Conv3d,
            nn.Linear: nnq.Linear, nni.ConvReLU1d: nniq.ConvReLU1d,
            nni.ConvReLU2d: nniq.ConvReLU2d, nni.ConvReLU3d: nniq.ConvReLU3d,
            nni.LinearReLU: nniq.LinearReLU, nn.ConvTranspose1d: nnq.ConvTranspose1d,
            nn.ConvTranspose2d: nnq.ConvTranspose2d,
            nn.ConvTranspose3d: nnq.ConvTranspose3d}.get(float_cls)


def _conv_args(inner):
    """The constructor arguments of a (transposed) conv like ``inner``."""
    if isinstance(inner, torch.nn.modules.conv._ConvTransposeNd):
        return (inner.in_channels, inner.out_channels, inner.kernel_size, inner.stride,
                inner.padding, inner.output_padding, inner.groups, inner.bias is not None,
                inner.dilation, inner.padding_mode)
    return (inner.in_channels, inner.out_channels, inner.kernel_size, inner.stride,
            inner.padding, inner.dilation, inner.groups, inner.bias is not None,
            inner.padding_mode)


def _quantize_weight(weight, observer):
    """The weight quantized with the observer's parameters (no clamping to the observer's
    range, as torch's reference modules do)."""
    scale, zero_point = observer.calculate_qparams()
    if observer.qscheme in (torch.per_channel_symmetric, torch.per_channel_affine):
        return torch.quantize_per_channel(weight, scale.to(torch.double),
                                          zero_point.to(torch.int64), observer.ch_axis,
                                          observer.dtype)
    return torch.quantize_per_tensor(weight, float(scale), int(zero_point), observer.dtype)


def _draw_reference_init(fmod):
    """torch converts through a reference module built like the float one, whose
    initialisation draws from the random generator; draw the same so that random numbers
    after ``convert_fx`` match torch's."""
    from numtorch.ao.nn.intrinsic import _FusedModule

    inner = fmod[0] if isinstance(fmod, _FusedModule) else fmod
    if isinstance(inner, torch.nn.Linear):
        torch.nn.Linear(inner.in_features, inner.out_features, inner.bias is not None)
    else:
        type(inner)(*_conv_args(inner))


def _quantized_weighted(fmod, weight_post_process, out_scale, out_zero_point):
    """The static quantized module of float (possibly fused) conv/linear ``fmod``."""
    from numtorch.ao.nn.intrinsic import _FusedModule

    qcls = _static_module_class(type(fmod))
    inner = fmod[0] if isinstance(fmod, _FusedModule) else fmod
    weight_post_process(inner.weight)
    qweight = _quantize_weight(inner.weight.detach().float(), weight_post_process)
    if isinstance(inner, torch.nn.Linear):
        qmod = qcls(inner.in_features, inner.out_features, dtype=weight_post_process.dtype)
    else:
        qmod = qcls(*_conv_args(inner))
    bias = inner.bias  # the Parameter itself, as torch packs it
    qmod.set_weight_bias(qweight, bias)
    qmod.scale = float(out_scale)
    qmod.zero_point = int(out_zero_point)
    return qmod


class _Converter:
    def __init__(self, model, state):
        self.model = model
        self.graph = model.graph
        self.modules = dict(model.named_modules(remove_duplicate=False))
        self.matches = state.matches if state is not None else {}
        self.qconfigs = state.node_name_to_qconfig if state is not None else {}
        self.scopes = state.node_name_to_scope if state is not None else {}
        self.quantized = set()  # nodes whose value is a quantized tensor
        self.dequantized = {}  # quantized node -> its dequantize node
        self.qparam_nodes = {}  # observer node -> (scale get_attr, zero point get_attr)
        self.created_buffers = []
        self.erased = set()
        self.obs_index = {}  # observer node -> its position among observer nodes
        self.value_index = {}  # quantized value -> index of the observer it stands for

    # ---- helpers ------------------------------------------------------------------------
    def is_observer(self, n):
        return isinstance(n, Node) and n.op == "call_module" and \
            _is_activation_post_process(self.modules[n.target])

    def observer_users(self, node):
        return [u for u in node.users if self.is_observer(u)]

    def new_buffer(self, prefix, value):
        prefix = prefix.replace(".", "_")
        i = 0
        while hasattr(self.model, f"{prefix}{i}"):
            i += 1
        name = f"{prefix}{i}"
        self.model.register_buffer(name, value.detach().clone() if isinstance(
            value, torch.Tensor) else torch.tensor(value))
        self.created_buffers.append(name)
        return name

    def qparams_for(self, obs_node, before):
        """get_attr nodes of the scale and zero point of an activation observer (created once,
        named after the module the observed value comes from)."""
        if obs_node in self.qparam_nodes:
            return self.qparam_nodes[obs_node]
        observed = obs_node.args[0]
        observer = self.modules[obs_node.target]
        scale, zero_point = observer.calculate_qparams()
        if observer.qscheme in (torch.per_tensor_affine, torch.per_tensor_symmetric):
            scale, zero_point = torch.tensor(float(scale)), torch.tensor(int(zero_point))
        if self.qconfigs.get(observed.name, 0) is None:
            users = list(obs_node.users)
            first = next((u for u in users if u.op == "call_function"
                          and u.target is torch.nn.functional.linear),
                         users[0] if users else None)
            prefix = "_input"
        else:
            first, prefix = observed, ""
        module_path = self.scopes.get(first.name, ("", None))[0] if first is not None else ""
        scale_name = self.new_buffer(module_path + prefix + "_scale_", scale)
        zp_name = self.new_buffer(module_path + prefix + "_zero_point_", zero_point)
        with self.graph.inserting_before(before):
            nodes = (self.graph.get_attr(scale_name), self.graph.get_attr(zp_name))
        self.qparam_nodes[obs_node] = nodes
        return nodes

    def erase(self, node):
        self.graph.erase_node(node)
        self.erased.add(node)

    def drop_observer(self, obs_node, replacement):
        obs_node.replace_all_uses_with(replacement)
        self.erase(obs_node)

    def dequantize_inputs(self, node):
        def visit(a):
            if isinstance(a, (list, tuple)):
                return type(a)(visit(x) for x in a)
            if isinstance(a, dict):
                return {k: visit(v) for k, v in a.items()}
            if isinstance(a, Node) and a in self.quantized:
                dq = self.dequantized.get(a)
                if dq is None:
                    k = self.value_index.get(a)
                    name = "dequantize" if not k else f"dequantize_{k}"
                    with self.graph.inserting_after(a):
                        dq = self.graph.create_node("call_method", "dequantize", (a,),
                                                    name=name)
                    self.dequantized[a] = dq
                return dq
            return a

        if _is_tensor_metadata(node):  # size()/shape read the quantized tensor directly
            node.args = (node.args[0], *visit(node.args[1:]))
        else:
            node.args = visit(node.args)
        node.kwargs = visit(node.kwargs)

    def set_module(self, target, module):
        parent, name = _parent_name(target)
        setattr(self.modules[parent], name, module)
        self.modules[target] = module

    # ---- per node -----------------------------------------------------------------------
    def convert_observer(self, node):
        observer = self.modules[node.target]
        src = node.args[0]
        if self.skip_observer(node):
            self.drop_observer(node, src)
            return
        if src in self.quantized:
            # the output observer of a lowered op, or one shared with its input (torch
            # numbers its scale/zero point attributes too, then drops them)
            if observer.dtype in (torch.quint8, torch.qint8):
                self.qparams_for(node, node)
            self.drop_observer(node, src)
            return
        dtype = observer.dtype
        if getattr(observer, "is_dynamic", False) or dtype not in (torch.quint8, torch.qint8):
            self.drop_observer(node, src)
            return
        if src.op == "get_attr":  # an F.linear weight: packed when its user is lowered
            return
        scale_node, zp_node = self.qparams_for(node, node)
        with self.graph.inserting_before(node):
            q = self.graph.create_node("call_function", torch.quantize_per_tensor,
                                       (src, scale_node, zp_node, dtype),
                                       name=self.indexed("quantize_per_tensor",
                                                         self.q_index.get(node)))
        self.quantized.add(q)
        self.value_index[q] = self.obs_index.get(node)
        self.drop_observer(node, q)

    def lower(self, node, match):
        kind = match.kind
        if kind == "weighted":
            self.lower_weighted(node, match)
        elif kind == "binary":
            self.lower_binary(node, match)
        elif kind == "f_lowered":
            self.lower_f_lowered(node)
        else:
            self.lower_f_linear(node, match)

    def lower_structural(self, node):
        """torch's rule for the ops it knows work on quantized values: between a dequantize
        and a quantize (a quantized first input, an output observer), the op runs on the
        quantized tensor (or becomes its quantized module); otherwise it runs in float."""
        kind = _op_kinds.special_kind(node, self.modules)
        first = node.args[0] if node.args else next(iter(node.kwargs.values()), None)
        if isinstance(first, (list, tuple)):
            quantized_in = bool(first) and all(a in self.quantized for a in first)
        else:
            quantized_in = isinstance(first, Node) and first in self.quantized
        obs_users = [u for u in self.observer_users(node)
                     if self.modules[u.target].dtype in (torch.quint8, torch.qint8)
                     and not getattr(self.modules[u.target], "is_dynamic", False)]
        if kind is None or not quantized_in or not obs_users:
            self.dequantize_inputs(node)
            return
        if kind == "unsupported":
            raise NotImplementedError(
                f"numtorch's FX graph mode quantization cannot lower "
                f"{_op_kinds.describe(_op_kinds.op_key(node, self.modules))} between quantized "
                f"values yet (torch runs its quantized kernel there); give the ops around it "
                f"a None qconfig")
        if kind == "module":
            self.lower_module(node, None)
        self.quantized.add(node)
        self.value_index[node] = self.obs_index.get(obs_users[0])

    def output_qparams(self, node, before=None):
        obs_users = self.observer_users(node)
        if not obs_users:
            raise AssertionError(f"{node.name} has no output observer")
        obs_node = obs_users[0]
        self.value_index[node] = self.obs_index.get(obs_node)
        scale_node, zp_node = self.qparams_for(obs_node, node if before is None else before)
        return obs_node, scale_node, zp_node

    def lower_weighted(self, node, match):
        from numtorch.ao.nn.intrinsic import quantized as nniq  # noqa: F401
        from numtorch.ao.nn.intrinsic.quantized import dynamic as nniqd
        from numtorch.ao.nn.quantized import dynamic as nnqd

        relu_node = node if match.relu else None
        node = self.root_of(match) if match.relu else node
        module = self.modules[node.target]
        qconfig = self.qconfigs.get(node.name)
        if hasattr(module, "weight_fake_quant"):  # QAT: back to float, then quantize
            weight_post_process = module.weight_fake_quant
            module = module.to_float()
            self.set_module(node.target, module)
        else:
            weight_post_process = qconfig.weight()
        _draw_reference_init(module)
        if match.style == "static":
            # a ReLU of the pattern is dropped: the output range (after it) clips instead
            obs_node, _, _ = self.output_qparams(relu_node or node, before=node.next)
            scale, zero_point = self.modules[obs_node.target].calculate_qparams()
            qmod = _quantized_weighted(module, weight_post_process, scale, zero_point)
            self.set_module(node.target, qmod)
            self.quantized.add(node)
            if relu_node is not None:
                self.value_index[node] = self.value_index.get(relu_node)
                relu_node.replace_all_uses_with(node)
                self.erase(relu_node)
            return
        from numtorch.ao.nn import intrinsic as nni

        module.qconfig = qconfig
        qcls = nnqd.Linear
        if isinstance(module, nni.LinearReLU):
            qcls = nniqd.LinearReLU
            module[0].qconfig = qconfig
        self.set_module(node.target, qcls.from_float(module))

    def lower_module(self, node, match):
        from ..quantization_mappings import get_default_static_quant_module_mappings

        module = self.modules[node.target]
        obs_node, _, _ = self.output_qparams(node)
        module.activation_post_process = self.modules[obs_node.target]
        module.qconfig = self.qconfigs.get(node.name)
        from numtorch.ao.nn import quantized as nnq

        # torch's FX lowering also maps Softmax (not in the eager default mapping)
        qcls = {torch.nn.Softmax: nnq.Softmax, **get_default_static_quant_module_mappings()}[
            type(module)]
        qmod = qcls.from_float(module)
        del module.activation_post_process
        self.set_module(node.target, qmod)

    def replace_with_call(self, node, root, target, args):
        with self.graph.inserting_before(node):
            new = self.graph.call_function(target, tuple(args))
        obs_users = self.observer_users(node)
        if obs_users:
            self.value_index[new] = self.obs_index.get(obs_users[0])
        node.replace_all_uses_with(new)
        self.erase(node)
        if root is not node:
            self.erase(root)
        self.quantized.add(new)
        return new

    def lower_binary(self, node, match):
        root = self.root_of(match)
        op = _op_kinds.tables()["binary"][root.target]
        q = torch.ops.quantized
        fn = {("add", False): q.add, ("add", True): q.add_relu, ("mul", False): q.mul,
              ("mul", True): q.mul_relu}[(op, match.relu)]
        if match.num_tensor_args == 2:
            _, scale_node, zp_node = self.output_qparams(node)
            args = [root.args[0], root.args[1], scale_node, zp_node]
        else:  # tensor and number, in the order written (torch's op takes either)
            args = list(root.args[:2])
        self.replace_with_call(node, root, fn, args)

    def lower_f_lowered(self, node):
        """A functional op (hardswish, elu, ...) becomes its ``torch.ops.quantized`` op with
        the output observer's grid as keywords."""
        name, skip = _op_kinds.tables()["f_lowered"][node.target]
        _, scale_node, zp_node = self.output_qparams(node)
        kwargs = {k: v for k, v in node.kwargs.items() if k not in skip}
        kwargs.update(output_scale=scale_node, output_zero_point=zp_node)
        with self.graph.inserting_before(node):
            new = self.graph.call_function(getattr(torch.ops.quantized, name), node.args,
                                           kwargs)
        self.value_index[new] = self.value_index.get(node)
        node.replace_all_uses_with(new)
        self.erase(node)
        self.quantized.add(new)

    def lower_f_linear(self, node, match):
        root = self.root_of(match)
        x = root.args[0]
        weight_arg = root.args[1] if len(root.args) > 1 else root.kwargs["weight"]
        bias = root.args[2] if len(root.args) > 2 else root.kwargs.get("bias")
        weight_obs = weight_arg if self.is_observer(weight_arg) else None
        weight_attr = weight_obs.args[0] if weight_obs is not None else weight_arg
        weight = getattr_path(self.model, weight_attr.target).detach().float()
        bias_value = getattr_path(self.model, bias.target) if isinstance(bias, Node) else bias
        # the bias Parameter itself, as torch packs it
        q = torch.ops.quantized
        if match.style == "dynamic_fp16":
            packed = q.linear_prepack_fp16(weight, bias_value)
        else:
            observer = self.modules[weight_obs.target]
            self.qparams_for(weight_obs, root)  # torch numbers the weight's parameters too
            packed = q.linear_prepack(_quantize_weight(weight, observer), bias_value)
        prefix = self.scopes.get(root.name, ("", None))[0].replace(".", "_") + "_packed_weight_"
        i = 0
        while hasattr(self.model, f"{prefix}{i}"):
            i += 1
        setattr(self.model, f"{prefix}{i}", packed)
        with self.graph.inserting_before(root):
            packed_node = self.graph.get_attr(f"{prefix}{i}")
        # the F.linear node itself becomes the quantized call (it keeps its name)
        if match.style == "static":
            _, scale_node, zp_node = self.output_qparams(node, before=root)
            root.target = q.linear_relu if match.relu else q.linear
            root.args = (x, packed_node, scale_node, zp_node)
            self.value_index[root] = self.value_index.get(node)
            self.quantized.add(root)
        elif match.style == "dynamic":
            reduce_range = torch.backends.quantized.engine in ("fbgemm", "x86")
            root.target = q.linear_relu_dynamic if match.relu else q.linear_dynamic
            root.args = (x, packed_node, reduce_range)
        else:
            root.target = q.linear_dynamic_fp16
            root.args = (x, packed_node)
        root.kwargs = {}
        if node is not root:
            node.replace_all_uses_with(root)
            self.erase(node)
        if weight_obs is not None:
            self.drop_observer(weight_obs, weight_attr)

    def root_of(self, match):
        for n in self.graph.nodes:
            if n.name == match.root:
                return n
        raise AssertionError(f"pattern root {match.root} not found")

    # ---- driver -------------------------------------------------------------------------
    @staticmethod
    def indexed(base, k):
        return base if not k else f"{base}_{k}"

    def skip_observer(self, obs_node):
        """torch drops (without quantizing) an observer whose input and users all have a
        None qconfig."""
        return all(n.name in self.qconfigs and self.qconfigs[n.name] is None
                   for n in [obs_node.args[0], *obs_node.users])

    def number_observers(self):
        """The index torch's quantize/dequantize node names get for each observer: one
        dequantize per converted observer, one ``quantize_per_tensor`` per per-tensor one."""
        self.obs_index, self.q_index = {}, {}
        n_dq = n_q = 0
        for n in self.graph.nodes:
            if not self.is_observer(n) or self.skip_observer(n):
                continue
            observer = self.modules[n.target]
            dynamic = getattr(observer, "is_dynamic", False)
            if observer.dtype not in (torch.quint8, torch.qint8, torch.float16) and not dynamic:
                continue
            self.obs_index[n] = n_dq
            n_dq += 1
            per_channel = getattr(observer, "qscheme", None) in (
                torch.per_channel_affine, torch.per_channel_symmetric)
            if observer.dtype in (torch.quint8, torch.qint8) and not dynamic and \
                    not per_channel:
                self.q_index[n] = n_q
                n_q += 1

    def run_weight_observers(self):
        """torch observes ``F.linear`` weights once more at convert time (so an uncalibrated
        model still gets weight parameters): run the nodes that produce each weight."""
        from numtorch.fx import Graph, GraphModule, map_arg

        for node in list(self.graph.nodes):
            if node.op != "call_function" or node.target is not torch.nn.functional.linear:
                continue
            weight = node.args[1] if len(node.args) > 1 else node.kwargs.get("weight")
            if not isinstance(weight, Node):
                continue
            producers, frontier = [weight], [weight]
            while frontier and producers is not None:
                cur = frontier.pop()
                for arg in list(cur.args) + list(cur.kwargs.values()):
                    if not isinstance(arg, Node):
                        continue
                    if arg.op == "placeholder":
                        producers = None
                        break
                    producers.append(arg)
                    if not (arg.op == "call_function" and arg.target is getattr):
                        frontier.append(arg)
            if producers is None:
                continue
            graph, env = Graph(), {}

            def load(a, env=env):
                return map_arg(a, env.__getitem__)

            for producer in reversed(producers):
                env[producer] = graph.node_copy(producer, load)
            graph.output(env[producers[0]])
            GraphModule(self.model, graph)()

    def run(self):
        self.run_weight_observers()
        self.number_observers()
        for node in list(self.graph.nodes):
            if node in self.erased:
                continue
            if node.op in ("placeholder", "get_attr"):
                continue
            if self.is_observer(node):
                self.convert_observer(node)
                continue
            if node.op == "output":
                self.dequantize_inputs(node)
                continue
            match = self.matches.get(node.name)
            if match is not None and match.style is not None and \
                    match.kind in ("weighted", "binary", "f_linear", "f_lowered"):
                if node.name == match.last:
                    self.lower(node, match)
                continue  # the root of a two-node pattern waits for its last node
            if node.op == "call_module" and hasattr(self.modules[node.target],
                                                    "weight_fake_quant"):
                self.set_module(node.target, self.modules[node.target].to_float())
            self.lower_structural(node)
        return self.finish()

    def finish(self):
        self.graph.eliminate_dead_code()
        self.graph.lint()
        used = {n.target for n in self.graph.nodes if n.op in ("get_attr", "call_module")}
        for name in self.created_buffers:
            if name not in used:
                delattr(self.model, name)
        for name, module in list(self.model._modules.items()):
            if name not in used and _is_activation_post_process(module):
                delattr(self.model, name)
        model = QuantizedGraphModule(self.model, self.model.graph)
        model.meta = self.model.meta
        model.training = self.model.training
        for module in model.modules():
            if hasattr(module, "qconfig"):
                del module.qconfig
        model.meta.pop(STATE_KEY, None)
        self.model = model
        return model


def _is_tensor_metadata(node):
    if node.op == "call_function" and node.target is getattr:
        return node.args[1] == "shape"
    return node.op == "call_method" and node.target in ("shape", "size")


def getattr_path(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def convert(model, is_reference=False):
    """Convert the prepared GraphModule ``model`` in place and return it."""
    state = model.meta.get(STATE_KEY)
    if is_reference:
        from .convert_reference import ReferenceConverter

        return ReferenceConverter(model, state).run()
    return _Converter(model, state).run()
