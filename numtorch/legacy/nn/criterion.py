"""``Criterion``: Lua-torch's loss protocol, and the criteria that combine criteria.

``forward(input, target)`` stores the loss as a Python number in ``output``;
``backward(input, target)`` stores d(loss)/d(input) in ``gradInput``. A criterion's math is
``_loss(input, target)`` on numtorch's ops; as for modules, the graph of the last forward is
kept and reused by ``backward`` on the same input and target.
"""

import copy

from ... import autograd as _autograd
from ..._tensor import Tensor
from ...autograd.grad_mode import enable_grad
from . import _tables
from .module import _is_float, _Typed

__all__ = ["Criterion", "ParallelCriterion", "MultiCriterion"]


def _reduction(size_average):
    return "mean" if size_average else "sum"


class Criterion(_Typed):
    """Base class of the legacy criteria (Lua's ``nn.Criterion``)."""

    sizeAverage = True

    def __init__(self):
        self.gradInput = Tensor()
        self.output = 0
        self._type = self.gradInput.type()

    def forward(self, input, target):
        return self.updateOutput(input, target)

    def backward(self, input, target):
        return self.updateGradInput(input, target)

    def updateOutput(self, input, target):
        self._record(input, target)
        self.output = self._graph[-1].item()
        return self.output

    def updateGradInput(self, input, target):
        inputs = _tables.flatten(input)
        key = self._key(inputs, target)
        g = getattr(self, "_graph", None)
        if g is None or g[0] != key or any(a is not b for a, b in zip(g[1], inputs)) \
                or len(g[1]) != len(inputs):
            self._record(input, target)
            g = self._graph
        leaves, loss = g[2], g[3]
        wanted = [leaf for leaf in leaves if leaf.requires_grad]
        grads = []
        if wanted and loss.requires_grad:
            grads = list(_autograd.grad([loss], wanted, retain_graph=True, allow_unused=True))
        values = []
        for leaf in leaves:
            grad = grads.pop(0) if leaf.requires_grad and grads else None
            values.append(grad if grad is not None else leaf.detach().new_zeros(leaf.shape))
        self.gradInput = _tables.rebuild(input, values)
        return self.gradInput

    def _key(self, inputs, target):
        targets = _tables.flatten(target)
        return ([t._version for t in inputs], [id(t) for t in targets],
                [t._version for t in targets], None if targets else target)

    def _record(self, input, target):
        inputs = _tables.flatten(input)
        leaves = [t.data.requires_grad_() if _is_float(t) else t for t in inputs]
        with enable_grad():
            loss = self._loss(_tables.rebuild(input, leaves), target)
        self._graph = (self._key(inputs, target), inputs, leaves, loss)

    def _loss(self, input, target):
        raise RuntimeError(f"{type(self).__name__} defines no loss of its own")

    # -- copies (type conversions: _Typed) ---------------------------------------------------
    def clone(self):
        return copy.deepcopy(self)

    def clearState(self):
        self._graph = None
        self.gradInput = Tensor()
        return self

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_graph", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _post_load(self):
        """Complete a criterion read from a Lua file."""
        if "gradInput" not in self.__dict__:
            self.gradInput = Tensor()
        if "_type" not in self.__dict__:
            self._type = self.gradInput.type()
        for name in ("criterions", "weights"):
            value = self.__dict__.get(name)
            if isinstance(value, dict) and isinstance(self, (ParallelCriterion,
                                                               MultiCriterion)):
                self.__dict__[name] = [value[k] for k in sorted(value)]

    def __repr__(self):
        return f"nn.{type(self).__name__}"


def _scaled(table, weight):
    return _tables.rebuild(table, [t * weight for t in _tables.flatten(table)])


class ParallelCriterion(Criterion):
    """Weighted sum of criteria, criterion i on input i (and target i, or the one target
    when ``repeatTarget``)."""

    def __init__(self, repeatTarget=False):
        super().__init__()
        self.criterions = []
        self.weights = []
        self.repeatTarget = repeatTarget

    def add(self, criterion, weight=1):
        self.criterions.append(criterion)
        self.weights.append(weight)
        return self

    def _target(self, target, i):
        return target if self.repeatTarget else target[i]

    def updateOutput(self, input, target):
        self.output = 0
        for i, (c, w) in enumerate(zip(self.criterions, self.weights)):
            self.output += w * c.updateOutput(input[i], self._target(target, i))
        return self.output

    def updateGradInput(self, input, target):
        self.gradInput = [
            _scaled(c.updateGradInput(input[i], self._target(target, i)), w)
            for i, (c, w) in enumerate(zip(self.criterions, self.weights))]
        return self.gradInput


class MultiCriterion(Criterion):
    """Weighted sum of criteria all applied to the same input and target."""

    def __init__(self):
        super().__init__()
        self.criterions = []
        self.weights = []

    def add(self, criterion, weight=1):
        self.criterions.append(criterion)
        self.weights.append(weight)
        return self

    def updateOutput(self, input, target):
        self.output = 0
        for c, w in zip(self.criterions, self.weights):
            self.output += w * c.updateOutput(input, target)
        return self.output

    def updateGradInput(self, input, target):
        acc = None
        for c, w in zip(self.criterions, self.weights):
            acc = _tables.add_into(acc, _scaled(c.updateGradInput(input, target), w))
        self.gradInput = acc
        return acc
