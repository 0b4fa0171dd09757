"""``Join``: ranks that ran out of inputs keep answering the collectives of the others.

Each rank still inside the loop announces itself once per iteration through
``Join.notify_join_context`` (an all-reduce of 1 by the first joinable); a rank that has left the
loop all-reduces 0 instead, in the same slot, and runs its joinables' main hooks (which shadow
the collectives the others make) until the sum says every rank has left. The last rank to leave
is told so in the post hooks. With ``throw_on_early_termination`` the first rank to leave makes
every rank raise instead.
"""

from abc import ABC, abstractmethod
from typing import NamedTuple

import numtorch

from .. import _collectives
from ..distributed_c10d import get_rank

__all__ = ["Join", "JoinHook", "Joinable"]


class JoinHook:
    """What a joinable does while it waits for the other ranks: ``main_hook`` once per
    iteration the others run, ``post_hook`` once they are all done."""

    def main_hook(self) -> None:
        pass

    def post_hook(self, is_last_joiner: bool) -> None:
        pass


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(ABC):
    """A class whose collectives can be shadowed by ``Join``."""

    @abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs) -> JoinHook:
        ...

    @property
    @abstractmethod
    def join_device(self):
        ...

    @property
    @abstractmethod
    def join_process_group(self):
        ...


def _reduced(value, device, group, async_op=False):
    flag = numtorch.full((1,), float(value), device=device)  # default float dtype, as torch's
    work = _collectives.all_reduce(flag, group=group, async_op=async_op)
    return flag, work


class Join:
    """Context manager over ``joinables`` (hooks built with ``**kwargs``); see the module doc."""

    def __init__(self, joinables, enable=True, throw_on_early_termination=False, **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [joinable.join_hook(**kwargs) for joinable in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for i, joinable in enumerate(joinables):
            joinable._join_config = _JoinConfig(enable, throw_on_early_termination, i == 0)
        groups = {joinable.join_process_group for joinable in joinables}
        if len(groups) > 1:
            raise ValueError("Using join context manager with multiple process groups")
        first = joinables[0]
        self._process_group = first.join_process_group
        self._device = first.join_device
        self._rank = get_rank(self._process_group)

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        if not self._enable or exc_type is not None:
            return  # an exception in the loop propagates; nothing to wait for
        is_last_joiner = True
        while True:
            remaining, _ = _reduced(0, self._device, self._process_group)
            if remaining.item() == 0:
                break
            if self._throw_on_early_termination:
                _reduced(1, self._device, self._process_group)  # the others' check sees it
                raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")
            is_last_joiner = False
            for hook in self._join_hooks:
                hook.main_hook()
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)

    @staticmethod
    def notify_join_context(joinable):
        """Called by a rank still running, once per iteration; returns the async work of its
        announcement (None unless ``joinable`` is the first of an enabled ``Join``)."""
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        device, group = joinable.join_device, joinable.join_process_group
        _, work = _reduced(1, device, group, async_op=True)
        if config.throw_on_early_termination:
            someone_left, _ = _reduced(0, device, group)
            if someone_left.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. "
                                   "Throwing across all ranks.")
        return work
