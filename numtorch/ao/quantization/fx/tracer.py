"""``QuantizationTracer``: symbolic tracing that keeps torch.nn / torch.ao.nn modules as leaves
and records, for every node, the module it was called from (its *scope*)."""

from numtorch.fx import Tracer
from numtorch.fx._symbolic_trace import _is_numtorch_nn

__all__ = ["QuantizationTracer", "Scope", "ScopeContextManager"]


class Scope:
    """The module a traced node belongs to: its qualified path and its type."""

    def __init__(self, module_path, module_type):
        self.module_path = module_path
        self.module_type = module_type


class ScopeContextManager:
    """Makes ``scope`` describe ``current_module`` while its ``forward`` is traced."""

    def __init__(self, scope, current_module, current_module_path):
        self.scope = scope
        self.prev = (scope.module_path, scope.module_type)
        scope.module_path = current_module_path
        scope.module_type = type(current_module)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.scope.module_path, self.scope.module_type = self.prev
        return False


class QuantizationTracer(Tracer):
    """Traces a model for quantization: modules of torch.nn and torch.ao.nn (except
    ``Sequential``) and the skipped names/classes stay ``call_module`` nodes;
    ``node_name_to_scope`` maps each node name to ``(module_path, module_type)``."""

    def __init__(self, skipped_module_names, skipped_module_classes):
        super().__init__()
        self.skipped_module_names = list(skipped_module_names)
        self.skipped_module_classes = list(skipped_module_classes)
        self.scope = Scope("", None)
        self.node_name_to_scope = {}
        self.record_stack_traces = True

    def is_leaf_module(self, m, module_qualified_name):
        from numtorch import nn

        return ((_is_numtorch_nn(type(m).__module__) and not isinstance(m, nn.Sequential))
                or module_qualified_name in self.skipped_module_names
                or type(m) in self.skipped_module_classes)

    def call_module(self, m, forward, args, kwargs):
        module_qualified_name = self.path_of_module(m)
        with ScopeContextManager(self.scope, m, module_qualified_name):
            return super().call_module(m, forward, args, kwargs)

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        self.node_name_to_scope[node.name] = (self.scope.module_path, self.scope.module_type)
        return node
