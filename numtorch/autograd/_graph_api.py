"""The public side of ``torch.autograd.graph``: saved-tensor hooks, gradient edges, versions.

``saved_tensors_hooks(pack, unpack)`` makes autograd call ``pack(tensor)`` for every tensor a
node saves for backward (inputs or outputs saved through ``Op.save_inputs`` /
``Op.save_output``, and ``ctx.save_for_backward`` of custom Functions) and keep only what it
returns; backward gets ``unpack(packed)`` back. numtorch ops also keep some derived arrays of
their own (masks, statistics), which are not tensors torch would save and are not packed.
"""

import threading
from collections import namedtuple

from .._class_repr import object_repr as _object_repr
from . import graph

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors", "increment_version", "GradientEdge", "get_gradient_edge", "Packed", "current_hooks",
           "HOOKS_ACTIVE"]


class _Stack(threading.local):
    hooks = ()  # ((pack, unpack), ...) innermost last
    disabled = None  # the error message while disable_saved_tensors_hooks is active


_stack = _Stack()
HOOKS_ACTIVE = [0]  # threads inside some saved_tensors_hooks block (checked before the stack)


def current_hooks():
    """The innermost ``(pack, unpack)`` pair of this thread, or None."""
    hooks = _stack.hooks
    return hooks[-1] if hooks else None


class Packed:
    """A saved tensor as its pack hook returned it, with the unpack hook to get it back."""

    __slots__ = ("value", "unpack")

    def __init__(self, tensor, hooks):
        pack, self.unpack = hooks
        version = tensor._vc[0]
        self.value = pack(tensor)
        if tensor._vc[0] != version:  # the op would then save (and return) altered values
            raise RuntimeError("A saved tensor pack hook is modifying its input in place. "
                               "Tensors provided as input to pack hook cannot be modified by "
                               "in-place operations as this can lead to unexpected "
                               "side-effects. Please open an issue if you need to perform "
                               "in-place operations on the input to a pack hook.")

    def tensor(self):
        t = self.unpack(self.value)
        if not isinstance(t, graph.Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(t).__name__}")
        return t


# torch's reverse-mode transforms refuse saved-tensor hooks (entered inside or active outside)
FUNC_GRAD_HOOKS = ("torch.func.{grad, vjp, jacrev, hessian} don't yet support saved tensor "
                   "hooks. Please open an issue with your use case.")


class saved_tensors_hooks:
    """Context manager: tensors saved for backward inside go through ``pack_hook`` when saved
    and ``unpack_hook`` when backward reads them.

    Args:
        pack_hook (callable): ``pack_hook(tensor) -> Any``.
        unpack_hook (callable): ``unpack_hook(packed) -> Tensor``.

    Example:
        >>> with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        ...     y = (x * x).sum()  # doctest: +SKIP
    """

    __repr__ = _object_repr  # torch's name in the default object repr

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _stack.disabled is not None:
            raise RuntimeError(_stack.disabled)
        from . import _func_transforms

        if "grad" in _func_transforms.KINDS:
            raise RuntimeError(FUNC_GRAD_HOOKS)
        _stack.hooks = _stack.hooks + ((self.pack_hook, self.unpack_hook),)
        HOOKS_ACTIVE[0] += 1
        return self

    def __exit__(self, *exc):
        _stack.hooks = _stack.hooks[:-1]
        HOOKS_ACTIVE[0] -= 1
        return False


class save_on_cpu(saved_tensors_hooks):
    """Keep tensors saved for backward on the CPU and move them back to their device when
    backward needs them.

    Args:
        pin_memory (bool): pin the CPU copies (needs an accelerator, as in torch).
        device_type (str): the device type whose tensors are moved. Default: ``'cuda'``.
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            if t.device.type == "cpu":
                return (t.device, t)
            cpu = t.detach().cpu()
            return (t.device, cpu.pin_memory() if pin_memory else cpu)

        def unpack(packed):
            dev, t = packed
            return t.to(dev, non_blocking=pin_memory)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager in which entering ``saved_tensors_hooks`` raises
    ``RuntimeError(error_message)``; entering it while such hooks are active raises that error
    at once (as torch does).

    Args:
        error_message (str): the message of that error.
    """

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _stack.hooks:
            raise RuntimeError(self.error_message)
        self._prev = _stack.disabled
        _stack.disabled = self.error_message
        return self

    def __exit__(self, *exc):
        _stack.disabled = self._prev
        return False


class _AllowMutationOnSavedContext:
    """What ``allow_mutation_on_saved_tensors`` yields: the copies kept for backward."""

    def __init__(self):
        self.closed = False

    def clear(self):
        """Forget nothing kept per tensor (numtorch keeps its copies in the graph itself)."""


_MUTATION_ACTIVE = threading.local()


class allow_mutation_on_saved_tensors:
    """Context manager: tensors saved for backward inside it may then be changed in place
    (inside it); backward, which must also run inside it, sees the values they had when saved.

    Note:
        torch copies a saved tensor only when it is about to be changed in place; numtorch has
        no single place where in-place writes pass, so it copies every tensor saved inside the
        block when it is saved (more memory, the same gradients).

    Example:
        >>> with torch.autograd.graph.allow_mutation_on_saved_tensors():
        ...     y = x.clone(); z = y.sin(); y.mul_(2); z.sum().backward()  # doctest: +SKIP
    """

    __repr__ = _object_repr  # torch's name in the default object repr

    def __enter__(self):
        if getattr(_MUTATION_ACTIVE, "on", False):
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        ctx = self._ctx = _AllowMutationOnSavedContext()

        def pack(t):
            return t.detach().clone()

        def unpack(copy):
            if ctx.closed:
                raise AssertionError("Trying to backward outside of the "
                                     "'allow_mutation_on_saved_tensors' contextin which the "
                                     "graph was originally recorded.")
            return copy

        self._hooks = saved_tensors_hooks(pack, unpack)
        self._hooks.__enter__()
        _MUTATION_ACTIVE.on = True
        return ctx

    def __exit__(self, *exc):
        _MUTATION_ACTIVE.on = False
        self._ctx.closed = True
        return self._hooks.__exit__(*exc)


def increment_version(tensor):
    """Bump the version counter of ``tensor`` (or of each tensor in an iterable), as an
    in-place change would, so autograd sees values saved before as stale."""
    for t in (tensor,) if isinstance(tensor, graph.Tensor) else tensor:
        t._vc[0] += 1


class GradientEdge(namedtuple("GradientEdge", ["node", "output_nr", "ownership_token"],
                              defaults=(None,))):
    """Where a gradient flows into the graph: ``(node, output_nr)``; ``autograd.grad`` takes
    one in place of a tensor input. (``ownership_token``: torch's field, always None here.)"""

    __slots__ = ()


def get_gradient_edge(tensor):
    """The :class:`GradientEdge` of ``tensor`` (its grad_fn, or the accumulator of a leaf)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node, nr = graph.edge_of(tensor)
    return GradientEdge(node, nr)


for _obj in (saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks,
             allow_mutation_on_saved_tensors, _AllowMutationOnSavedContext, increment_version,
             GradientEdge, get_gradient_edge):
    _obj.__module__ = "numtorch.autograd.graph"  # where torch defines them
