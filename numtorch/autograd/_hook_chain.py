"""The op hook that chains in front of another (vmap's, dispatch modes'): an op it does not
handle itself goes to the hook below it, or runs, and backward nodes pass straight through.

A ``threading.local``: ``busy`` is each thread's own (``__init__`` runs again in every thread
that touches the hook, with the same ``prev``).
"""

import threading


class ChainedHook(threading.local):
    busy = False

    def __init__(self, prev):
        self.prev = prev

    def run_below(self, cls, inputs, params):
        """The op by the hook below (unless that one is busy inside an op), else run as is."""
        prev = self.prev
        if prev is not None and not prev.busy:
            return prev.op(cls, inputs, params)
        self.busy = True
        try:
            return cls.apply(*inputs, **params)
        finally:
            self.busy = False

    def node(self, node, buf, create_graph, root_arrays):
        if self.prev is not None:
            return self.prev.node(node, buf, create_graph, root_arrays)
        return node._run(buf, create_graph, root_arrays)
