"""Ops that return several views of one tensor from one graph node: ``split`` / ``chunk`` /
``split_with_sizes`` (``Split``) and ``unbind`` (``Unbind``).

Why primitives: torch records one node with an output per piece (``q.grad_fn is k.grad_fn``,
``output_nr`` 0, 1, 2), and its backward joins the pieces' gradients into one buffer, with
zeros where a piece got none. A node per piece cost a full-size zero buffer per piece and
the engine's sums of them (nanoGPT's ``q, k, v = c_attn(x).split(n_embd, 2)``: ~1 ms a step).

Each piece is tracked as a view of the input on its own (its replay is the equivalent basic
index, ``_Piece``); the ``_Piece`` step in a view's chain is how autograd knows the tensor
came out of a function returning several views, which torch forbids writing in place
(``autograd.inplace``). Such a view also remembers the version of its memory when it was
made (``stamp_multi_view``): torch refuses to use it in a graph once that changed, whichever
way it was written (under no_grad, through ``.detach()``); a version comparison is the cost.
"""

from ..autograd.graph import Op, _track_view
from .indexing import GetItem


class _Piece(GetItem):
    """One piece of a multi-view op, replayed on its own as a basic index (in-place writes
    to it, or to a view of it, are refused under grad mode)."""

    multi_output = True  # autograd.inplace refuses writes through it


class Split(Op):
    """The pieces of ``input`` of ``sizes`` along ``dim``; dx = the pieces' gradients joined.

    Parameters: ``dim`` (non-negative), ``sizes`` (a tuple summing to the size of ``dim``) and
    ``node_name`` (torch's: SplitBackward0 or SplitWithSizesBackward0).
    """

    multi_view_outputs = True  # a saved piece found changed is refused as torch's (graph.py)

    def forward(self, x):
        lead = (slice(None),) * self.dim
        out = []
        start = 0
        for s in self.sizes:
            out.append(x[lead + (slice(start, start + s), Ellipsis)])
            start += s
        return tuple(out)

    def backward(self, *grads):
        cat = _JOIN[0]
        if cat is None:  # (imported once: a function-level import costs ~1 us per call)
            from .join import cat

            _JOIN[0] = cat
        return cat(grads, self.dim)  # the engine gave zeros to pieces that got no gradient


_JOIN = [None]  # join.cat, imported on first use (import order)


class Unbind(Op):
    """Every slice of ``input`` along ``dim`` (that dim removed); dx = the gradients stacked."""

    node_name = "UnbindBackward0"
    multi_view_outputs = True

    def forward(self, x):
        lead = (slice(None),) * self.dim
        return tuple(x[lead + (i, Ellipsis)] for i in range(x.shape[self.dim]))

    def backward(self, *grads):
        from .join import stack

        return stack(grads, self.dim)


def stamp_multi_view(piece):
    """Record (the base's grad_fn, the version) as the piece's view source: edge_of sees a
    source that is not the base's grad_fn and asks ``autograd.inplace.refresh_view``, which
    compares both."""
    if piece._view_fn is not None:
        piece._view_src = (piece._view_src, piece._vc[0])


def split_pieces(input, dim, sizes, node_name):
    """``input``'s views of ``sizes`` along ``dim`` (validated by the caller), one node."""
    outs = Split.apply(input, dim=dim, sizes=tuple(sizes), node_name=node_name)
    lead = (slice(None),) * dim
    start = 0
    for o, s in zip(outs, sizes):
        _track_view(_Piece, input, o, {"index": lead + (slice(start, start + s), Ellipsis)})
        stamp_multi_view(o)
        start += s
    return outs


def unbind_pieces(input, dim):
    """Every slice of ``input`` along ``dim`` as views from one node."""
    n = input._array.shape[dim]
    if n == 0:
        return ()
    outs = Unbind.apply(input, dim=dim)
    lead = (slice(None),) * dim
    for i, o in enumerate(outs):
        _track_view(_Piece, input, o, {"index": lead + (i, Ellipsis)})
        stamp_multi_view(o)
    return outs

