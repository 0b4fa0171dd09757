"""``torch.random``: the default generator's seeding and state, and :func:`fork_rng`.

The same functions as at ``numtorch``'s top level (they live in ``numtorch/_random.py``); this
module exists because programs spell them ``torch.random.fork_rng()`` and so on.
"""

from ._random import (  # noqa: F401
    Generator, default_generator, fork_rng, get_rng_state, initial_seed, manual_seed, seed,
    set_rng_state,
)

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]
