"""Intermediate outputs of a model through torch.fx (``torchvision.models.feature_extraction``).

The model is traced twice, in training and in evaluation mode (a model may compute
differently in the two). Every recorded node gets a *qualified name*: the path of the module
it was recorded in, then, for anything but a submodule call, the node's own name, numbered
within that module (``layer1.0.add``, ``layer1.0.relu_1``). ``get_graph_node_names`` lists
these names; ``create_feature_extractor`` returns a module whose output is a dict of the
chosen nodes' values, with everything they do not depend on removed.

numtorchvision's ``ops`` modules are leaves and its ``ops`` functions single nodes, as in
torchvision.
"""

import inspect
import math
import re
import warnings
from collections import OrderedDict

import numtorch.fx as fx
from numtorch import nn

__all__ = ["create_feature_extractor", "get_graph_node_names"]

_SUFFIX = re.compile(r"^(.+)_([0-9]+)$")


class LeafModuleAwareTracer(fx.Tracer):
    """A tracer that also keeps instances of ``leaf_modules`` (a keyword argument: a list of
    module classes) as single ``call_module`` nodes."""

    def __init__(self, *args, **kwargs):
        self.leaf_modules = tuple(kwargs.pop("leaf_modules", ()))
        super().__init__(*args, **kwargs)

    def is_leaf_module(self, m, module_qualname):
        if self.leaf_modules and isinstance(m, self.leaf_modules):
            return True
        return super().is_leaf_module(m, module_qualname)


class NodePathTracer(LeafModuleAwareTracer):
    """Records the qualified name of every node it creates in ``node_to_qualname``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.current_module_qualname = ""
        self.node_to_qualname = OrderedDict()
        self._last_index = {}  # base name -> the number given to its latest use

    def call_module(self, m, forward, args, kwargs):
        outer = self.current_module_qualname
        try:
            path = self.path_of_module(m)
            self.current_module_qualname = path
            if not self.is_leaf_module(m, path):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", path, args, kwargs)
        finally:
            self.current_module_qualname = outer

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, *rest,
                     **more):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr, *rest, **more)
        self.node_to_qualname[proxy.node] = self._qualname(proxy.node)
        return proxy

    def _qualname(self, node):
        base = self.current_module_qualname
        if node.op != "call_module":
            base = f"{base}.{node.name}" if base else node.name
        # fx numbers repeated names across the whole graph; the number here counts within
        # the module, so fx's number (any trailing _<int>) is dropped and a local one given
        match = _SUFFIX.match(base)
        if match is not None:
            base = match.group(1)
        index = self._last_index.get(base)
        self._last_index[base] = 0 if index is None else index + 1
        return base if index is None else f"{base}_{index + 1}"


def _ops_namespace():
    from .. import ops

    return ops


def _leaf_modules_for_ops():
    ops = _ops_namespace()
    return [v for v in vars(ops).values() if inspect.isclass(v) and issubclass(v, nn.Module)]


def _tracer_kwargs(user_kwargs):
    """torchvision's defaults: ``math`` and ``ops`` autowrapped, ``ops`` modules leaves;
    the caller's ``tracer_kwargs`` are added to them."""
    kwargs = dict(user_kwargs or {})
    modules = (math, _ops_namespace())
    kwargs["autowrap_modules"] = tuple(dict.fromkeys(
        modules + tuple(kwargs.get("autowrap_modules", ()))))
    kwargs["leaf_modules"] = list(dict.fromkeys(
        _leaf_modules_for_ops() + list(kwargs.get("leaf_modules", []))))
    return kwargs


def _trace(model, training, tracer_kwargs, concrete_args):
    model.train(training)
    tracer = NodePathTracer(**tracer_kwargs)
    graph = tracer.trace(model, concrete_args=concrete_args)
    return tracer, graph


def _is_subsequence(short, long):
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def _warn_if_different(train_names, eval_names):
    if train_names == eval_names:
        return
    if _is_subsequence(eval_names, train_names):
        detail = ("The nodes obtained by tracing the model in eval mode are a subsequence of "
                  "those obtained in train mode. ")
    elif _is_subsequence(train_names, eval_names):
        detail = ("The nodes obtained by tracing the model in train mode are a subsequence of "
                  "those obtained in eval mode. ")
    else:
        detail = "The nodes obtained by tracing the model in train mode are different to those "\
                 "obtained in eval mode. "
    warnings.warn("NOTE: " + detail + "When choosing nodes for feature extraction, you may "
                  "need to specify output nodes for train and eval mode separately.")


def get_graph_node_names(model, tracer_kwargs=None, suppress_diff_warning=False,
                         concrete_args=None):
    """The qualified names of the nodes of ``model``'s graph, as traced in training and in
    evaluation mode: the names ``create_feature_extractor`` accepts.

    Args:
        model (nn.Module): the model.
        tracer_kwargs (dict, optional): more arguments for the tracer (``leaf_modules``,
            ``autowrap_modules``, ``autowrap_functions``); added to the defaults.
        suppress_diff_warning (bool): do not warn when the two graphs differ.
        concrete_args (dict, optional): passed to the tracer.

    Returns:
        (list of str, list of str): the training-mode names and the evaluation-mode names.
    """
    kwargs = _tracer_kwargs(tracer_kwargs)
    was_training = model.training
    try:
        train_tracer, _ = _trace(model, True, kwargs, concrete_args)
        eval_tracer, _ = _trace(model, False, kwargs, concrete_args)
    finally:
        model.train(was_training)
    train_names = list(train_tracer.node_to_qualname.values())
    eval_names = list(eval_tracer.node_to_qualname.values())
    if not suppress_diff_warning:
        _warn_if_different(train_names, eval_names)
    return train_names, eval_names


