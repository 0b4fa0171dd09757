"""``Module``: Lua-torch's module protocol on numtorch tensors.

A legacy module keeps its last result in ``output`` and its last input gradient in
``gradInput``; ``backward(input, gradOutput, scale)`` computes ``gradInput`` and adds
``scale`` times the parameter gradients into ``gradWeight``/``gradBias``, which the user
zeroes with ``zeroGradParameters`` and applies with ``updateParameters(lr)``.

The math of a leaf module is one method, ``_forward(input, *params)``, written with
numtorch's ops and ``nn.functional``. ``updateOutput`` runs it on leaves cut from the input
and the parameters and keeps that graph; ``updateGradInput`` and ``accGradParameters`` ask
numtorch's autograd for the vector-Jacobian products of the kept graph, so every gradient is
the one ``numtorch.nn`` computes. The graph is rebuilt when the input or a parameter changed
since the forward (another input object, or an in-place write).
"""

import copy

from ... import autograd as _autograd
from ..._tensor import Tensor
from ...autograd.grad_mode import enable_grad
from . import _tables

__all__ = ["Module"]


def _is_float(t):
    return t.is_floating_point() or t.is_complex()


class _Graph:
    """The forward graph of a module's last ``updateOutput``, and what it was built from."""

    __slots__ = ("inputs", "versions", "params", "param_versions", "leaves", "param_leaves",
                 "out")

    def matches(self, inputs, params):
        if len(inputs) != len(self.inputs) or len(params) != len(self.params):
            return False
        for t, old, v in zip(inputs, self.inputs, self.versions):
            if t is not old or t._version != v:
                return False
        for p, old, v in zip(params, self.params, self.param_versions):
            if p is not old or (p is not None and p._version != v):
                return False
        return True


class _Typed:
    """Lua's tensor-type conversions, shared by ``Module`` and ``Criterion``: every tensor
    field (inside lists and tables too) converted, a tensor held by several fields once."""

    def type(self, type=None, tensorCache=None):  # noqa: A002 - Lua's name
        """Convert floating tensors to ``type`` (e.g. ``'torch.DoubleTensor'``); without an
        argument, return the current type name."""
        if type is None:
            return self._type
        self._graph = None
        cache = {} if tensorCache is None else tensorCache
        for key, value in list(self.__dict__.items()):
            if key != "_graph":
                self.__dict__[key] = _convert(value, type, cache)
        self._type = type
        return self

    def float(self):
        return self.type("torch.FloatTensor")

    def double(self):
        return self.type("torch.DoubleTensor")

    def cuda(self):
        return self.type("torch.cuda.FloatTensor")


