"""A nested state dict as flat entries named ``a.b.0.c``, as torch's checkpoints name them.

Dicts are walked (an empty one contributes nothing); a list is walked only when it holds a
tensor or a dict (directly or in nested lists), otherwise it is one entry, as are tuples and
every other value. Keys
become strings in the names; the paths keep list positions as ints.
"""

from ..._tensor import Tensor


def _holds_tensor(value):
    if isinstance(value, (Tensor, dict)):
        return True
    if isinstance(value, list):
        return any(_holds_tensor(v) for v in value)
    return False


def _walk(value, path, container, key, out):
    if isinstance(value, dict):
        for k, v in value.items():
            _walk(v, path + (str(k),), value, k, out)
    elif isinstance(value, list) and _holds_tensor(value):
        for i, v in enumerate(value):
            _walk(v, path + (i,), value, i, out)
    else:
        out.append((path, container, key, value))


def entries(state_dict):
    """``(path, container, key, value)`` for every leaf, in the dict's order."""
    out = []
    for k, v in state_dict.items():
        _walk(v, (str(k),), state_dict, k, out)
    return out


def fqn(path):
    return ".".join(str(p) for p in path)


def flatten_state_dict(state_dict):
    """``(flat, mappings)``: ``{name: value}`` and ``{name: path}``."""
    flat, mappings = {}, {}
    for path, _, _, value in entries(state_dict):
        name = fqn(path)
        flat[name] = value
        mappings[name] = path
    return flat, mappings
