"""Activation checkpointing: ``torch.utils.checkpoint``.

``checkpoint(fn, *args)`` runs ``fn`` keeping none of the values its ops save for backward,
and runs it again when backward needs them. Two implementations, as in torch:

* ``use_reentrant=True`` (the default when the argument is left out, with torch's warning):
  ``fn`` runs under ``no_grad`` inside a custom Function; its backward re-runs ``fn`` with
  gradients on detached inputs and calls ``autograd.backward`` on the result, nested in the
  outer backward. Only ``.backward()`` without ``inputs`` can go through it.
* ``use_reentrant=False``: ``fn`` runs under ``saved_tensors_hooks`` whose pack hook keeps a
  small handle instead of each tensor; the first unpack re-runs ``fn`` under hooks that
  collect the tensors it saves (stopping as soon as all are back), and hands them out one by
  one. ``autograd.grad``, ``inputs=``, keyword arguments and double backward all work.

Both replay the random number generator state of the forward pass (``preserve_rng_state``),
so dropout draws the same mask when recomputed, and both re-enter the autocast state.
"""

import contextlib
import enum
import sys
import warnings

from .. import _random
from .._tensor import Tensor
from ..autograd import engine as _engine
from ..autograd._graph_api import Packed, current_hooks
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import _INFERENCE_SAVED, saved_tensors_hooks

__all__ = [
    "CheckpointError",
    "CheckpointFunction",
    "CheckpointPolicy",
    "SelectiveCheckpointContext",
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "create_selective_checkpoint_contexts",
    "detach_variable",
    "get_device_states",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
    "set_device_states",
]

_REENTRANT_WARNING = ("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint without "
                      "use_reentrant will raise an exception. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.")
_SEQUENTIAL_WARNING = ("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
                       "parameter should be passed explicitly. In version 2.9 we will raise an "
                       "exception if use_reentrant is not passed. use_reentrant=False is "
                       "recommended, but if you need to preserve the current default behavior, "
                       "you can pass use_reentrant=True. Refer to docs for more details on the "
                       "differences between the two variants.")
_GRAD_UNSUPPORTED = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with "
                     ".grad() or passing an `inputs` parameter to .backward(). To resolve this "
                     "error, you can either set use_reentrant=False, or call .backward() without "
                     "passing the `inputs` argument.")


class CheckpointError(RuntimeError):
    """Raised when the recomputation does not reproduce the values the forward pass saved."""


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an op's outputs: keep them from the forward pass
    (``*_SAVE``), compute them again in backward (``*_RECOMPUTE``) or keep them on the CPU
    (``*_CPU_OFFLOAD``); ``MUST_*`` is binding, ``PREFER_*`` a preference."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class SelectiveCheckpointContext:
    """The ``ctx`` handed to a selective-checkpoint policy function.

    Args:
        is_recompute (bool): whether the op runs in the recomputation (backward).
        op_output: the op's output, when known.
    """

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output


class _SelectiveMode:
    """One of the two context managers of ``create_selective_checkpoint_contexts``."""

    def __init__(self, policy_fn, is_recompute):
        self.policy_fn, self.is_recompute = policy_fn, is_recompute

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _CachingTorchDispatchMode(_SelectiveMode):
    """Entered around the forward pass of a selective checkpoint."""


class _CachedTorchDispatchMode(_SelectiveMode):
    """Entered around the recomputation of a selective checkpoint."""


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The ``context_fn`` pair of selective activation checkpointing: pass
    ``functools.partial(create_selective_checkpoint_contexts, policy)`` as ``context_fn`` of
    ``checkpoint(..., use_reentrant=False)``.

    Args:
        policy_fn_or_list: ``policy(ctx, op, *args, **kwargs) -> CheckpointPolicy`` (or a bool,
            True meaning save), or a list of ops (``torch.ops.aten.<op>.<overload>``) to save.
        allow_cache_entry_mutation (bool): allow saved outputs to be changed in place.

    Note:
        numtorch's checkpoint keeps no op-level record of the forward pass: it recomputes
        every saved value, so the policy is checked here but never consulted (the same
        values and gradients; the memory of a plain ``checkpoint``).
    """
    from .._ops_tree import OpOverload

    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not isinstance(op, OpOverload):  # (torch's class of error)
                raise ValueError(  # noqa: TRY004
                    f"Expected op in `op_list` to be an OpOverload but got: {op} of type "
                    f"{type(op)}. ")
        saved = list(policy_fn_or_list)

        def policy_fn(ctx, op, *args, **kwargs):
            return (CheckpointPolicy.MUST_SAVE if op in saved else
                    CheckpointPolicy.PREFER_RECOMPUTE)
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    return (_CachingTorchDispatchMode(policy_fn, False),
            _CachedTorchDispatchMode(policy_fn, True))


def noop_context_fn():
    """The default ``context_fn``: no context around the forward pass or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


