"""The backward engine: iterative topological order, gradient buffers, leaf accumulation.

No recursion anywhere, so a graph of any depth works. Each node runs once, after every node
that feeds it gradient (asserted: a gradient sent to a node that already ran is an internal
error, named with both nodes); its backward runs with grad mode set to ``create_graph``.
Gradients that come back in a broadcast shape are summed down to the input's shape and cast to
the input's dtype (``_grad_shapes``), so ops never undo broadcasting themselves. When no graph
is built, the gradients meeting at one input are summed into a buffer the engine owns, in place
from the third on; arrays handed over by ops and hooks are never written.
"""

import heapq

import numpy as np

from .. import _dtype, backend
from . import _grad_shapes, _no_grad_views, graph
from ._graph_walk import needed_nodes, topological_order
from .anomaly_mode import _flags as _anomaly
from .anomaly_mode import check_gradients, warn_failed
from .grad_mode import _state
from .graph import AccumulateGrad, GradientEdge, edge_of
from .hooks import run_node_hooks, run_post_accumulate_hooks, run_pre_hooks


# one list per running backward call (nested: a reentrant checkpoint's inner backward): the
# callbacks queued while it runs (``queue_callback``), run when it finishes
_CALLBACKS = []


class _Queue(list):
    # roots: the call's root nodes; needed: the nodes it runs when it has ``inputs`` (None:
    # every node reached); both read by register_multi_grad_hook (``will_execute``)
    __slots__ = ("grad_call", "needed", "reached", "roots")

    def will_execute(self, node):
        """Whether this backward call runs ``node`` (torch's _will_engine_execute_node)."""
        if self.needed is not None:
            return node in self.needed
        if self.reached is None:
            self.reached = set(topological_order(self.roots))
        return node in self.reached


def queue_callback(fn):
    """Run ``fn()`` when the backward call now running has finished (torch's
    ``Variable._execution_engine.queue_callback``)."""
    if not _CALLBACKS:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _CALLBACKS[-1].append(fn)


def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None,
                 allow_unused=False, accumulate=True, fn_name="backward"):
    """Propagate gradients from ``outputs`` (see ``_run_backward``), then run the callbacks
    queued meanwhile."""
    queued = _Queue()
    queued.grad_call = inputs is not None and not accumulate  # autograd.grad
    queued.roots, queued.needed, queued.reached = (), None, None
    _CALLBACKS.append(queued)
    try:
        res = _run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs,
                            allow_unused, accumulate, fn_name)
    finally:
        _CALLBACKS.pop()
    while queued:  # a callback may queue another (into this same list): run them in order
        queued.pop(0)()
    return res


