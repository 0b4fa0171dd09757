"""Random state: one NumPy generator per device, seeded by ``manual_seed``.

numtorch does not reproduce torch's random stream; a seed reproduces numtorch's own results
exactly, and the distributions match torch's.
"""

import numpy as np

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "default_generator"]


class Generator:
    """A source of random numbers (a NumPy PCG64 bit generator underneath).

    Args:
        device (str or device): only ``'cpu'`` generators draw on the CPU; CUDA generators
            draw with CuPy.
    """

    def __init__(self, device="cpu"):
        from ._device import as_device

        self.device = as_device(device)
        self._seed = 67280421310721
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed):
        """Reseed; returns the generator (so it can be chained)."""
        seed = int(seed)
        if seed < 0:
            seed += 1 << 64
        if not 0 <= seed < (1 << 64):
            raise RuntimeError(f"Overflow when unpacking long: seed {seed} out of range")
        self._seed = seed
        self._rng = np.random.Generator(np.random.PCG64(seed))
        return self

    def seed(self):
        """Reseed from OS entropy and return the new seed."""
        s = int(np.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The generator state as a uint8 tensor (opaque; pass it to ``set_state``)."""
        from ._tensor import _make
        import pickle

        data = pickle.dumps((self._seed, self._rng.bit_generator.state))
        return _make(np.frombuffer(data, dtype=np.uint8).copy())

    def set_state(self, new_state):
        import pickle

        arr = new_state.numpy() if hasattr(new_state, "numpy") else np.asarray(new_state)
        if arr.dtype != np.uint8:
            raise TypeError(f"expected a torch.ByteTensor, but got {arr.dtype}")
        try:
            seed_, state = pickle.loads(arr.tobytes())
        except Exception:
            raise RuntimeError("set_state: the given state is not a numtorch generator state") \
                from None
        self._seed = seed_
        self._rng.bit_generator.state = state
        return self

    @property
    def numpy_rng(self):
        return self._rng


default_generator = Generator()


def manual_seed(seed):
    """Seed the default generator (and CUDA's when CuPy is in use); returns it."""
    default_generator.manual_seed(seed)
    from . import backend

    cp = backend._cupy if backend._cupy_tried else None
    if cp is not None:
        cp.random.seed(int(seed) % (1 << 32))
    return default_generator


def seed():
    """Seed the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed():
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore a state returned by ``get_rng_state``."""
    default_generator.set_state(new_state)


def rng_for(generator):
    """The NumPy generator to draw from (``generator`` or the default)."""
    return (generator or default_generator)._rng
