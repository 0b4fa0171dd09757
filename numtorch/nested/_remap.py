"""One differentiable primitive for nested tensors: move elements between two flat layouts.

Why a primitive: every change of a nested tensor's layout (padding it, taking the valid part of
a padded result back, transposing the components) is one injective map of element positions,
``out.flat[dst] = x.flat[src]`` with the rest of ``out`` set to ``fill``. Its backward is the
same map with ``src`` and ``dst`` swapped (no position is written twice, so no scatter-add is
needed), which keeps every such change one vectorised gather/scatter and twice differentiable.
"""

from ..autograd.graph import Op


class Remap(Op):
    """``out`` of shape ``out_shape`` filled with ``fill``, then ``out.flat[dst] = x.flat[src]``."""

    def forward(self, x):
        xp = self.xp
        out = xp.full(self.out_shape, self.fill, dtype=x.dtype)
        out.reshape(-1)[xp.asarray(self.dst)] = x.reshape(-1)[xp.asarray(self.src)]
        return out

    def backward(self, grad):
        return Remap.apply(grad, src=self.dst, dst=self.src, out_shape=self.in_shape, fill=0)


def remap(x, src, dst, out_shape, fill=0, node_name="RemapBackward0"):
    """Differentiable ``out.flat[dst] = x.flat[src]`` (``src``/``dst`` int arrays, injective);
    ``node_name`` is the graph node's name (torch's for the op the map stands for)."""
    return Remap.apply(x, src=src, dst=dst, out_shape=tuple(out_shape), fill=fill,
                       in_shape=tuple(x.shape), node_name=node_name)