def _run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None,
                  allow_unused=False, accumulate=True, fn_name="backward"):
    """Propagate gradients from ``outputs``.

    With ``inputs`` None, every leaf reached gets its ``.grad`` accumulated (``backward``).
    Otherwise the gradients reaching ``inputs`` are returned (``accumulate=False``, as
    ``autograd.grad``) or accumulated into those tensors only (``backward(inputs=...)``).
    """
    if retain_graph is None:
        retain_graph = create_graph
    if not outputs:  # nothing to differentiate: no leaf is reached, every input is unused
        if inputs is None or accumulate:
            return None
        if not allow_unused and inputs:
            raise RuntimeError("The differentiated Tensor at index 0 appears to not have been "
                               "used in the graph. Set allow_unused=True if this is the "
                               "desired behavior.")
        return [None] * len(inputs)
    roots, root_grads = _roots(outputs, grad_outputs, create_graph, fn_name)
    _CALLBACKS[-1].roots = [node for node, _ in roots]
    if len(roots) == 1:  # ``loss.backward()``: one root, no loops (comprehensions are frames)
        (node, nr), = roots
        g = root_grads[0]
        # ids of arrays a leaf must copy rather than adopt as its .grad: the root gradients
        # (the caller's) and every array a leaf already adopted in this call (two leaves fed
        # one array)
        root_arrays = {id(g._array)}
        buf = [None] * node._n_out
        buf[nr] = g
        buffers = {node: buf}
    else:
        root_arrays = {id(g._array) for g in root_grads}
        buffers = {}
        for (node, nr), g in zip(roots, root_grads):
            _add_to_buffer(buffers, node, nr, g)
    prev = _state.enabled, _state.grad
    if inputs is None:
        # Every node was created after the nodes it sends gradient to, so running them in
        # decreasing creation order (a heap keyed by sequence number) is a topological order:
        # no graph walk is needed before starting.
        if len(buffers) == 1:
            heap = [(-node._seq, id(node), node)]
        else:
            heap = [(-node._seq, id(node), node) for node in buffers]
            heapq.heapify(heap)
        _state.enabled = _state.grad = create_graph  # backward runs in grad mode create_graph
        try:
            _run_all(heap, buffers, retain_graph, create_graph, root_arrays)
        finally:
            _state.enabled, _state.grad = prev
        return None

    capture = {}
    for k, t in enumerate(inputs):
        e = (t.node, t.output_nr) if isinstance(t, GradientEdge) else edge_of(t)
        if e is None:
            if accumulate:  # backward(inputs=...): torch makes each input retain its grad
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        if _no_grad_views.is_sink(e[0]):
            continue  # a no_grad view: gradient never reaches it (torch: unused)
        capture.setdefault(e[0], []).append((e[1], k))
    order = topological_order([e[0] for e in roots])
    needed = needed_nodes(order, capture)
    _CALLBACKS[-1].needed = needed
    captured = [None] * len(inputs)
    retained = set()
    owned = set()  # (node, nr) of buffer sums this call made, which it may add into in place
    _state.enabled = _state.grad = create_graph
    try:
        for node in order:
            buf = buffers.get(node)
            if buf is None or node not in needed:
                continue
            buffers[node] = _RAN  # from now on a gradient reaching it would be lost
            # autograd.grad does not run a node whose gradient is only captured (nothing it
            # feeds is needed): its tensor hooks run, its own pre-hooks do not, as in torch
            runs = accumulate or node not in capture or any(
                e is not None and e[0] in needed for e in node._edges)
            if node._pre_hooks or node._retain or node._node_pre_hooks:
                run_pre_hooks(node, buf, runs)
            if node in capture:
                for nr, k in capture[node]:
                    captured[k] = buf[nr]
                    if accumulate and node._retain and nr in node._retain \
                            and node._retain[nr]() is not None:
                        retained.add(k)  # retain_grad's hook has put it in .grad already
                if type(node) is AccumulateGrad:
                    continue
                if not runs:
                    _check_captured(node, buf)
                    continue
            elif type(node) is AccumulateGrad:
                continue
            try:
                grads_in = (node._run(buf, create_graph, root_arrays) if graph._hook is None
                            else graph._hook.node(node, buf, create_graph, root_arrays))
            except Exception as e:
                warn_failed(node)
                _grad_shapes.reraise_numpy(e)
                raise
            if node._hooks:  # its hooks see None along edges to nodes that need not run
                grads_in = tuple(g if e is not None and e[0] in needed else None
                                 for g, e in zip(grads_in, node._edges))
            _send(node, grads_in, buf, retain_graph, create_graph, buffers, None, owned)
    finally:
        _state.enabled, _state.grad = prev

    for k, g in enumerate(captured):
        if g is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {k} appears to not have "
                               "been used in the graph. Set allow_unused=True if this is the "
                               "desired behavior.")
    if accumulate:
        done = set()  # a tensor named twice in ``inputs`` gets its gradient once, as torch's
        for k, (t, g) in enumerate(zip(inputs, captured)):
            if g is not None and k not in retained and not isinstance(t, GradientEdge) \
                    and id(t) not in done:
                done.add(id(t))
                _accumulate_into(t, g, create_graph)
        return None
    return captured


