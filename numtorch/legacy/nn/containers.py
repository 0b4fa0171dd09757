"""Containers: modules made of modules (Lua's ``nn.Container`` family).

A container has no graph of its own: it calls its children's ``updateOutput``,
``updateGradInput`` and ``accGradParameters`` in Lua's order and combines their tables.
Positions given to ``get``/``insert``/``remove`` count from 1, as in Lua.
"""

from ... import cat
from ..._tensor import Tensor
from . import _tables
from .module import Module

__all__ = ["Container", "Sequential", "Concat", "ConcatTable", "ParallelTable", "Parallel"]


class Container(Module):
    """A module holding the list ``modules``."""

    _params = ()

    def __init__(self, *args):
        super().__init__()
        self.modules = []

    def _post_load(self):
        super()._post_load()
        mods = getattr(self, "modules", None) or []
        if isinstance(mods, dict):  # Lua saves an empty module list as an empty table
            mods = [mods[k] for k in sorted(mods)]
        self.modules = mods

    def add(self, module):
        self.modules.append(module)
        return self

    def get(self, index):
        """The module at Lua position ``index`` (1-based)."""
        return self.modules[_tables.index(index, len(self.modules), "module index")]

    def size(self):
        return len(self.modules)

    def __len__(self):
        return len(self.modules)

    def parameters(self):
        weights, grads = [], []
        for m in self.modules:
            params = m.parameters()
            if params is not None:
                weights.extend(params[0])
                grads.extend(params[1])
        return weights, grads

    def zeroGradParameters(self):
        for m in self.modules:
            m.zeroGradParameters()

    def updateParameters(self, learningRate):
        for m in self.modules:
            m.updateParameters(learningRate)

    def training(self):
        super().training()
        for m in self.modules:
            m.training()
        return self

    def evaluate(self):
        super().evaluate()
        for m in self.modules:
            m.evaluate()
        return self

    def reset(self, stdv=None):
        for m in self.modules:
            m.reset(stdv)
        return self

    def clearState(self):
        super().clearState()
        for m in self.modules:
            m.clearState()
        return self

    def accUpdateGradParameters(self, input, gradOutput, lr):
        # Containers route gradOutput to each child exactly as accGradParameters does.
        saved = {}
        for m in self.listModules()[1:]:
            params = m.parameters() if not isinstance(m, Container) else None
            if params is not None:
                saved[id(m)] = [g.clone() for g in params[1]]
                m.zeroGradParameters()
        self.accGradParameters(input, gradOutput, 1)
        for m in self.listModules()[1:]:
            if id(m) in saved:
                w, g = m.parameters()
                for wi, gi, old in zip(w, g, saved[id(m)]):
                    wi.add_(gi, alpha=-lr)
                    gi.copy_(old)

    def __repr__(self):
        lines = [f"nn.{type(self).__name__} {{"]
        for i, m in enumerate(self.modules, 1):
            child = repr(m).replace("\n", "\n  ")
            lines.append(f"  ({i}): {child}")
        lines.append("}")
        return "\n".join(lines)


class Sequential(Container):
    """Feeds each module's output to the next."""

    def insert(self, module, index=None):
        """Insert ``module`` at Lua position ``index`` (default: at the end)."""
        if index is None:
            self.modules.append(module)
        else:
            self.modules.insert(_tables.index(index, len(self.modules) + 1, "index"), module)
        return self

    def remove(self, index=None):
        """Remove the module at Lua position ``index`` (default: the last one)."""
        pos = len(self.modules) if index is None else index
        self.modules.pop(_tables.index(pos, len(self.modules), "index"))
        return self

    def updateOutput(self, input):
        current = input
        for m in self.modules:
            current = m.updateOutput(current)
        self.output = current
        return current

    def _inputs(self, input):
        return [input] + [m.output for m in self.modules[:-1]]

    def updateGradInput(self, input, gradOutput):
        grad = gradOutput
        for m, x in reversed(list(zip(self.modules, self._inputs(input)))):
            grad = m.updateGradInput(x, grad)
        self.gradInput = grad
        return grad

    def accGradParameters(self, input, gradOutput, scale=1):
        grad = gradOutput
        for m, x in reversed(list(zip(self.modules, self._inputs(input)))):
            m.accGradParameters(x, grad, scale)
            grad = m.gradInput

    def backward(self, input, gradOutput, scale=1):
        grad = gradOutput
        for m, x in reversed(list(zip(self.modules, self._inputs(input)))):
            grad = m.backward(x, grad, scale)
        self.gradInput = grad
        return grad

    def __repr__(self):
        arrow = " -> ".join(["[input"] + [f"({i})" for i in range(1, len(self.modules) + 1)]
                            + ["output]"])
        body = "".join(f"\n  ({i}): " + repr(m).replace("\n", "\n  ")
                       for i, m in enumerate(self.modules, 1))
        return f"nn.Sequential {{\n  {arrow}{body}\n}}"


