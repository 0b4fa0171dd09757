"""The grad-mode state that ``Tensor``'s constructor and every op read (a leaf module).

``autograd.grad_mode`` holds the switches that change it (``no_grad``, ``inference_mode``...)
and re-exports these names; they live here so that ``numtorch._tensor`` imports no part of
``autograd`` (which imports ``Tensor``).
"""

import threading

from . import _fp_errors


class _State(threading.local):
    enabled = True  # ops record: grad mode on and inference mode off
    grad = True  # grad mode as the user set it
    inference = False

    def __init__(self):
        # runs once per thread, on its first op: NumPy's error state is per context and a new
        # thread starts from NumPy's defaults, so numtorch's silent callback is set here too
        _fp_errors.install()


_state = _State()

# how many threads are inside inference mode: tensor constructors look here first, so that
# outside inference mode they pay one list read instead of a thread-local lookup
INFERENCE_ACTIVE = [0]

_INPLACE_MESSAGE = ("Inplace update to inference tensor outside InferenceMode is not allowed."
                    "You can make a clone to get a normal tensor before doing inplace update."
                    "See https://github.com/pytorch/rfcs/pull/17 for more details.")


class InferenceVersion(list):
    """The version counter of an inference tensor (and of its views).

    Torch's inference tensors have no version counter and may not be updated in place outside
    inference mode; every in-place path bumps ``_vc[0]`` after writing, so the refusal lives
    here, and (as in torch) comes after the values were written.
    """

    __slots__ = ()

    def __setitem__(self, i, value):
        if not _state.inference:
            raise RuntimeError(_INPLACE_MESSAGE)
        list.__setitem__(self, i, value)


# the torch.func transforms running now (``autograd._func_transforms.KINDS``, kept here so that
# a leaf made to require grad inside one can be told apart without importing autograd)
FUNC_KINDS = []
_FUNC_LEAVES = [0]


def tag_func_leaf(t):
    """Number ``t``, made to require grad while a torch.func transform runs: the transform's
    results stay differentiable only with respect to leaves made before it began, as torch's
    (whose leaves made inside live at the transform's own level)."""
    _FUNC_LEAVES[0] += 1
    if t._extra is None:
        t._extra = {}
    t._extra["func_leaf"] = _FUNC_LEAVES[0]


def func_leaf_count():
    """How many leaves ``tag_func_leaf`` numbered so far."""
    return _FUNC_LEAVES[0]


# the grad-kind torch.func transforms (grad, vjp, jvp and those built on them) running now,
# innermost last, each by a number taken from ``_EPOCH`` when it began; while any runs, new
# version counters are ``[0, number]`` (tensor constructors call ``new_version`` while
# ``INFERENCE_ACTIVE`` is non-zero, which these transforms raise too), so that a tensor made
# before the innermost one began (a "captured" tensor, whose counter is ``[v]`` or carries a
# smaller number) can be told apart: torch refuses in-place writes into those
FUNC_EPOCHS = []
_EPOCH = [0]


def next_epoch():
    """A fresh transform number (larger than every earlier one)."""
    _EPOCH[0] += 1
    return _EPOCH[0]


def new_version():
    """A fresh version counter: an ``InferenceVersion`` inside inference mode; inside a
    grad-kind torch.func transform, one that carries the transform's number."""
    if _state.inference:
        return InferenceVersion((0,))
    return [0, FUNC_EPOCHS[-1]] if FUNC_EPOCHS else [0]