def _roots(outputs, grad_outputs, create_graph, fn_name):
    """The edge each output sends gradient along, and the output gradients."""
    out = outputs[0]
    if isinstance(out, GradientEdge) or \
            len(outputs) > 1 and any(isinstance(o, GradientEdge) for o in outputs):
        return _edge_roots(outputs, grad_outputs, create_graph, fn_name)
    a = out._array
    fn = out._grad_fn
    if (fn is not None and out._base is None and grad_outputs[0] is None and len(outputs) == 1
            and (type(a) is np.ndarray or type(a) is backend.DEVICE_ARRAY and
                 backend.ONLY_DEVICE is not None) and a.size == 1 and a.dtype.kind in "fV"):
        # ``loss.backward()`` on a loss computed in the graph: ``edge_of`` and the implicit
        # gradient below, inline (on the host, or on the one GPU)
        if type(a) is np.ndarray:
            return [(fn, out._output_nr)], [graph._make(
                np.array(1, dtype=a.dtype) if a.ndim == 0 else np.ones(a.shape, dtype=a.dtype))]
        return [(fn, out._output_nr)], [graph._make(backend._CUPY.ones(a.shape, dtype=a.dtype))]
    roots = []
    for i, out in enumerate(outputs):
        e = edge_of(out)
        if e is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        roots.append(e)
    a = outputs[0]._array
    if (len(outputs) == 1 and grad_outputs[0] is None and type(a) is np.ndarray
            and a.size == 1 and a.dtype.kind in "fV"):
        # loss.backward(): the implicit gradient of a scalar (np.array is several times
        # cheaper than np.ones for a 0-d one)
        return roots, [graph._make(np.array(1, dtype=a.dtype) if a.ndim == 0 else
                                   np.ones(a.shape, dtype=a.dtype))]
    return roots, _grad_shapes.root_grads(outputs, grad_outputs, create_graph, fn_name)


def _edge_roots(outputs, grad_outputs, create_graph, fn_name):
    """``_roots`` when some outputs are graph edges (``get_gradient_edge``): an edge's
    gradient is checked against, or made from, the shape its node gives that output."""
    roots, grads = [], []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, GradientEdge):
            (e,), (g,) = _roots((out,), (g,), create_graph, fn_name)
            roots.append(e)
            grads.append(g)
            continue
        node, nr = out.node, out.output_nr
        shape, dtype = node._out_meta[nr]
        if g is None:
            if int(np.prod(shape)) != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = graph._make(np.ones(shape, dtype=dtype))
        elif tuple(g.shape) != tuple(shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"torch.Size({list(g.shape)}) and output[{i}] has a shape of "
                               f"torch.Size({list(shape)}).")
        elif (np.dtype(dtype).kind == "c") != (g._array.dtype.kind == "c"):
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required "
                               f"to have the same dtype. Mismatch in dtype: grad_output[{i}] has "
                               f"a dtype of {g.dtype} and output[{i}] has a dtype of "
                               f"{_dtype._FROM_NP[np.dtype(dtype)]}.")
        roots.append((node, nr))
        grads.append(g)
    return roots, grads


