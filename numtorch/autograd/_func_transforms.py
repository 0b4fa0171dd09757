"""Which ``torch.func`` transforms are running now, innermost last ("grad", "jvp", "vmap").

A custom ``autograd.Function`` behaves differently inside them (``numtorch.func.
_custom_function``); ``Function.apply`` tests this list, which lives in the leaf module
``_grad_state`` (so that ``Tensor`` can read it too), so the test costs nothing outside the
transforms."""

from .._grad_state import FUNC_EPOCHS as EPOCHS
from .._grad_state import FUNC_KINDS as KINDS
from .._grad_state import INFERENCE_ACTIVE

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
    """``with running(kind, epoch):`` marks a transform as active for its body; a grad-kind
    one (``epoch``, from ``_grad_state.next_epoch``) also numbers the tensors made in it."""

    __slots__ = ("args", "epoch", "kind")

    def __init__(self, kind, epoch=None, args=()):
        self.kind, self.epoch, self.args = kind, epoch, args

    def __enter__(self):
        KINDS.append(self.kind)
        if self.epoch is not None:
            EPOCHS.append(self.epoch)
            INFERENCE_ACTIVE[0] += 1  # (constructors then ask new_version for counters)
            if self.args:
                _PASSED[self.epoch] = {id(t) for t in self.args}

    def __exit__(self, *exc):
        leave(self.kind)
        if self.epoch is not None:
            EPOCHS.remove(self.epoch)
            INFERENCE_ACTIVE[0] -= 1
            _PASSED.pop(self.epoch, None)


# transform number -> ids of the tensors handed to func as arguments it does not differentiate
# (torch wraps every positional argument at the transform's level: func may write them)
_PASSED = {}


def mark_made_inside(t, epoch):
    """Give ``t`` (a transform's own stand-in for an input, which shares the caller's
    tensor's counter) a counter of its own numbered ``epoch``: func may write it."""
    t._vc = [t._vc[0], epoch]


# aten overload names torch's captured-write error shows, by numtorch op function name
_ATEN = {"copy_value": "copy_", "uniform_values": "uniform_", "normal_values": "normal_",
         "zero_value": "zero_", "bernoulli_values": "bernoulli_.float",
         "random_values": "random_.from", "scatter": "scatter_.value",
         "index_fill": "index_fill_.int_Scalar"}
_TENSOR_OVERLOAD = frozenset(("add", "sub", "mul", "div"))
_BY_OPERAND = {"fill": 0, "masked_fill": 1, "pow": 0, "fmod": 0, "remainder": 0, "lerp": 1,
               "eq": 0, "ne": 0, "lt": 0, "le": 0, "gt": 0, "ge": 0}


def aten_name(fn, args):
    """torch's name (``aten::add_.Tensor``) of the in-place form of numtorch op ``fn``."""
    from .._tensor import Tensor

    name = getattr(fn, "__name__", "op")
    if name == "<lambda>" or name == "_identity":  # an ``out=`` write, which torch allows,
        return None  # or vmap's write of an in-place result already checked (None: no refusal)
    if name in _ATEN:
        return _ATEN[name]
    if name in _TENSOR_OVERLOAD:
        return name + "_.Tensor"
    k = _BY_OPERAND.get(name)
    if k is not None and k < len(args):
        return name + ("_.Tensor" if isinstance(args[k], Tensor) else "_.Scalar")
    return name + "_"


def refuse_captured(t, op):
    """torch's error for an in-place write (``op``: its aten name) into a tensor made before
    the innermost grad-kind transform began (called only while one runs)."""
    if op is None or not any(k != "vmap" for k in KINDS):  # (a custom Function's rule runs
        return  # outside the transforms)
    vc = t._vc
    if (vc[1] if len(vc) > 1 else 0) < EPOCHS[-1]:
        passed = _PASSED.get(EPOCHS[-1])
        if passed and (id(t) in passed or t._base is not None and id(t._base) in passed):
            return
        raise RuntimeError(f"During a grad (vjp, jvp, grad, etc) transform, the function "
                           f"provided attempted to call in-place operation (aten::{op}) that "
                           f"would mutate a captured Tensor. This is not supported; please "
                           f"rewrite the function being transformed to explicitly accept the "
                           f"mutated Tensor(s) as inputs.")


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
