"""Fusion on a traced graph: conv/linear/batch norm followed by batch norm and/or ReLU become
one fused module (batch norm folded in eval mode, ``ConvBn*`` modules for QAT)."""

import numtorch as torch

from ..fuser_method_mappings import (
    fuse_conv_bn,
    fuse_conv_bn_relu,
    fuse_convtranspose_bn,
    fuse_linear_bn,
)
from ..utils import _parent_name

__all__ = ["fuse"]


def _patterns():
    from numtorch.ao.nn import intrinsic as nni

    nn, F = torch.nn, torch.nn.functional
    relus = (nn.ReLU, F.relu)
    pats = []
    for conv, bn, cr in ((nn.Conv1d, nn.BatchNorm1d, nni.ConvReLU1d),
                         (nn.Conv2d, nn.BatchNorm2d, nni.ConvReLU2d),
                         (nn.Conv3d, nn.BatchNorm3d, nni.ConvReLU3d)):
        for relu in relus:
            pats.append(((conv, bn, relu), fuse_conv_bn_relu))
        pats.append(((conv, bn), fuse_conv_bn))
        for relu in relus:
            pats.append(((conv, relu), _wrap(cr)))
    for relu in relus:
        pats.append(((nn.Linear, relu), _wrap(nni.LinearReLU)))
        pats.append(((nn.BatchNorm2d, relu), _wrap(nni.BNReLU2d)))
        pats.append(((nn.BatchNorm3d, relu), _wrap(nni.BNReLU3d)))
    pats.append(((nn.Linear, nn.BatchNorm1d), fuse_linear_bn))
    for convt, bn in ((nn.ConvTranspose1d, nn.BatchNorm1d), (nn.ConvTranspose2d, nn.BatchNorm2d),
                      (nn.ConvTranspose3d, nn.BatchNorm3d)):
        pats.append(((convt, bn), fuse_convtranspose_bn))
    return pats


def _wrap(fused_cls):
    def fuser(is_qat, first, relu):
        if first.training != relu.training:
            raise AssertionError("Modules must be in the same mode (train or eval).")
        return fused_cls(first, relu)
    return fuser


def _node_is(node, op, modules):
    if isinstance(op, type):
        return node.op == "call_module" and type(modules.get(node.target)) is op
    return node.op == "call_function" and node.target is op


def _match(last, pattern, modules):
    """The nodes (first..last) of ``pattern`` ending at ``last``, or None: each earlier node
    must be the first argument of the next and have no other user."""
    nodes = [last]
    cur = last
    for op in reversed(pattern):
        if not _node_is(cur, op, modules):
            return None
        if op is not pattern[0]:
            if not cur.args or not hasattr(cur.args[0], "op"):
                return None
            prev = cur.args[0]
            if len(prev.users) > 1:
                return None
            nodes.insert(0, prev)
            cur = prev
    return nodes


def fuse(model, is_qat):
    """Fuse the module patterns of ``model`` (a GraphModule) in place and return it."""
    from numtorch import nn

    modules = dict(model.named_modules())
    patterns = sorted(_patterns(), key=lambda p: -len(p[0]))
    done = set()
    found = []
    for node in reversed(list(model.graph.nodes)):
        if node in done or node.op not in ("call_module", "call_function"):
            continue
        for pattern, fuser in patterns:
            nodes = _match(node, pattern, modules)
            if nodes is not None and not any(n in done for n in nodes):
                done.update(nodes)
                found.append((nodes, fuser))
                break
    graph = model.graph
    for nodes, fuser in found:
        mods = []
        for n in nodes:
            if n.op == "call_module":
                mods.append(modules[n.target])
            else:  # a functional relu becomes a ReLU module in the first module's mode
                relu = nn.ReLU()
                relu.training = modules[nodes[0].target].training
                mods.append(relu)
        fused = fuser(is_qat, *mods)
        parent, name = _parent_name(nodes[0].target)
        setattr(modules[parent], name, fused)
        modules[nodes[0].target] = fused
        nodes[-1].replace_all_uses_with(nodes[0])
        for n in reversed(nodes[1:]):
            graph.erase_node(n)
    graph.lint()
    return rebuild(model)


def rebuild(model):
    """A new GraphModule over ``model``'s graph holding only the modules and attributes the
    graph uses, in graph order (``meta`` kept)."""
    from numtorch.fx import GraphModule

    new = GraphModule(model, model.graph)
    new.meta = model.meta
    new.training = model.training
    return new