def _run_all(heap, buffers, retain_graph, create_graph, root_arrays):
    """Run every node reached from the heap's roots (plain ``backward()``: no inputs to
    capture), in decreasing creation order; the hot loop of the engine.

    Without ``create_graph``, the gradients an op's ``backward_arrays`` makes travel on as bare
    NumPy arrays (no Tensor made per edge) to the next op's ``backward_arrays`` and into a
    leaf's ``.grad``; a buffer is made of Tensors (``_as_tensors``) before anything else reads
    it: hooks, the profiler, a composed ``backward``.
    """
    pop, push = heapq.heappop, heapq.heappush
    owned = set()
    node = pop(heap)[2]
    while True:
        buf = buffers[node]
        buffers[node] = _RAN  # from now on a gradient reaching it would be lost
        if node._pre_hooks or node._retain or node._node_pre_hooks:
            run_pre_hooks(node, _as_tensors(buf))
        hook = graph._hook
        if type(node) is AccumulateGrad:
            if hook is not None or node._hooks:
                _as_tensors(buf)
            if hook is None:
                node._run(buf, create_graph, root_arrays)
            else:
                hook.node(node, buf, create_graph, root_arrays)
            if node._hooks:  # its hooks see no gradient inputs (it has no edges)
                run_node_hooks(node, (), buf)
            if not heap:
                return
            node = pop(heap)[2]
            continue
        try:
            if hook is None and not create_graph and type(node)._run is _OP_RUN and \
                    node._n_out == 1 and node.backward_arrays is not None and \
                    not _anomaly["enabled"]:
                grads_in = _first_order(node, buf[0])
            else:
                _as_tensors(buf)
                grads_in = (node._run(buf, create_graph, root_arrays) if hook is None else
                            hook.node(node, buf, create_graph, root_arrays))
        except Exception as e:
            warn_failed(node)
            _grad_shapes.reraise_numpy(e)
            raise
        if _anomaly["enabled"] or node._hooks:
            grads_in = _after_node(node, tuple(_as_tensors(list(grads_in))), _as_tensors(buf),
                                   retain_graph)
        elif not retain_graph and node._saved is not None:
            node._release()
        i = 0
        meta = node._in_meta
        # a new child while the heap is empty is the next node to run: it skips the heap
        # unless another new child joins it (a chain of nodes, the common small graph)
        nxt = None
        for e in node._edges:
            g = grads_in[i]
            if e is not None and g is not None:
                a = g if type(g) is np.ndarray else g._array
                m = meta[i]
                if a.shape != m[0] or (a.dtype is not m[1] and a.dtype != m[1]):
                    g = _grad_shapes.fit(graph._make(a) if a is g else g, m, node, i)
                child, nr = e
                b = buffers.get(child)
                if b is None:
                    b = buffers[child] = [None] * child._n_out
                    b[nr] = g
                    if nxt is None and not heap:
                        nxt = child
                    else:
                        if nxt is not None:
                            push(heap, (-nxt._seq, id(nxt), nxt))
                            nxt = None
                        push(heap, (-child._seq, id(child), child))
                elif b is _RAN:
                    _late_gradient(node, child)
                elif b[nr] is None:
                    b[nr] = g
                elif create_graph:
                    b[nr] = _plus(b[nr], g)
                else:
                    b[nr] = _accumulate(b[nr], g, owned, (child, nr))
            i += 1
        if nxt is not None:
            node = nxt
        elif heap:
            node = pop(heap)[2]
        else:
            return


def _first_order(node, g):
    """``Op._run`` for a one-output op without a graph to build (its ``backward_arrays``), the
    gradient ``g`` and the results bare NumPy arrays where they are ones (see ``_run_all``)."""
    if g is None:
        return (None,) * len(node._edges)
    res = node.backward_arrays(g if type(g) is np.ndarray else g._array)
    if type(res) is np.ndarray:
        return (res,)
    if res is NotImplemented:  # a case left to the composed backward
        res = node.backward(graph._make(g) if type(g) is np.ndarray else g)
        return res if type(res) is tuple else (res,)
    if type(res) is not tuple:
        return (_wrapped(node, res),)
    for a in res:
        if a is not None and type(a) is not np.ndarray:
            return tuple(a if a is None or type(a) is np.ndarray else _wrapped(node, a)
                         for a in res)
    return res


def _wrapped(node, a):
    """A gradient that ``backward_arrays`` gave as another array than NumPy's as a Tensor."""
    return graph._make(a if type(a) is backend.DEVICE_ARRAY else graph._as_array(node, a))


def _as_tensors(grads):
    """The list ``grads`` with its bare arrays made Tensors, in place (and returned)."""
    for i, g in enumerate(grads):
        if type(g) is np.ndarray:
            grads[i] = graph._make(g)
    return grads


_OP_RUN = graph.Op._run


def _after_node(node, grads_in, buf, retain_graph):
    """Anomaly checks, the node's hooks and freeing its saved values, after it ran."""
    if _anomaly["enabled"]:
        check_gradients(node, grads_in)
    if node._hooks:
        grads_in = run_node_hooks(node, grads_in, buf)
    if not retain_graph and node._saved is not None:
        node._release()
    return grads_in


