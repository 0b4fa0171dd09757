"""Read-only list and dict types that hold a node's arguments (``torch.fx.immutable_collections``).

A node records who uses it when its arguments are assigned; changing a list inside ``node.args``
in place would leave those records stale, so such lists and dicts refuse mutation and the user
assigns a new ``node.args`` instead.
"""

__all__ = ["immutable_dict", "immutable_list"]

_HINT = (
    "'{}' object does not support mutation. If you are attempting to modify the kwargs or "
    "args of a torch.fx.Node object,\ninstead create a new copy of it and assign the copy to "
    "the node:\n\n    new_args = ...  # copy and mutate args\n    node.args = new_args\n"
)


def _refuse(self, *args, **kwargs):
    raise TypeError(_HINT.format(type(self).__name__))


class immutable_list(list):
    """A list that raises ``TypeError`` on every in-place change."""

    __delitem__ = __iadd__ = __imul__ = __setitem__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (immutable_list, (list(self),))


class immutable_dict(dict):
    """A dict that raises ``TypeError`` on every in-place change."""

    __delitem__ = __setitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __hash__(self):
        return hash(tuple(self.items()))

    def __reduce__(self):
        return (immutable_dict, (dict(self),))
