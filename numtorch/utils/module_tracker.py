"""``torch.utils.module_tracker``: which modules are running, in the forward and the backward."""

import logging
import weakref

from ..autograd import engine as _engine
from ..autograd._multi_grad import register_multi_grad_hook
from ..nn.modules._hooks import register_module_forward_hook, register_module_forward_pre_hook
from ._pytree import tree_leaves

__all__ = ["ModuleTracker"]

_log = logging.getLogger(__name__)


class ModuleTracker:
    """A context manager that keeps ``parents``, the names of the modules whose forward (or
    backward) is running now.

    A module is named after its class when first met outside a known parent, and its
    children ``"<parent name>.<child attribute>"`` (the state_dict's path under the root's
    class name). ``parents`` always holds ``"Global"``. A module enters ``parents`` when its
    forward starts and leaves when it returns; in the backward it enters when the gradient of
    one of its outputs is computed and leaves once the gradients of all its inputs that need
    one are. ``is_bw`` tells whether a backward call is running.
    """

    def __init__(self):
        self.parents = {"Global"}
        self._names = weakref.WeakKeyDictionary()
        self._named_children = weakref.WeakSet()
        self._reset_queued = False
        self._handles = []

    @property
    def is_bw(self):
        """Whether a backward pass is running now."""
        return bool(_engine._CALLBACKS)

    def _name_of(self, module):
        name = self._names.setdefault(module, type(module).__name__)
        if module not in self._named_children:
            self._named_children.add(module)
            for attr, child in module.named_children():
                self._names[child] = f"{name}.{attr}"
                self._name_of(child)
        return name

    def _after_backward(self):
        self.parents = {"Global"}
        self._reset_queued = False

    def _enter(self, name, backward):
        def enter(*_):
            if backward and not self._reset_queued:
                # once this backward call ends, nothing is running any more
                _engine.queue_callback(self._after_backward)
                self._reset_queued = True
            if name in self.parents:
                _log.info("Module %s entered again (during %s) before it was left", name,
                          "backward" if backward else "forward")
            self.parents.add(name)
        return enter

    def _leave(self, name, backward):
        def leave(*_):
            if name in self.parents:
                self.parents.discard(name)
            else:
                _log.info("Module %s left (during %s) without being entered", name,
                          "backward" if backward else "forward")
        return leave

    def _watch(self, values, fn):
        from .. import Tensor

        needing = [v for v in tree_leaves(values) if isinstance(v, Tensor) and v.requires_grad]
        if needing:
            self._handles.append(register_multi_grad_hook(needing, fn))

    def _before_forward(self, module, args):
        name = self._name_of(module)
        self._enter(name, False)()
        self._watch(args, self._leave(name, True))

    def _after_forward(self, module, args, output):
        name = self._name_of(module)
        self._leave(name, False)()
        self._watch(output, self._enter(name, True))

    def __enter__(self):
        self._pre = register_module_forward_pre_hook(self._before_forward)
        self._post = register_module_forward_hook(self._after_forward)
        return self

    def __exit__(self, *exc):
        self._pre.remove()
        self._post.remove()
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
