"""The backward engine: iterative topological order, gradient buffers, leaf accumulation.

No recursion anywhere, so a graph of any depth works. Each node runs once, after every node
that feeds it gradient; its backward runs with grad mode set to ``create_graph``. Gradients that
come back in a broadcast shape are summed down to the input's shape here, and cast to the
input's dtype, so ops never undo broadcasting themselves.
"""

import heapq

import numpy as np

from .. import _dtype, backend
from . import graph
from .graph import AccumulateGrad, GradientEdge, edge_of
from .anomaly_mode import _flags as _anomaly, check_gradients
from .grad_mode import _state
from .hooks import run_node_hooks, run_post_accumulate_hooks, run_pre_hooks


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def make_root_grads(outputs, grad_outputs, create_graph, fn_name):
    """Check/complete the output gradients (implicit ones only for scalar outputs)."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._array.dtype.kind not in "fcV":
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs "
                                   f"but got {out.dtype}")
            g = graph._make(_ones_like(out._array))
        else:
            if not isinstance(g, graph.Tensor):
                raise TypeError(f"{fn_name}: grad_outputs must be Tensors or None, but got "
                                f"{type(g).__name__}")
            if g._array.shape != out._array.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"torch.Size({_shape_str(g.shape)}) and output[{i}] has a "
                                   f"shape of torch.Size({_shape_str(out.shape)}).")
        grads.append(g)
    return grads


def _ones_like(a):
    if type(a) is np.ndarray:
        return np.ones(a.shape, dtype=a.dtype)
    return backend.xp_of(a).ones(a.shape, dtype=a.dtype)


def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None,
                 allow_unused=False, accumulate=True, fn_name="backward"):
    """Propagate gradients from ``outputs``.

    With ``inputs`` None, every leaf reached gets its ``.grad`` accumulated (``backward``).
    Otherwise the gradients reaching ``inputs`` are returned (``accumulate=False``, as
    ``autograd.grad``) or accumulated into those tensors only (``backward(inputs=...)``).
    """
    if retain_graph is None:
        retain_graph = create_graph
    roots = []
    for i, out in enumerate(outputs):
        e = edge_of(out)
        if e is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        roots.append(e)
    out0 = outputs[0]
    if (len(outputs) == 1 and grad_outputs[0] is None and type(out0._array) is np.ndarray
            and out0._array.size == 1 and out0._array.dtype.kind in "fcV"):
        # loss.backward(): the implicit gradient of a scalar
        root_grads = [graph._make(np.ones(out0._array.shape, dtype=out0._array.dtype))]
    else:
        root_grads = make_root_grads(outputs, grad_outputs, create_graph, fn_name)
    root_arrays = [id(g._array) for g in root_grads]

    capture = None
    if inputs is not None:
        capture = {}
        for k, t in enumerate(inputs):
            e = tuple(t) if isinstance(t, GradientEdge) else edge_of(t)
            if e is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            capture.setdefault(e[0], []).append((e[1], k))

    buffers = {}
    if capture is None:
        # Every node was created after the nodes it sends gradient to, so running them in
        # decreasing creation order (a heap keyed by sequence number) is a topological order:
        # no graph walk is needed before starting.
        heap = []
        for (node, nr), g in zip(roots, root_grads):
            if node not in buffers:
                heapq.heappush(heap, (-node._seq, id(node), node))
            _add_to_buffer(buffers, node, nr, g)
        order, needed = _drain(heap), None
    else:
        heap = None
        order = _topological_order([e[0] for e in roots])
        needed = _needed(order, capture)
        for (node, nr), g in zip(roots, root_grads):
            _add_to_buffer(buffers, node, nr, g)

    captured = [None] * (len(inputs) if inputs is not None else 0)
    prev = _state.enabled, _state.grad
    _state.enabled = _state.grad = create_graph  # backward runs in grad mode create_graph
    try:
        for node in order:
            buf = buffers.pop(node, None)
            if buf is None or (needed is not None and node not in needed):
                continue
            if node._pre_hooks or node._retain or node._node_pre_hooks:
                run_pre_hooks(node, buf)
            if capture is not None and node in capture:
                for nr, k in capture[node]:
                    captured[k] = buf[nr]
                if type(node) is AccumulateGrad:
                    continue
            elif type(node) is AccumulateGrad:
                if capture is None and graph._hook is None:
                    node._run(buf, create_graph, root_arrays)
                elif capture is None:
                    graph._hook.node(node, buf, create_graph, root_arrays)
                continue
            grads_in = (node._run(buf, create_graph, root_arrays) if graph._hook is None else
                        graph._hook.node(node, buf, create_graph, root_arrays))
            if _anomaly["enabled"]:
                check_gradients(node, grads_in)
            if node._hooks:
                grads_in = run_node_hooks(node, grads_in, buf)
            if not retain_graph and node._saved is not None:
                node._release()
            edges = node._edges
            meta = node._in_meta
            for i in range(min(len(edges), len(grads_in))):
                e = edges[i]
                if e is None:
                    continue
                g = grads_in[i]
                if g is None:
                    continue
                m = meta[i]
                a = g._array
                if a.shape != m[0] or a.dtype != m[1]:
                    g = _fit(g, m, node, i)
                child, nr = e
                b = buffers.get(child)
                if b is None:
                    b = buffers[child] = [None] * child._n_out
                    b[nr] = g
                    if heap is not None:
                        heapq.heappush(heap, (-child._seq, id(child), child))
                elif b[nr] is None:
                    b[nr] = g
                else:
                    b[nr] = b[nr] + g
    finally:
        _state.enabled, _state.grad = prev

    if inputs is None:
        return None
    for k, g in enumerate(captured):
        if g is None and not allow_unused:
            raise RuntimeError("One of the differentiated Tensors appears to not have been used "
                               "in the graph. Set allow_unused=True if this is the desired "
                               "behavior.")
    if accumulate:
        for t, g in zip(inputs, captured):
            if g is not None:
                _accumulate_into(t, g, create_graph)
        return None
    return captured


def _accumulate_into(t, g, create_graph):
    if create_graph:
        graph.warn_create_graph_cycle()
    else:
        g = graph._make(g._array.copy())
    t._grad = g if t._grad is None else t._grad + g
    acc = t._accum
    if acc is not None and acc._post_acc_hooks and t._grad_fn is None:
        run_post_accumulate_hooks(acc, t)


def _add_to_buffer(buffers, node, nr, g):
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node._n_out
    buf[nr] = g if buf[nr] is None else buf[nr] + g


def _drain(heap):
    """Pop nodes from the heap in decreasing creation order (the loop pushes new ones)."""
    pop = heapq.heappop
    while heap:
        yield pop(heap)[2]


def _topological_order(start):
    """Nodes reachable from ``start``, each after every node that sends it gradient."""
    start = list(dict.fromkeys(start))
    deps = dict.fromkeys(start, 0)  # doubles as the visited set
    stack = list(start)
    while stack:
        for e in stack.pop()._edges:
            if e is not None:
                child = e[0]
                if child in deps:
                    deps[child] += 1
                else:
                    deps[child] = 1
                    stack.append(child)
    ready = [n for n in start if deps[n] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for e in node._edges:
            if e is not None:
                child = e[0]
                d = deps[child] - 1
                deps[child] = d
                if d == 0:
                    ready.append(child)
    return order


def _needed(order, capture):
    """Nodes that lie on some path to a captured input (others need not run)."""
    needed = set(capture)
    for node in reversed(order):
        if node in needed:
            continue
        for e in node._edges:
            if e is not None and e[0] in needed:
                needed.add(node)
                break
    return needed


def _fit(g, meta, node, i):
    """Sum a broadcast gradient down to the input's shape and cast it to the input's dtype."""
    shape, np_dtype = meta
    gshape = g._array.shape
    if gshape != shape:
        g = _sum_to(g, shape, node, i)
    if g._array.dtype != np_dtype:
        want = _dtype._FROM_NP[np_dtype]
        if want._category >= _dtype._FLOAT:
            if g.dtype.is_complex and not want.is_complex:
                g = g.real
            g = g.to(want)
    return g


def _sum_to(g, shape, node, i):
    gshape = g._array.shape
    lead = len(gshape) - len(shape)
    if lead < 0:
        # a gradient with fewer dims than its input may only add leading size-1 dims
        if all(s == 1 for s in shape[:-lead]) and (not gshape or gshape == shape[-lead:]):
            return g.reshape(shape)
        _bad_grad(node, i, gshape, shape)
    dims = list(range(lead))
    for k, s in enumerate(shape):
        gs = gshape[lead + k]
        if s == gs:
            continue
        if s == 1:
            dims.append(lead + k)
        else:
            _bad_grad(node, i, gshape, shape)
    if dims:
        g = g.sum(dim=tuple(dims), keepdim=True)
    if lead:
        g = g.reshape(shape)
    elif g._array.shape != shape:
        g = g.reshape(shape)
    return g


def _bad_grad(node, i, gshape, shape):
    raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                       f"{_shape_str(gshape)} but expected shape compatible with "
                       f"{_shape_str(shape)}")