_early_stop = [True]
_debug = [False]


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Within the block, whether a non-reentrant recomputation stops once every saved value
    is back (True, the default) or runs the whole function."""
    prev = _early_stop[0]
    _early_stop[0] = bool(enable)
    try:
        yield
    finally:
        _early_stop[0] = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Within the block, whether checkpoint errors carry extra detail (accepted for torch's
    API; numtorch's errors always name the mismatching tensors)."""
    prev = _debug[0]
    _debug[0] = enabled
    try:
        yield
    finally:
        _debug[0] = prev


def detach_variable(inputs):
    """Detached copies of the tensors in the tuple ``inputs`` keeping ``requires_grad``;
    other values pass through."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            d = x.detach()
            d.requires_grad = x.requires_grad
            out.append(d)
        else:
            out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    """Warn when no tensor among ``inputs`` requires grad (checkpointing then gives none)."""
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      UserWarning, stacklevel=3)


def get_device_states(*args):
    """The devices of the accelerator tensors among ``args`` and their generator states.

    numtorch draws from one default generator for every device (see ``numtorch._random``),
    which :func:`_RngState` saves; there are no separate device states.
    """
    return [], []


def set_device_states(devices, states, *, device_type=None):
    """Restore states returned by :func:`get_device_states` (none in numtorch)."""


class _RngState:
    """The generator and autocast state of a forward pass, to replay when recomputing."""

    def __init__(self, preserve):
        self.rng = _random.get_rng_state() if preserve else None
        self.autocast = _autocast_state()

    @contextlib.contextmanager
    def replay(self):
        with contextlib.ExitStack() as stack:
            if self.rng is not None:
                stack.enter_context(_random.fork_rng())
                _random.set_rng_state(self.rng)
            for ctx in self.autocast:
                stack.enter_context(ctx)
            yield


def _autocast_state():
    """Context managers re-entering the autocast modes active now."""
    from ..amp import autocast_mode as am

    out = []
    for device in ("cpu", "cuda"):
        if am.is_autocast_enabled(device):
            out.append(am.autocast(device, dtype=am.get_autocast_dtype(device)))
    return out


def _plain_backward_running():
    """True when the innermost running backward is ``.backward()`` without ``inputs``, the
    only kind a reentrant checkpoint can serve (it accumulates into ``.grad``)."""
    code = _engine.run_backward.__code__
    f = sys._getframe(1)
    while f is not None:
        if f.f_code is code:
            loc = f.f_locals
            return loc.get("inputs") is None and loc.get("accumulate", True)
        f = f.f_back
    return True


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward without a graph, backward by re-running forward."""

    # torch's is a Function of the ctx form: torch.func transforms refuse it as a user's
    _user_rules_under_transforms = True

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.state = _RngState(preserve_rng_state)
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _plain_backward_running():
            raise RuntimeError(_GRAD_UNSUPPORTED)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with ctx.state.replay(), enable_grad():
            outputs = ctx.run_function(*detached)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        from .. import autograd

        autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(d.grad if isinstance(d, Tensor) else None
                                    for d in detached)


class _Frame:
    """One non-reentrant checkpointed call: what forward saved, and the recomputed values."""

    def __init__(self, fn, args, kwargs, state, check, recompute_ctx_fn):
        self.fn, self.args, self.kwargs, self.state = fn, args, kwargs, state
        self.check = check
        self.recompute_ctx_fn = recompute_ctx_fn
        self.meta = []  # (shape, dtype, device) of each tensor forward saved
        self.values = None  # index -> recomputed tensor, once recomputed
        self.token = None  # the backward call that recomputed them
        # the positional tensor arguments and their versions: recomputing from an argument
        # changed in place since forward would give silently wrong gradients; torch keeps
        # them as saved tensors and its unpack raises, as here
        self.inputs = []
        # (position, Packed) of each positional tensor argument when saved_tensors_hooks are
        # active around the call: torch saves the arguments through them, and recomputes
        # from what the unpack hook gives back
        self.packed = []
        if is_grad_enabled():
            hooks = current_hooks()
            for i, a in enumerate(args):
                if isinstance(a, Tensor):
                    if type(a._vc) is not list:
                        raise RuntimeError(_INFERENCE_SAVED)
                    self.inputs.append((a, a._version))
                    if hooks is not None:
                        self.packed.append((i, Packed(a, hooks)))

    def pack(self, t):
        self.meta.append((tuple(t.shape), t.dtype, t.device))
        return _Handle(self, len(self.meta) - 1)

    def unpack(self, handle):
        # recomputed once per backward call: a value read again in the same call (numtorch's
        # backward of a composite may read a saved value twice) is the same value, not a
        # second run of the function, which would repeat its side effects (batch norm's
        # running statistics); another backward through a retained graph recomputes, as torch
        token = _backward_call()
        if self.values is None or self.token is not token:
            self.recompute()
            self.token = token
        return self.values[handle.index]

    def _check_inputs(self):
        from ..autograd.graph import _modified_message

        for t, version in self.inputs:
            if t._version != version:
                fn = t._grad_fn
                edge = (fn, t._output_nr) if fn is not None else None
                raise RuntimeError(_modified_message(None, t._array, 0, t._version, version,
                                                     edge=edge))

    def recompute(self):
        self._check_inputs()
        got = []
        wanted = len(self.meta)

        def pack(t):
            # early stop: at the first value beyond those forward saved, not at the last of
            # them -- an op of numtorch may save before its own in-place effects (batch norm
            # updates its running statistics after saving; torch's kernel does it before)
            if len(got) >= wanted:
                if _early_stop[0]:
                    raise _StopRecompute
                return
            got.append(t.detach())

        try:
            args = list(self.args)
            for i, packed in self.packed:
                t = packed.tensor()
                if self.args[i].requires_grad and not t.requires_grad:
                    # torch's unpacked saved tensor keeps the original's place in the graph;
                    # here it only has to record the ops again (the values go to its nodes)
                    t = t.detach()._set_requires_grad(True)
                args[i] = t
            with self.state.replay(), enable_grad(), self.recompute_ctx_fn(), \
                    saved_tensors_hooks(pack, _no_unpack):
                self.fn(*args, **self.kwargs)
        except _StopRecompute:
            pass
        if len(got) != wanted:
            raise CheckpointError(
                f"torch.utils.checkpoint: A different number of tensors was saved during the "
                f"original forward and recomputation.\nNumber of tensors saved during forward: "
                f"{wanted}\nNumber of tensors saved during recomputation: {len(got)}.")
        if self.check == "default":
            bad = [k for k, (m, t) in enumerate(zip(self.meta, got))
                   if m != (tuple(t.shape), t.dtype, t.device)]
            if bad:
                lines = "".join(
                    f"tensor at position {k}:\nsaved metadata: {_meta_str(self.meta[k])}\n"
                    f"recomputed metadata: {_meta_str(_meta_of(got[k]))}\n" for k in bad)
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have "
                    "different metadata than during the forward pass.\n" + lines)
        self.values = dict(enumerate(got))