class ConcatTable(Container):
    """Applies every module to the same input; the output is the table of their outputs."""

    def updateOutput(self, input):
        self.output = [m.updateOutput(input) for m in self.modules]
        return self.output

    def _sum_grads(self, grads):
        acc = None
        for g in grads:
            acc = _tables.add_into(acc, g)
        return acc

    def updateGradInput(self, input, gradOutput):
        self.gradInput = self._sum_grads(
            [m.updateGradInput(input, g) for m, g in zip(self.modules, gradOutput)])
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        for m, g in zip(self.modules, gradOutput):
            m.accGradParameters(input, g, scale)

    def backward(self, input, gradOutput, scale=1):
        self.gradInput = self._sum_grads(
            [m.backward(input, g, scale) for m, g in zip(self.modules, gradOutput)])
        return self.gradInput


class ParallelTable(Container):
    """Applies the i-th module to the i-th entry of the input table."""

    def updateOutput(self, input):
        self.output = [m.updateOutput(x) for m, x in zip(self.modules, input)]
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = [m.updateGradInput(x, g)
                          for m, x, g in zip(self.modules, input, gradOutput)]
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        for m, x, g in zip(self.modules, input, gradOutput):
            m.accGradParameters(x, g, scale)

    def backward(self, input, gradOutput, scale=1):
        self.gradInput = [m.backward(x, g, scale)
                          for m, x, g in zip(self.modules, input, gradOutput)]
        return self.gradInput


class Concat(Container):
    """Applies every module to the same input and joins the outputs along ``dimension``
    (1-based)."""

    def __init__(self, dimension):
        super().__init__()
        self.dimension = dimension

    def _dim(self):
        return self.dimension - 1

    def updateOutput(self, input):
        outs = [m.updateOutput(input) for m in self.modules]
        self.output = cat(outs, self._dim())
        return self.output

    def _slices(self, gradOutput):
        dim, offset, parts = self._dim(), 0, []
        for m in self.modules:
            n = m.output.size(dim)
            parts.append(gradOutput.narrow(dim, offset, n))
            offset += n
        return parts

    def updateGradInput(self, input, gradOutput):
        acc = None
        for m, g in zip(self.modules, self._slices(gradOutput)):
            acc = _tables.add_into(acc, m.updateGradInput(input, g))
        self.gradInput = acc
        return acc

    def accGradParameters(self, input, gradOutput, scale=1):
        for m, g in zip(self.modules, self._slices(gradOutput)):
            m.accGradParameters(input, g, scale)

    def backward(self, input, gradOutput, scale=1):
        acc = None
        for m, g in zip(self.modules, self._slices(gradOutput)):
            acc = _tables.add_into(acc, m.backward(input, g, scale))
        self.gradInput = acc
        return acc


class Parallel(Container):
    """Module i gets slice i of the input along ``inputDimension``; the outputs are joined
    along ``outputDimension`` (both 1-based)."""

    def __init__(self, inputDimension, outputDimension):
        super().__init__()
        self.inputDimension = inputDimension
        self.outputDimension = outputDimension

    def _pieces(self, input):
        d = self.inputDimension - 1
        if input.size(d) < len(self.modules):
            raise ValueError(f"Parallel: input has {input.size(d)} slices along dimension "
                             f"{self.inputDimension}, there are {len(self.modules)} modules")
        return [input.select(d, i) for i in range(len(self.modules))]

    def updateOutput(self, input):
        outs = [m.updateOutput(x) for m, x in zip(self.modules, self._pieces(input))]
        self.output = cat(outs, self.outputDimension - 1)
        return self.output

    def _grad_slices(self, gradOutput):
        d, offset, parts = self.outputDimension - 1, 0, []
        for m in self.modules:
            n = m.output.size(d)
            parts.append(gradOutput.narrow(d, offset, n))
            offset += n
        return parts

    def _gather(self, input, grads):
        gi = input.new_zeros(input.shape) if isinstance(input, Tensor) else None
        for i, g in enumerate(grads):
            gi.select(self.inputDimension - 1, i).copy_(g)
        return gi

    def updateGradInput(self, input, gradOutput):
        grads = [m.updateGradInput(x, g) for m, x, g in
                 zip(self.modules, self._pieces(input), self._grad_slices(gradOutput))]
        self.gradInput = self._gather(input, grads)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        for m, x, g in zip(self.modules, self._pieces(input), self._grad_slices(gradOutput)):
            m.accGradParameters(x, g, scale)

    def backward(self, input, gradOutput, scale=1):
        grads = [m.backward(x, g, scale) for m, x, g in
                 zip(self.modules, self._pieces(input), self._grad_slices(gradOutput))]
        self.gradInput = self._gather(input, grads)
        return self.gradInput
