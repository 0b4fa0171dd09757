"""``torch.cuda.nccl``: collectives over a list of tensors, one per GPU, in one process.

numtorch runs them as device-to-device copies and sums through CuPy (no NCCL library needed):
``all_reduce`` leaves the reduction of every input in every output, ``reduce`` in the root's,
``broadcast`` copies the root's tensor to the others, ``all_gather`` concatenates, and
``reduce_scatter`` hands each output its slice of the reduction. Without CUDA the calls raise
the errors torch's CPU-only build gives.
"""

import warnings

from .. import backend

__all__ = ["all_reduce", "reduce", "broadcast", "all_gather", "reduce_scatter", "is_available",
           "version", "unique_id", "init_rank", "SUM"]

SUM = 0  # ncclRedOp_t values, as torch numbers them
_OPS = {0: "add", 1: "mul", 2: "max", 3: "min"}


def _need(name):
    if backend.cupy_or_none() is None:
        raise AttributeError(f"module 'torch._C' has no attribute '_nccl_{name}'")


def is_available(tensors):
    """True when ``tensors`` are dense, contiguous CUDA tensors on distinct GPUs."""
    if backend.cupy_or_none() is None:
        warnings.warn("PyTorch is not compiled with NCCL support", stacklevel=2)
        return False
    devices = set()
    for t in tensors:
        if t.is_sparse or not t.is_contiguous() or not t.is_cuda or t.get_device() in devices:
            return False
        devices.add(t.get_device())
    return True


def version():
    """The NCCL version CuPy was built with, as ``(major, minor, patch)``."""
    _need("version")
    code = backend.cupy_or_none().cuda.nccl.get_version()
    return code // 10000, code % 10000 // 100, code % 100


def unique_id():
    _need("unique_id")
    return backend.cupy_or_none().cuda.nccl.get_unique_id()


def init_rank(num_ranks, uid, rank):
    _need("init_rank")
    return backend.cupy_or_none().cuda.nccl.NcclCommunicator(num_ranks, uid, rank)


def _reduced(inputs, op, device):
    import numtorch

    fn = getattr(numtorch, _OPS[op])
    acc = inputs[0].to(device, copy=True)
    for t in inputs[1:]:
        acc = fn(acc, t.to(device))
    return acc


def _write(out, value):
    import numtorch

    with numtorch.no_grad():
        out.copy_(value.to(out.device))


def all_reduce(inputs, outputs=None, op=SUM, streams=None, comms=None):
    """Every output (default: the inputs, in place) gets the reduction of all inputs."""
    _need("all_reduce")
    total = _reduced(list(inputs), op, inputs[0].device)
    for out in (inputs if outputs is None else outputs):
        _write(out, total)


def reduce(inputs, output=None, root=0, op=SUM, streams=None, comms=None, *, outputs=None):
    """The root's output (default: the root input) gets the reduction of all inputs."""
    _need("reduce")
    if outputs is not None:
        output = outputs[root]
    target = inputs[root] if output is None else output
    _write(target, _reduced(list(inputs), op, target.device))


def broadcast(inputs, root=0, streams=None, comms=None):
    """Copy ``inputs[root]`` into every other input."""
    _need("broadcast")
    for i, t in enumerate(inputs):
        if i != root:
            _write(t, inputs[root])


def all_gather(inputs, outputs, streams=None, comms=None):
    """Every output gets the inputs laid end to end."""
    import numtorch

    _need("all_gather")
    for out in outputs:
        parts = [t.reshape(-1).to(out.device) for t in inputs]
        _write(out, numtorch.cat(parts).reshape(out.shape))


def reduce_scatter(inputs, outputs, op=SUM, streams=None, comms=None):
    """Output ``i`` gets slice ``i`` of the reduction of all inputs."""
    _need("reduce_scatter")
    total = _reduced(list(inputs), op, inputs[0].device).reshape(-1)
    n = outputs[0].numel()
    for i, out in enumerate(outputs):
        _write(out, total[i * n:(i + 1) * n].reshape(out.shape))
