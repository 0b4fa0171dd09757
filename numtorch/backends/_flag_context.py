"""The ``flags(...)`` context manager of the ``backends`` modules: it sets a module's flag
variables inside a ``with`` block and restores them after, as torch's ``flags`` do."""


class FlagContext:
    """Set ``values`` (flag name -> value) in the namespace ``names`` (a module's globals)
    for the duration of a ``with`` block."""

    def __init__(self, names, values):
        self.names = names
        self.values = values

    def __enter__(self):
        self.prev = {k: self.names[k] for k in self.values}
        self.names.update(self.values)

    def __exit__(self, *exc):
        self.names.update(self.prev)
        return False