def _backward_call():
    """What identifies the outermost backward call now running (None outside backward)."""
    from ..autograd import engine

    calls = engine._CALLBACKS
    return calls[0] if calls else None


def _meta_of(t):
    return (tuple(t.shape), t.dtype, t.device)


def _meta_str(m):
    from .._size import Size

    return f"{{'shape': {Size(m[0])!r}, 'dtype': {m[1]}, 'device': {m[2]!r}}}"


class _StopRecompute(Exception):
    """Ends a recomputation once every saved value is back."""


def _no_unpack(_):
    raise AssertionError("checkpoint: a value saved during recomputation was unpacked")


class _Handle:
    """What a checkpointed forward keeps in place of a saved tensor."""

    __slots__ = ("frame", "index")

    def __init__(self, frame, index):
        self.frame, self.index = frame, index


def _checkpoint_without_reentrant(fn, preserve_rng_state, context_fn, determinism_check,
                                  args, kwargs):
    state = _RngState(preserve_rng_state)
    forward_ctx, recompute_ctx = context_fn()
    frame = _Frame(fn, args, kwargs, state, determinism_check,
                   lambda: recompute_ctx)
    with forward_ctx, saved_tensors_hooks(frame.pack, frame.unpack):
        return fn(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, preserve_rng_state=True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its intermediate values for backward;
    backward recomputes them by running it again.

    Args:
        function (callable): the computation to checkpoint (it should run the same ops when
            run again).
        *args: its arguments (tensors and other values).
        use_reentrant (bool): which implementation (see the module docstring). Leaving it out
            warns, as torch does, and picks True.
        context_fn (callable): returns two context managers, entered around the forward pass
            and around the recomputation (non-reentrant only).
        determinism_check (str): ``"default"`` compares the shape, dtype and device of every
            recomputed value with the original; ``"none"`` skips that.
        debug (bool): accepted for torch's API (non-reentrant only).
        preserve_rng_state (bool): replay the generator state when recomputing, so random
            ops draw the same values. Default: True.
        **kwargs: keyword arguments of ``function`` (non-reentrant only).

    Returns:
        What ``function`` returns.

    Example:
        >>> lin = torch.nn.Linear(4, 4)
        >>> x = torch.randn(2, 4, requires_grad=True)
        >>> y = torch.utils.checkpoint.checkpoint(lin, x, use_reentrant=False)
        >>> y.sum().backward()
    """
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, context_fn,
                                         determinism_check, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules (or functions) in ``segments`` chunks, checkpointing every
    chunk but the last.

    Args:
        functions (Sequential or list): the steps, applied one after another.
        segments (int): the number of chunks.
        input (Tensor): the input of the first step.
        use_reentrant (bool): as in :func:`checkpoint` (leaving it out warns).
        preserve_rng_state (bool, keyword): as in :func:`checkpoint`.

    Returns:
        The output of the last step.
    """
    if use_reentrant is None:
        warnings.warn(_SEQUENTIAL_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn.modules.container import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    functions = list(functions)
    size = len(functions) // segments
    if size == 0:
        raise ValueError("range() arg 3 must not be zero")

    def run(start, end):
        def forward(x):
            for f in functions[start:end + 1]:
                x = f(x)
            return x
        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)

