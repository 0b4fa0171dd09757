"""Walking a graph before running it, for ``autograd.grad`` and ``backward(inputs=...)``.

Plain ``backward()`` needs no walk (the engine runs nodes in decreasing creation order from a
heap); asking for the gradients of chosen inputs does: the nodes reachable from the outputs in
an order where each comes after every node that sends it gradient, and the subset of them that
lies on a path to a chosen input (the others need not run). Both walks are iterative, so a
graph of any depth works.
"""

import heapq


def topological_order(start):
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
    # among the nodes ready to run, the latest created runs first, as in torch's engine: the
    # order in which a tensor used several times sums its gradients is then torch's (float
    # sums differ in the last bits otherwise), the same as plain ``backward()``'s
    ready = [(-n._seq, k, n) for k, n in enumerate(start) if deps[n] == 0]
    heapq.heapify(ready)
    tie = len(start)
    order = []
    while ready:
        node = heapq.heappop(ready)[2]
        order.append(node)
        for e in node._edges:
            if e is not None:
                child = e[0]
                d = deps[child] - 1
                deps[child] = d
                if d == 0:
                    tie += 1
                    heapq.heappush(ready, (-child._seq, tie, child))
    return order


def needed_nodes(order, capture):
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


def reaches_other_leaf(roots, leaves, made_after=None):
    """Whether the graph below ``roots`` (nodes or None) accumulates into a leaf tensor other
    than ``leaves``: torch.func's results stay differentiable with respect to such tensors.
    With ``made_after``, leaves that ``_grad_state.tag_func_leaf`` numbered above it (made to
    require grad inside the transform asking) do not count."""
    from .graph import AccumulateGrad

    own = {id(leaf) for leaf in leaves}
    if made_after is not None:
        own_made = own

        def counts(t):
            if t is None or id(t) in own_made:  # (None: a leaf already freed)
                return False
            n = t._extra.get("func_leaf") if t._extra else None
            return n is None or n <= made_after
    else:
        def counts(t):
            return id(t) not in own
    stack = [r for r in roots if r is not None]
    seen = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, AccumulateGrad):
            if counts(node.variable):
                return True
            continue
        stack.extend(e[0] for e in node._edges if e is not None)
    return False
