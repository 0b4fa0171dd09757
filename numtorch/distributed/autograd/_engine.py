"""Distributed backward: local backward on each worker, gradients sent back along the RPCs.

Backward on a worker computes the gradients of every leaf its roots reach. Leaves that are
tensors received in a message ("recv" points) pass their gradient back to the sender, which
continues backward from the tensor it sent; other leaves add theirs into the context.

During one distributed backward a local graph may be reached again from another send point,
so each local pass keeps its graph and records the nodes it walked; when the whole pass is
done and ``retain_graph`` is False, every worker that took part frees those nodes, so a second
backward through them fails as torch's does. An error on a worker reaches the caller as
``Error on Node <rank>: ...``, one prefix per worker it passed through (torch's wording).
"""

from . import _context


def _walk(roots):
    """The leaves ``roots`` reach and the graph nodes met on the way."""
    seen, out = set(), []
    stack = []
    for r in roots:
        if r.grad_fn is None:
            if r.requires_grad and id(r) not in seen:
                seen.add(id(r))
                out.append(r)
        else:
            stack.append(r.grad_fn)
    visited = {}
    while stack:
        node = stack.pop()
        if node is None or id(node) in visited:
            continue
        visited[id(node)] = node
        var = getattr(node, "variable", None)
        if var is not None and type(node).__name__ == "AccumulateGrad":
            if id(var) not in seen:
                seen.add(id(var))
                out.append(var)
            continue
        for nxt, _ in getattr(node, "next_functions", ()):
            if nxt is not None:
                stack.append(nxt)
    return out, visited.values()


def _rank():
    from ..rpc import _state

    return _state.agent().rank


def run_backward(ctx, roots, grads):
    """Backward from ``roots`` (with cotangents ``grads``) inside ``ctx`` on this worker.

    Returns:
        set: the ranks of the workers this pass ran on (this one included).

    Raises:
        RuntimeError: ``Error on Node <rank>: <what failed here or further on>``.
    """
    import numtorch

    from ..rpc import api

    leaves, nodes = _walk(roots)
    with ctx.lock:
        ctx.pass_nodes.update((id(n), n) for n in nodes)
    workers = {_rank()}
    try:
        graph_roots = [(r, g) for r, g in zip(roots, grads) if r.grad_fn is not None]
        results = [None] * len(leaves)
        if graph_roots:
            outs = numtorch.autograd.grad([r for r, _ in graph_roots], leaves,
                                          grad_outputs=[g for _, g in graph_roots],
                                          retain_graph=True, allow_unused=True)
            results = list(outs)
    except RuntimeError as e:
        raise RuntimeError(f"Error on Node {_rank()}: {e}") from None
    # a root that is itself a leaf receives its cotangent directly
    for r, g in zip(roots, grads):
        if r.grad_fn is None and r.requires_grad:
            i = next(k for k, leaf in enumerate(leaves) if leaf is r)
            results[i] = g if results[i] is None else results[i] + g
    pending = []
    for leaf, g in zip(leaves, results):
        if g is None:
            continue
        rec = ctx.recvs.get(id(leaf))
        if rec is not None and rec[0] is leaf:
            pending.append(api.rpc_async(rec[1], _backward_from_send,
                                         args=(ctx.id, rec[2], g.detach())))
        else:
            ctx.accumulate(leaf, g.detach())
    failure = None
    for f in pending:
        error, ranks = f.wait()
        workers |= ranks
        failure = failure or error
    if failure is not None:
        raise RuntimeError(f"Error on Node {_rank()}: {failure}")
    return workers


def _backward_from_send(context_id, msg_id, grad):
    """A gradient for a tensor this worker sent: ``(error text or None, ranks reached)``
    (the error travels as a value so the caller can prefix it without the RPC's wrapping)."""
    ctx = _context.lookup(context_id)
    with ctx.lock:
        t = ctx.sends[msg_id]
    try:
        return None, run_backward(ctx, [t], [grad])
    except RuntimeError as e:
        return str(e), {_rank()}


def _free_pass(context_id):
    """Free the saved values of the graph nodes the finished pass walked on this worker."""
    ctx = _context.get_or_create(context_id)
    with ctx.lock:
        nodes, ctx.pass_nodes = list(ctx.pass_nodes.values()), {}
    for node in nodes:
        if getattr(node, "_saved", None) is not None:
            node._release()


def backward(context_id, roots, retain_graph=False):
    """Run distributed backward from ``roots`` in context ``context_id``; unless
    ``retain_graph``, the graphs it went through are freed on every worker afterwards."""
    import numtorch

    from ..rpc import api

    ctx = _context.lookup(context_id)
    roots = list(roots)
    for i, r in enumerate(roots):
        if not isinstance(r, numtorch.Tensor):
            raise TypeError(f"backward expects a list of tensors as roots, got "
                            f"{type(r).__name__} at position {i}")
        if not r.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        if r.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
    grads = [numtorch.ones_like(r).detach() for r in roots]
    workers = {_rank()}
    try:
        workers = run_backward(ctx, roots, grads)
    finally:
        if not retain_graph:
            _free_pass(context_id)
            me = _rank()
            for w in workers - {me}:
                try:
                    api.rpc_sync(w, _free_pass, args=(context_id,))
                except RuntimeError:  # a worker that left has nothing to free any more
                    pass


def _rref_backward_on_owner(rref, context_id, retain_graph):
    value = rref.local_value()
    if context_id == -1:
        value.backward(retain_graph=retain_graph)
    else:
        backward(context_id, [value], retain_graph)


def rref_backward(rref, context_id, retain_graph):
    """``RRef.backward``: backward from the owner's tensor (local, or distributed in a context)."""
    from ..rpc import api

    if rref.is_owner():
        return _rref_backward_on_owner(rref, context_id, retain_graph)
    return api.rpc_sync(rref._owner_id, _rref_backward_on_owner,
                        args=(rref, context_id, retain_graph))