class Module(_Typed):
    """Base class of the legacy modules (Lua's ``nn.Module``).

    Subclasses with parameters name them in ``_params`` as ``(weight, gradient)`` attribute
    pairs; leaf modules define ``_forward(input, *params)``.
    """

    _params = (("weight", "gradWeight"), ("bias", "gradBias"))
    train = True
    inplace = False

    def __init__(self):
        self.gradInput = Tensor()
        self.output = Tensor()
        self._type = self.output.type()
        self.train = True

    # -- the protocol ---------------------------------------------------------------------
    def forward(self, input):
        """Compute ``output`` from ``input`` (calls ``updateOutput``)."""
        return self.updateOutput(input)

    def backward(self, input, gradOutput, scale=1):
        """``updateGradInput`` and ``accGradParameters(scale)`` from one pass over the graph.

        Must follow a ``forward`` on the same ``input``."""
        self.gradInput, grads = self._vjp(input, gradOutput, True, True)
        self._accumulate(grads, scale)
        return self.gradInput

    def updateOutput(self, input):
        if getattr(self, "inplace", False):
            self.output = self._record_inplace(input)
        else:
            self.output = self._record(input)
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput, _ = self._vjp(input, gradOutput, True, False)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        _, grads = self._vjp(input, gradOutput, False, True)
        self._accumulate(grads, scale)

    def accUpdateGradParameters(self, input, gradOutput, lr):
        """Apply ``-lr`` times this input's parameter gradient to the parameters directly."""
        _, grads = self._vjp(input, gradOutput, False, True)
        for (wname, _), g in zip(self._present_params(), grads):
            if g is not None:
                getattr(self, wname).add_(g, alpha=-lr)

    sharedAccUpdateGradParameters = accUpdateGradParameters

    def _forward(self, input, *params):
        raise RuntimeError(f"{type(self).__name__} defines no computation of its own")

    # -- the kept graph -------------------------------------------------------------------
    def _param_values(self):
        return [getattr(self, w, None) for w, _ in self._params]

    def _present_params(self):
        return [(w, g) for w, g in self._params if getattr(self, w, None) is not None]

    def _leaf(self, t):
        if not _is_float(t):
            return t
        # In-place modules overwrite their input afterwards: their graph keeps a copy.
        leaf = t.detach().clone() if getattr(self, "inplace", False) else t.data
        return leaf.requires_grad_()

    def _record(self, input):
        """Run ``_forward`` with autograd on leaves of ``input`` and the parameters."""
        inputs = _tables.flatten(input)
        leaves = [self._leaf(t) for t in inputs]
        params = self._param_values()
        param_leaves = [None if p is None else p.data.requires_grad_() for p in params]
        with enable_grad():
            out = self._forward(_tables.rebuild(input, leaves), *param_leaves)
        g = _Graph()
        g.inputs, g.versions = inputs, [t._version for t in inputs]
        g.params = params
        g.param_versions = [None if p is None else p._version for p in params]
        g.leaves, g.param_leaves, g.out = leaves, param_leaves, out
        self._graph = g
        return _tables.rebuild(out, [o.data for o in _tables.flatten(out)])

    def _record_inplace(self, input):
        """``_record`` for ``inplace`` modules: the result is written into ``input`` (the first
        tensor of an input table)."""
        out = self._record(input)
        target = input if isinstance(input, Tensor) else input[0]
        target.copy_(out)
        self._graph.versions = [t._version for t in self._graph.inputs]
        return target

    def _vjp(self, input, gradOutput, want_input, want_params):
        """(gradInput table or None, parameter gradients or None) of the kept graph."""
        g = getattr(self, "_graph", None)
        if g is None or not g.matches(_tables.flatten(input), self._param_values()):
            self._record(input)
            g = self._graph
        outs = _tables.flatten(g.out)
        gos = _tables.flatten(gradOutput)
        if len(outs) != len(gos):
            raise ValueError(f"{type(self).__name__}: gradOutput has {len(gos)} tensors, the "
                             f"output has {len(outs)}")
        pairs = []
        for o, go in zip(outs, gos):
            if o.requires_grad:
                if go.shape != o.shape and go.numel() == o.numel():
                    go = go.reshape(o.shape)  # Lua accepts a gradOutput of the same size
                pairs.append((o, go.to(o.dtype)))
        targets = []
        if want_input:
            targets += [leaf for leaf in g.leaves if leaf.requires_grad]
        if want_params:
            targets += [p for p in g.param_leaves if p is not None]
        if pairs and targets:
            grads = list(_autograd.grad([o for o, _ in pairs], targets,
                                        [go for _, go in pairs], retain_graph=True,
                                        allow_unused=True))
        else:
            grads = [None] * len(targets)
        grad_input = None
        if want_input:
            values = []
            for leaf in g.leaves:
                grad = grads.pop(0) if leaf.requires_grad else None
                values.append(grad if grad is not None else leaf.detach().new_zeros(leaf.shape))
            grad_input = _tables.rebuild(input, values)
        return grad_input, (grads if want_params else None)

    def _accumulate(self, grads, scale):
        for (_, gname), grad in zip(self._present_params(), grads):
            if grad is None:
                continue
            acc = getattr(self, gname, None)
            if acc is None or acc.shape != grad.shape:
                acc = grad.new_zeros(grad.shape)
                setattr(self, gname, acc)
            acc.add_(grad, alpha=scale)

    # -- parameters -----------------------------------------------------------------------
    def parameters(self):
        """``(weights, gradWeights)`` lists, or None for a module without parameters."""
        present = self._present_params()
        if not present:
            return None
        weights = [getattr(self, w) for w, _ in present]
        grads = []
        for w, gname in present:
            if getattr(self, gname, None) is None:
                setattr(self, gname, getattr(self, w).new_zeros(getattr(self, w).shape))
            grads.append(getattr(self, gname))
        return weights, grads

    def zeroGradParameters(self):
        params = self.parameters()
        if params is not None:
            for g in params[1]:
                g.zero_()

    def updateParameters(self, learningRate):
        """``w -= learningRate * gradW`` for every parameter."""
        params = self.parameters()
        if params is not None:
            for w, g in zip(*params):
                w.add_(g, alpha=-learningRate)

    def flattenParameters(self):
        """Move all parameters (and their gradients) into one flat tensor each and make the
        parameters views of it; returns ``(flatParameters, flatGradParameters)``.

        Parameters shared between modules (``clone('weight')``) are stored once."""
        params = self.parameters() or ([], [])
        return _flatten_into_one(params[0]), _flatten_into_one(params[1])

    getParameters = flattenParameters

    def reset(self, stdv=None):
        """Re-initialise the parameters (Lua's initialisation of each module)."""
        return self

    # -- modes, types, copies -------------------------------------------------------------
    def training(self):
        self.train = True
        return self

    def evaluate(self):
        self.train = False
        return self

    def share(self, mlp, *names):
        """Make this module's ``names`` fields view ``mlp``'s tensors (shared parameters)."""
        for name in names:
            mine, theirs = getattr(self, name, None), getattr(mlp, name, None)
            if isinstance(mine, Tensor) and isinstance(theirs, Tensor):
                mine.set_(theirs)
        self._graph = None
        return self

    def clone(self, *names):
        """A deep copy; with ``names`` (e.g. ``'weight', 'bias'``) those fields are shared."""
        twin = copy.deepcopy(self)
        if names:
            twin.share(self, *names)
        return twin

    def clearState(self):
        """Drop the kept graph and empty ``output``/``gradInput`` (before saving)."""
        self._graph = None
        self.output = self.output.new() if isinstance(self.output, Tensor) else Tensor()
        self.gradInput = (self.gradInput.new() if isinstance(self.gradInput, Tensor)
                          else Tensor())
        return self

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_graph", None)  # autograd graphs are rebuilt, never copied
        return state

    def _post_load(self):
        """Complete a module read from a Lua file (fields older versions did not save)."""
        for name in ("output", "gradInput"):
            if name not in self.__dict__:
                setattr(self, name, Tensor())
        if "_type" not in self.__dict__:
            self._type = Tensor().type()

    def __setstate__(self, state):
        self.__dict__.update(state)

    # -- module trees ---------------------------------------------------------------------
    def apply(self, callback):
        callback(self)
        for m in getattr(self, "modules", None) or []:
            m.apply(callback)
        return self

    def listModules(self):
        found = [self]
        for m in getattr(self, "modules", None) or []:
            found.extend(m.listModules())
        return found

    def findModules(self, typename):
        """Every module of class ``typename`` (a class or a name like ``'nn.Linear'``)."""
        if isinstance(typename, str):
            short = typename.split(".")[-1]
            return [m for m in self.listModules() if type(m).__name__ == short]
        return [m for m in self.listModules() if isinstance(m, typename)]

    def replace(self, callback):
        out = callback(self)
        if getattr(out, "modules", None):
            out.modules = [m.replace(callback) for m in out.modules]
        return out

    def __repr__(self):
        return f"nn.{type(self).__name__}"


def _convert(value, type_name, cache):
    if isinstance(value, Tensor):
        if not _is_float(value):
            return value
        key = id(value)
        if key not in cache:
            cache[key] = value.type(type_name)
        return cache[key]
    if isinstance(value, Module):
        return value.type(type_name, cache)
    if isinstance(value, list):
        return [_convert(v, type_name, cache) for v in value]
    if isinstance(value, dict):
        return {k: _convert(v, type_name, cache) for k, v in value.items()}
    return value


def _flatten_into_one(tensors):
    unique, seen = [], set()
    for t in tensors:
        key = (t.data_ptr(), tuple(t.shape), tuple(t.stride()))
        if key not in seen:
            seen.add(key)
            unique.append(t)
    if not unique:
        return Tensor()
    from ... import cat

    flat = cat([t.detach().reshape(-1) for t in unique])
    offset = 0
    views = {}
    keys = [(t.data_ptr(), tuple(t.shape), tuple(t.stride())) for t in tensors]
    for t in unique:
        n = t.numel()
        views[(t.data_ptr(), tuple(t.shape), tuple(t.stride()))] = flat[offset:offset + n]
        offset += n
    for t, key in zip(tensors, keys):
        t.data = views[key].view(t.shape)
    return flat