class DualGraphModule(fx.GraphModule):
    """A GraphModule with one graph for training and one for evaluation; ``train()`` and
    ``eval()`` switch between them.

    Args:
        root (nn.Module): the module the graphs' submodules and attributes come from.
        train_graph (Graph), eval_graph (Graph): the two graphs.
        class_name (str): the name of the module's class.
    """

    def __init__(self, root, train_graph, eval_graph, class_name="GraphModule"):
        nn.Module.__init__(self)
        type(self).__name__ = class_name
        type(self).__qualname__ = class_name
        self.train_graph = train_graph
        self.eval_graph = eval_graph
        targets = {n.target for g in (train_graph, eval_graph) for n in g.nodes
                   if n.op in ("get_attr", "call_module")}
        # shallow paths first, so that a copied parent is not replaced by a child's copy
        for target in sorted(targets, key=lambda t: t.count(".")):
            fx.graph_module._copy_attr(root, self, target)
        self.training = root.training
        self.meta = {}
        self._tracer_cls = None
        self.graph = train_graph if self.training else eval_graph

    def train(self, mode=True):
        if mode is not self.training or not hasattr(self, "_code"):
            self.graph = self.train_graph if mode else self.eval_graph
        return super().train(mode)


def _as_dict(nodes):
    if nodes is None:
        return None
    if isinstance(nodes, (list, tuple)):
        return OrderedDict((str(n), str(n)) for n in nodes)
    return OrderedDict((str(k), str(v)) for k, v in nodes.items())


def _check_return_node_args(return_nodes, train_return_nodes, eval_return_nodes):
    if return_nodes is None and train_return_nodes is None and eval_return_nodes is None:
        raise ValueError("Either `return_nodes` or `train_return_nodes` and "
                         "`eval_return_nodes` together, should be specified")
    if (train_return_nodes is None) != (eval_return_nodes is None):
        raise ValueError("If any of `train_return_nodes` and `eval_return_nodes` are "
                         "specified, then both should be specified")
    if (return_nodes is None) == (train_return_nodes is None):
        raise ValueError("If `train_return_nodes` and `eval_return_nodes` are specified, "
                         "then both should be specified")


def _select_outputs(graph, tracer, wanted, mode):
    """Replace ``graph``'s output by a dict of the nodes ``wanted`` names (query -> output
    name); a query naming a module stands for the last node recorded inside it."""
    names = list(tracer.node_to_qualname.values())
    for query in wanted:
        if not any(n == query or n.startswith(query + ".") for n in names):
            raise ValueError(f"node: '{query}' is not present in model. Hint: use "
                             "`get_graph_node_names` to make sure the `return_nodes` you "
                             "specified are present. It may even be that you need to specify "
                             "`train_return_nodes` and `eval_return_nodes` separately.")
    pending = OrderedDict(wanted)
    found = []  # (output name, node), last node first
    for node in reversed(graph.nodes):
        qualname = tracer.node_to_qualname.get(node)
        if qualname is None:
            continue
        for query, out_name in pending.items():
            if qualname == query or qualname.startswith(query + "."):
                found.append((out_name, node))
                del pending[query]
                break
        if not pending:
            break
    for node in [n for n in graph.nodes if n.op == "output"]:
        graph.erase_node(node)
    graph.output(OrderedDict(reversed(found)))
    graph.eliminate_dead_code()
    graph.lint()
    return graph


def create_feature_extractor(model, return_nodes=None, train_return_nodes=None,
                             eval_return_nodes=None, tracer_kwargs=None,
                             suppress_diff_warning=False, concrete_args=None):
    """A module returning intermediate values of ``model`` as a dict.

    Args:
        model (nn.Module): the model.
        return_nodes (list or dict, optional): qualified node names (see
            ``get_graph_node_names``), or a dict from those to the keys of the output. A
            module's name stands for the last node recorded inside it.
        train_return_nodes, eval_return_nodes (list or dict, optional): separate choices for
            training and evaluation mode (both or neither, instead of ``return_nodes``).
        tracer_kwargs (dict, optional): more arguments for the tracer.
        suppress_diff_warning (bool): do not warn when the two modes' graphs differ.
        concrete_args (dict, optional): passed to the tracer.

    Returns:
        GraphModule: its ``forward`` returns ``{output name: tensor}`` in graph order.
    """
    _check_return_node_args(return_nodes, train_return_nodes, eval_return_nodes)
    kwargs = _tracer_kwargs(tracer_kwargs)
    wanted = {"train": _as_dict(train_return_nodes if return_nodes is None else return_nodes),
              "eval": _as_dict(eval_return_nodes if return_nodes is None else return_nodes)}
    was_training = model.training
    graphs, names = {}, {}
    try:
        for mode in ("train", "eval"):
            tracer, graph = _trace(model, mode == "train", kwargs, concrete_args)
            names[mode] = list(tracer.node_to_qualname.values())
            graphs[mode] = _select_outputs(graph, tracer, wanted[mode], mode)
    finally:
        model.train(was_training)
    if not suppress_diff_warning:
        _warn_if_different(names["train"], names["eval"])
    module = DualGraphModule(model, graphs["train"], graphs["eval"],
                             class_name=type(model).__name__)
    module.train(was_training)
    return module
