"""Which ``torch.func`` transforms are running now, innermost last ("grad", "jvp", "vmap").

A custom ``autograd.Function`` behaves differently inside them (``numtorch.func.
_custom_function``); ``Function.apply`` tests this list, which lives in the leaf module
``_grad_state`` (so that ``Tensor`` can read it too), so the test costs nothing outside the
transforms."""

from .._grad_state import FUNC_KINDS as KINDS

LINEARIZING = [0]  # >0 while a forward-mode transform runs its linearizing backward pass


class linearizing:
    """``with linearizing():`` marks the backward pass by which ``torch.func``'s forward-mode
    transforms build ``u -> J^T u``: a custom Function with a ``jvp`` then answers with the
    transpose of its ``jvp`` instead of its ``backward`` (``autograd.function``)."""

    __slots__ = ()

    def __enter__(self):
        LINEARIZING[0] += 1

    def __exit__(self, *exc):
        LINEARIZING[0] -= 1


class running:
    """``with running(kind):`` marks a transform as active for its body."""

    __slots__ = ("kind",)

    def __init__(self, kind):
        self.kind = kind

    def __enter__(self):
        KINDS.append(self.kind)

    def __exit__(self, *exc):
        leave(self.kind)


def leave(kind):
    """Drop the latest ``kind`` (transforms need not end in the order they began: a vmap
    level is re-entered while a backward runs)."""
    for i in range(len(KINDS) - 1, -1, -1):
        if KINDS[i] == kind:
            del KINDS[i]
            return


def refuse_backward():
    """torch's error for ``backward()`` inside a transform (``grad``, ``vjp``, ``vmap``...):
    it would accumulate into ``.grad`` across the transform's levels."""
    if KINDS:
        raise RuntimeError("backward() called inside a functorch transform. This is not "
                           "supported, please use functorch.grad or functorch.vjp instead or "
                           "call backward() outside of functorch transforms.")
