"""ParameterList and ParameterDict (re-exported by ``container.py``, torch's import path)."""

from collections import OrderedDict, abc

from ..._tensor import Tensor
from ..parameter import Parameter
from .container import _abs_index, _digits_hidden_dir, _update_pairs
from .module import Module

__all__ = ["ParameterList", "ParameterDict"]


def _param_line(key, value, type_name):
    if not isinstance(value, Tensor):
        return f"  ({key}): Object of type: {type(value).__name__}"
    size = "x".join(str(s) for s in value.shape)
    device = f" ({value.device})" if value.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"  ({key}): {kind} containing: [{type_name(value)} of size {size}{device}]"


def _as_parameter(value):
    """Plain tensors stored in a ParameterList/Dict become Parameters (as in torch)."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """A list of parameters that registers them; plain tensors are turned into Parameters.

    Example:
        >>> ps = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2)) for _ in range(2)])
        >>> [name for name, _ in ps.named_parameters()]
        ['0', '1']
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(self._size)):
                out.append(self[i])
            return out
        return getattr(self, str(_abs_index(idx, self._size)))

    def __setitem__(self, idx, param):
        setattr(self, str(_abs_index(idx, self._size)), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(self._size))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return _digits_hidden_dir(self)

    def append(self, value):
        """Add ``value`` at the end; returns self."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        """Append every value of the iterable ``values``; returns self."""
        if not isinstance(values, abc.Iterable) or isinstance(values, Tensor):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got "
                            f"{type(values).__name__}")
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_param_line(k, p, lambda t: t.dtype) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters with string keys that registers them.

    A plain ``dict`` is added in sorted key order (its order was not reliable in old Pythons);
    an ``OrderedDict``, another ParameterDict or a sequence of pairs keeps its order.

    Example:
        >>> ps = torch.nn.ParameterDict({"w": torch.nn.Parameter(torch.ones(2))})
        >>> list(ps.state_dict())
        ['w']
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key):
        if not isinstance(key, str):
            raise TypeError(f"Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on github "
                            "if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        attr = self._key_to_attr(key)
        setattr(self, attr, _as_parameter(value))
        self._keys[key] = None

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def __dir__(self):
        return _digits_hidden_dir(self)

    def copy(self):
        """A new ParameterDict holding the same parameters."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        """Return ``self[key]``, first storing ``default`` there if the key is missing."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        """Remove every entry."""
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        """Remove and return the entry under ``key``."""
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        """Remove and return the last inserted ``(key, value)`` pair."""
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key, default=None):
        """``self[key]`` if present, else ``default``."""
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        """A new ParameterDict with ``keys`` all mapped to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        """The keys, in insertion order."""
        return self._keys.keys()

    def items(self):
        """The ``(key, value)`` pairs."""
        return ((k, self[k]) for k in self._keys)

    def values(self):
        """The values."""
        return (self[k] for k in self._keys)

    def update(self, parameters):
        """Add entries from a mapping or an iterable of ``(key, value)`` pairs."""
        if not isinstance(parameters, abc.Iterable):
            raise TypeError(f"ParametersDict.update should be called with an iterable of "
                            f"key/value pairs, but got {type(parameters).__name__}")
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, value in parameters.items():
                self[key] = value
        elif isinstance(parameters, abc.Mapping):
            for key, value in sorted(parameters.items()):
                self[key] = value
        else:
            _update_pairs("ParameterDict", parameters, self.__setitem__)

    def extra_repr(self):
        return "\n".join(_param_line(k, p, lambda t: t.type()) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other):
        out = other.copy()
        out.update(self)
        return out

    def __ior__(self, other):
        self.update(other)
        return self


# pickles and reprs name the classes by torch's path
ParameterList.__module__ = ParameterDict.__module__ = "numtorch.nn.modules.container"
