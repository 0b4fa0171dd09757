"""``torch.func``: composable function transforms (vmap, grad, vjp, jvp, jacrev, jacfwd,
hessian, linearize) and functional module calls.

``vmap`` is a real batching transform: the function runs once, on BatchedTensors, and every
op runs once on the whole batch through a batching rule (``_rules.py``). The autodiff
transforms call the autograd engine on the batch's physical tensors (``_grad.py``).
"""

from ._functional_call import functional_call, stack_module_state
from ._rearrange import rearrange
from ._grad import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._vmap import vmap

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "linearize", "functional_call", "stack_module_state", "functionalize",
           "replace_all_batch_norm_modules_", "debug_unwrap", "rearrange"]


def functionalize(func, *, remove="mutations"):
    """Return ``func`` unchanged: numtorch runs in-place ops on real arrays, so there are no
    mutations to trace away (the results are the same as torch's functionalized function).

    Args:
        func (callable): the function.
        remove (str): ``"mutations"`` or ``"mutations_and_views"``.
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument "
                           f"for remove={remove}. Valid options are:\n     remove='mutations': "
                           f"all inputs and outputs to the function will be wrapped\n     "
                           f"remove='mutations_and_views': all inputs and outputs will be "
                           f"wrapped, and view ops will be replaced")
    return func


def replace_all_batch_norm_modules_(root):
    """Make every batch-norm module under ``root`` use batch statistics only (no running
    statistics), so it can run under ``vmap``; returns ``root``."""
    from ..nn.modules.batchnorm import _BatchNorm

    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root


def debug_unwrap(tensor, *, recurse=True):
    """The physical tensor under a BatchedTensor (its batch dims first); other tensors come
    back unchanged."""
    from ._batched import physical

    return physical(tensor)[0]
