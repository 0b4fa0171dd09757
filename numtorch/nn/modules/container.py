"""Containers that register what they hold: Sequential, ModuleList, ModuleDict, ParameterList
and ParameterDict (plain lists and dicts of modules are invisible to ``parameters()``)."""

import operator
import warnings
from collections import OrderedDict, abc
from itertools import chain, islice

from .module import Module, _addindent

__all__ = ["Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict"]


def _abs_index(idx, size):
    """``idx`` as a non-negative int below ``size``; torch's IndexError otherwise."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx + size if idx < 0 else idx


def _renumber(module):
    """Rename the children ``'0'..'n-1'`` in order (after a deletion, as torch does)."""
    mods = module._modules
    fresh = OrderedDict((str(i), m) for i, m in enumerate(mods.values()))
    mods.clear()
    mods.update(fresh)


def _digits_hidden_dir(module):
    return [k for k in Module.__dir__(module) if not k.isdigit()]


class Container(Module):
    """The deprecated 0.x container: children are given as keyword arguments."""

    def __init__(self, **kwargs):
        super().__init__()
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        for key, value in kwargs.items():
            self.add_module(key, value)


class Sequential(Module):
    """Chain modules: the output of each is the input of the next.

    Children are named ``'0'``, ``'1'``... or, when a single ``OrderedDict`` is given, by its
    keys.

    Example:
        >>> net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Flatten(0))
        >>> net(torch.zeros(2, 4)).shape
        torch.Size([6])
        >>> net[-1]
        Flatten(start_dim=0, end_dim=-1)
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _key_at(self, idx):
        return next(islice(self._modules.keys(), _abs_index(idx, len(self)), None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._key_at(idx))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return _digits_hidden_dir(self)

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        out = Sequential()
        for layer in chain(self, other):
            out.append(layer)
        return out

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other):
        self._check_factor(other)
        out = Sequential()
        for i, module in enumerate(chain.from_iterable([list(self)] * other)):
            out.add_module(str(i), module)
        return out

    __rmul__ = __mul__

    def __imul__(self, other):
        self._check_factor(other)
        mods = list(self)
        offset = len(self)
        for k in range(other - 1):
            for i, module in enumerate(mods):
                self.add_module(str(offset + k * len(mods) + i), module)
        return self

    def pop(self, key):
        """Remove and return the module at index (or slice) ``key``."""
        value = self[key]
        del self[key]
        return value

    def append(self, module):
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        """Insert ``module`` before position ``index`` (negative counts from the end)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        """Append every module of the iterable ``sequential``; returns self."""
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        """Run ``input`` through the children in order."""
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules that registers them (so their parameters are the parent's).

    Example:
        >>> layers = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])
        >>> len(list(layers.parameters()))
        6
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_abs_index(idx, len(self)))]

    def __setitem__(self, idx, module):
        setattr(self, str(_abs_index(idx, len(self))), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_abs_index(idx, len(self))))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        out = ModuleList()
        for i, module in enumerate(chain(self, other)):
            out.add_module(str(i), module)
        return out

    def __dir__(self):
        return _digits_hidden_dir(self)

    def __repr__(self):
        # runs of identical children print once, as "(2-4): 3 x ReLU()", like torch
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        lines = []
        start = 0
        for i in range(1, len(reprs) + 1):
            if i < len(reprs) and reprs[i] == reprs[start]:
                continue
            body = _addindent(reprs[start], 2)
            if i - 1 == start:
                lines.append(f"({start}): {body}")
            else:
                lines.append(f"({start}-{i - 1}): {i - start} x {body}")
            start = i
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index, module):
        """Insert ``module`` before position ``index``.

        Note:
            torch stores a non-Module here silently; numtorch raises ``TypeError`` as
            :meth:`append` does.
        """
        if not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module):
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        """Remove and return the module at index (or slice) ``key``."""
        value = self[key]
        del self[key]
        return value

    def extend(self, modules):
        """Append every module of the iterable ``modules``; returns self."""
        if not isinstance(modules, abc.Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got "
                            f"{type(modules).__name__}")
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


def _update_pairs(name, items, setitem):
    """Apply ``setitem(k, v)`` for each pair of a sequence, with torch's checks."""
    for j, pair in enumerate(items):
        if not isinstance(pair, abc.Iterable):
            raise TypeError(f"{name} update sequence element #{j} should be Iterable; is"
                            f"{type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"{name} update sequence element #{j} has length {len(pair)}; 2 "
                             "is required")
        setitem(pair[0], pair[1])


class ModuleDict(Module):
    """A dict of modules that registers them, keeping insertion order.

    Example:
        >>> heads = torch.nn.ModuleDict({"cls": torch.nn.Linear(4, 3),
        ...                              "box": torch.nn.Linear(4, 4)})
        >>> list(heads.keys())
        ['cls', 'box']
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        """Remove every module."""
        self._modules.clear()

    def pop(self, key):
        """Remove and return the module under ``key``."""
        value = self[key]
        del self[key]
        return value

    def keys(self):
        """The keys, in insertion order."""
        return self._modules.keys()

    def items(self):
        """The ``(key, module)`` pairs."""
        return self._modules.items()

    def values(self):
        """The modules."""
        return self._modules.values()

    def update(self, modules):
        """Add modules from a mapping or an iterable of ``(key, module)`` pairs."""
        if not isinstance(modules, abc.Iterable):
            raise TypeError(f"ModuleDict.update should be called with an iterable of key/value "
                            f"pairs, but got {type(modules).__name__}")
        if isinstance(modules, (abc.Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
        else:
            _update_pairs("ModuleDict", modules, self.__setitem__)


from ._param_containers import ParameterDict, ParameterList  # noqa: E402,F401