def _send(node, grads_in, buf, retain_graph, create_graph, buffers, heap, owned):
    """Hand the gradients ``node`` produced to the buffers of the nodes its edges lead to."""
    grads_in = _after_node(node, grads_in, buf, retain_graph)
    for i, (e, g, m) in enumerate(zip(node._edges, grads_in, node._in_meta)):
        if e is None or g is None:
            continue
        a = g._array
        if a.shape != m[0] or a.dtype != m[1]:
            g = _grad_shapes.fit(g, m, node, i)
        child, nr = e
        b = buffers.get(child)
        if b is None:
            b = buffers[child] = [None] * child._n_out
            b[nr] = g
            if heap is not None:
                heapq.heappush(heap, (-child._seq, id(child), child))
        elif b is _RAN:
            _late_gradient(node, child)
        elif b[nr] is None:
            b[nr] = g
        elif create_graph:
            b[nr] = _plus(b[nr], g)
        else:
            b[nr] = _accumulate(b[nr], g, owned, (child, nr))


def _accumulate_into(t, g, create_graph):
    graph.accumulate(t, g, create_graph)  # always a copy: the captured g is returned too
    acc = t._accum
    if acc is not None and acc._post_acc_hooks and t._grad_fn is None:
        run_post_accumulate_hooks(acc, t)
    if acc is not None and acc._hooks and t._grad_fn is None:
        run_node_hooks(acc, (), [g])


def _check_captured(node, buf):
    """A gradient captured at a node that does not run still has to fit the output it is
    for (``.data`` may have changed that tensor's shape since): torch checks it as it leaves
    the op that made it."""
    for nr, (g, meta) in enumerate(zip(buf, node._out_meta)):
        if g is not None and meta is not None and tuple(g.shape) != tuple(meta[0]):
            _grad_shapes._summed_dims(tuple(g.shape), tuple(meta[0]), node, nr)


_RAN = object()  # the buffer of a node that has run (invariant: no gradient reaches it later)


def _late_gradient(node, child):
    raise AssertionError(
        f"autograd engine: {node.name()} sent a gradient to {child.name()}, which has already "
        f"run; every node must be created after the nodes it sends gradient to (creation "
        f"order {node._seq} -> {child._seq}). Running it again would apply its backward twice.")


def _plus(old, new):
    """The sum of a buffered gradient and a newly arrived one, either maybe sparse: a sparse
    gradient goes on the right of a dense one (dense + sparse is dense) and two sparse ones
    concatenate newest first, as torch's input buffers add them."""
    if type(old) is not graph.Tensor and old.is_sparse:
        return new + old
    return old + new


def _accumulate(prev, g, owned, key):
    """``prev + g`` for a gradient buffer when no graph is built: the first sum makes a new
    array, which later gradients are added into in place (the engine owns it; an array handed
    in by an op or a hook may be shared, so it is never written)."""
    if type(prev) is np.ndarray:  # (bare arrays from the first-order path)
        prev = graph._make(prev)
    if type(g) is np.ndarray:
        g = graph._make(g)
    if type(prev) is not graph.Tensor or type(g) is not graph.Tensor:
        if prev.is_sparse or g.is_sparse:  # (an embedding's sparse=True gradient)
            owned.discard(key)
            return _plus(prev, g)
    a = prev._array
    if key in owned and a.dtype.kind in "fc":
        (np if type(a) is np.ndarray else backend.xp_of(a)).add(a, g._array, out=a)
        return prev
    owned.add(key)
    b = g._array
    if type(a) is np.ndarray and type(b) is np.ndarray and a.dtype is b.dtype and \
            a.shape == b.shape:
        r = a + b  # what ``prev + g`` gives here (no graph), without the op
        return graph._make(r if type(r) is np.ndarray else np.asarray(r))  # 0-d: a scalar
    dev = backend.DEVICE_ARRAY
    if type(a) is dev and type(b) is dev and a.dtype is b.dtype and a.shape == b.shape and \
            backend.ONLY_DEVICE is not None:
        contiguous = backend.DEVICE_C_CONTIGUOUS
        if contiguous(a) and contiguous(b):  # the op's result: row-major, as CuPy's sum is
            return graph._make(a + b)
    return prev + g


def _add_to_buffer(buffers, node, nr, g):
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node._n_out
    buf[nr] = g if buf[nr] is None else _plus(buf[nr], g)
