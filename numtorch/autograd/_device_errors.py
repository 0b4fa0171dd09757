"""torch's words for tensors on two devices in one op.

torch's elementwise (TensorIterator) ops say "found at least two devices, A and B!". Ops whose
CUDA kernels check their arguments one by one name the first argument whose device differs from
the first tensor argument's, and the kernel wrapper that checked ("... but got mat2 is on cpu,
different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_mm)").
Seen on an H200 with torch 2.11: cat, mm (``x @ y`` of matrices) and index_select (an index on
the CPU: "got index is on cpu, ... wrapper_CUDA__index_select"); take, put_ and masked_select
follow the same generated check (``check_same_device``). The table maps
numtorch's op classes to the arguments torch's kernel checks, in torch's order, as positions of
numtorch's inputs.
"""

_PAIR = ("self", "mat2")


def _matmul(inputs):
    a, b = inputs[0], inputs[1]
    if a.dim() == 2 and b.dim() == 2:
        return "wrapper_CUDA_mm", list(zip(_PAIR, (a, b)))
    if a.dim() == 3 and b.dim() == 3:
        return "wrapper_CUDA_bmm", list(zip(_PAIR, (a, b)))
    return None


def _linear(inputs):
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    if x.dim() != 2:
        return None
    if b is None:  # x @ w.t()
        return "wrapper_CUDA_mm", [("self", x), ("mat2", w)]
    return "wrapper_CUDA_addmm", [("self", b), ("mat1", x), ("mat2", w)]


_CHECKED = {
    "Cat": lambda inputs: ("wrapper_CUDA_cat", [("tensors", t) for t in inputs]),
    "Stack": lambda inputs: ("wrapper_CUDA_cat", [("tensors", t) for t in inputs]),  # via cat
    "MatMul": _matmul,
    "LinearFused": _linear,
    "Embedding": lambda inputs: ("wrapper_CUDA__index_select",
                                 [("self", inputs[0]), ("index", inputs[1])]),
    "Gather": lambda inputs: ("wrapper_CUDA_gather", [("self", inputs[0]), ("index", inputs[1])]),
}


def argument_mismatch(cls, inputs):
    """torch's message for ``cls`` run on ``inputs`` (tensors on two devices), or None where
    torch words it as its elementwise ops do."""
    from .._tensor import Tensor

    rule = _CHECKED.get(cls._op_cls.__name__ if cls._op_cls is not None else cls.__name__)
    checked = rule and rule([x for x in inputs if isinstance(x, Tensor)] if cls.__name__ in ("Cat", "Stack")
                            else inputs)
    if not checked:
        return None
    wrapper, args = checked
    return _first_mismatch(wrapper, args)


def _first_mismatch(wrapper, args):
    from .._tensor import Tensor

    common = None
    for name, t in args:
        if not isinstance(t, Tensor) or (t.device.type == "cpu" and t.dim() == 0):
            continue
        if common is None:
            common = t.device
        elif t.device != common:
            return (f"Expected all tensors to be on the same device, but got {name} is on "
                    f"{t.device}, different from other tensors on {common} (when checking "
                    f"argument in method {wrapper})")
    return None


def check_same_device(op, *args):
    """Raise torch's error for the ``(name, tensor)`` arguments of the CUDA kernel of ``op``
    (``index_select``...) when they lie on two devices and the first is a GPU's: ops whose
    index is a plain array in numtorch (no graph input) and so escape the graph's check. A
    CPU first argument is left to the op (torch's CPU kernels word their own errors)."""
    first = args[0][1]
    if first.device.type == "cpu":
        return
    message = _first_mismatch(f"wrapper_CUDA__{op}", args)
    if message is not None:
        raise RuntimeError(message)
