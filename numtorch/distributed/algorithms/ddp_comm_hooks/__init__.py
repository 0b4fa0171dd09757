"""``torch.distributed.algorithms.ddp_comm_hooks``: hooks that replace DDP's gradient
all-reduce (``model.register_comm_hook(state, hook)``)."""

import enum
from functools import partial

from . import default_hooks

__all__ = ["DDPCommHookType", "default_hooks", "register_ddp_comm_hook"]


class DDPCommHookType(enum.Enum):
    """The stock hooks by name, for :func:`register_ddp_comm_hook`."""

    ALLREDUCE = partial(lambda model, state: model.register_comm_hook(
        state, default_hooks.allreduce_hook))
    FP16_COMPRESS = partial(lambda model, state: model.register_comm_hook(
        state, default_hooks.fp16_compress_hook))
    BF16_COMPRESS = partial(lambda model, state: model.register_comm_hook(
        state, default_hooks.bf16_compress_hook))


def register_ddp_comm_hook(comm_hook_type, model, state=None):
    """Register the stock hook ``comm_hook_type`` on the DDP ``model``."""
    comm_hook_type.value(model=model, state=state)
