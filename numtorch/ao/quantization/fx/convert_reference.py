"""``convert_to_reference_fx``: every observer becomes a quantize/dequantize pair and each
quantized conv/linear becomes its reference module (float op on a quantize/dequantize
round-tripped weight); no op is lowered to a quantized kernel."""

import numtorch as torch

from ..utils import get_qparam_dict
from .convert import _Converter, _quantized_weighted  # noqa: F401

__all__ = ["ReferenceConverter"]


def _reference_class(float_cls):
    from numtorch.ao.nn.quantized import reference as nnqr

    nn = torch.nn
    classes = {nn.Linear: nnqr.Linear, nn.Conv1d: nnqr.Conv1d, nn.Conv2d: nnqr.Conv2d,
               nn.Conv3d: nnqr.Conv3d}
    if float_cls not in classes:
        raise NotImplementedError(
            f"numtorch's convert_to_reference_fx has no reference module for "
            f"{float_cls.__name__} yet (torch's has); use convert_fx, or give it a None "
            f"qconfig")
    return classes[float_cls]


class ReferenceConverter(_Converter):
    """Builds torch's reference quantized model from a prepared GraphModule."""

    def name_observers(self):
        """torch's node names: each base (``quantize_per_tensor``, ``quantize_per_channel``,
        ``quantize_per_tensor_dynamic``, ``to``) counts on its own; one ``dequantize``
        per converted observer."""
        self.obs_index, self.q_name = {}, {}
        counts = {}
        n_dq = 0
        for n in self.graph.nodes:
            if not self.is_observer(n) or self.skip_observer(n):
                continue
            base = self.quantize_base(self.modules[n.target])
            if base is None:
                continue
            k = counts.get(base, 0)
            counts[base] = k + 1
            self.q_name[n] = self.indexed(base, k)
            self.obs_index[n] = n_dq
            n_dq += 1

    @staticmethod
    def quantize_base(observer):
        dtype = observer.dtype
        if getattr(observer, "is_dynamic", False):
            return "quantize_per_tensor_dynamic" if dtype in (
                torch.quint8, torch.qint8, torch.float16) else None
        if dtype == torch.float16:
            return "to"
        if dtype not in (torch.quint8, torch.qint8):
            return None
        per_channel = getattr(observer, "qscheme", None) in (torch.per_channel_affine,
                                                             torch.per_channel_symmetric)
        return "quantize_per_channel" if per_channel else "quantize_per_tensor"

    def convert_observer(self, node):
        observer = self.modules[node.target]
        src = node.args[0]
        if self.skip_observer(node) or node not in self.q_name:
            self.drop_observer(node, src)
            return
        dtype = observer.dtype
        name = self.q_name[node]
        if getattr(observer, "is_dynamic", False):
            reduce_range = torch.backends.quantized.engine in ("fbgemm", "x86")
            target, op = torch.quantize_per_tensor_dynamic, "call_function"
            args = (src, dtype, reduce_range)
        elif dtype == torch.float16:
            target, op, args = "to", "call_method", (src, torch.float16)
        else:
            scale_node, zp_node = self.qparams_for(node, node)
            if name.startswith("quantize_per_channel"):
                target = torch.quantize_per_channel
                args = (src, scale_node, zp_node, observer.ch_axis, dtype)
            else:
                target = torch.quantize_per_tensor
                args = (src, scale_node, zp_node, dtype)
            op = "call_function"
        with self.graph.inserting_before(node):
            q = self.graph.create_node(op, target, args, name=name)
            k = self.obs_index[node]
            dq = self.graph.create_node("call_method", "dequantize", (q,),
                                        name="dequantize" if not k else f"dequantize_{k}")
        self.drop_observer(node, dq)

    def reference_module(self, node, match):
        from numtorch.ao.nn.intrinsic import _FusedModule

        module = self.modules[node.target]
        qconfig = self.qconfigs.get(node.name)
        if hasattr(module, "weight_fake_quant"):  # QAT: back to float first
            weight_post_process = module.weight_fake_quant
            module = module.to_float()
            self.set_module(node.target, module)
        else:
            weight_post_process = qconfig.weight()
        inner = module[0] if isinstance(module, _FusedModule) else module
        weight_post_process(inner.weight)
        ref = _reference_class(type(inner)).from_float(inner,
                                                       get_qparam_dict(weight_post_process))
        if isinstance(module, _FusedModule):
            module[0] = ref
        else:
            self.set_module(node.target, ref)

    def run(self):
        self.run_weight_observers()
        self.name_observers()
        for node in list(self.graph.nodes):
            if node in self.erased or node.op in ("placeholder", "get_attr", "output"):
                continue
            if self.is_observer(node):
                self.convert_observer(node)
                continue
            match = self.matches.get(node.name)
            if match is not None and match.style is not None and match.kind == "weighted":
                self.reference_module(node, match)
            elif node.op == "call_module" and hasattr(self.modules[node.target],
                                                      "weight_fake_quant"):
                self.set_module(node.target, self.modules[node.target].to_float())
        return self.finish()
