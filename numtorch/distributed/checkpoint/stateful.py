"""``torch.distributed.checkpoint.stateful``: objects ``save``/``load`` ask for their state."""

from typing import Protocol, runtime_checkable

__all__ = ["Stateful", "StatefulT"]


@runtime_checkable
class Stateful(Protocol):
    """Anything with ``state_dict()`` and ``load_state_dict(sd)`` (modules, optimizers, a
    user's wrapper): ``save`` stores its ``state_dict()``, ``load`` hands the loaded one back
    to ``load_state_dict``."""

    def state_dict(self):
        ...

    def load_state_dict(self, state_dict):
        ...


StatefulT = Stateful
