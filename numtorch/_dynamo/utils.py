"""``torch._dynamo.utils``: the compile statistics programs read after compiling.

``counters`` maps a category (``"stats"``, ``"graph_break"``, ...) to a Counter, as torch's
does. numtorch's ``compile`` runs the model eagerly and captures no graphs, so the counters
stay empty unless a program writes to them; ``counters.clear()`` resets them.
"""

import collections

__all__ = ["counters"]

counters = collections.defaultdict(collections.Counter)
