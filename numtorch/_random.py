"""Random state: generators, seeding, and saving/restoring the generator state.

Each :class:`Generator` wraps a NumPy PCG64 bit generator. numtorch does not reproduce torch's
random stream: a seed reproduces numtorch's own results exactly, and the distributions (not the
values) match torch's. The sampling functions live in ``_sampling.py``.
"""

import contextlib
import pickle

import numpy as np

from . import _dtype
from ._device import default_device
from ._tensor import Tensor, _make

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "default_generator", "fork_rng"]

_DEFAULT_SEED = 67280421310721  # what a fresh torch.Generator reports as its initial seed


class Generator:
    """A source of random numbers, seeded independently of the default one.

    Args:
        device (str or device): the device whose tensors this generator fills. Default: cpu.

    Example:
        >>> g = torch.Generator().manual_seed(0)
        >>> a = torch.rand(3, generator=g)
        >>> b = torch.rand(3, generator=torch.Generator().manual_seed(0))
        >>> bool((a == b).all())
        True
    """

    def __init__(self, device="cpu"):
        self.device = default_device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Reseed the generator and return it (so calls can be chained).

        Args:
            seed (int): any integer in ``[-2**63, 2**64)``; negative seeds wrap as in torch.
        """
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise ValueError("Overflow when unpacking long long")
        if seed < 0:
            seed += 1 << 64
        self._seed = seed
        self._rng = np.random.Generator(np.random.PCG64(seed))
        return self

    def seed(self):
        """Reseed from operating-system entropy and return the new seed."""
        s = int(np.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed this generator was last seeded with."""
        return self._seed

    def get_state(self):
        """The generator state as a uint8 tensor; pass it to :meth:`set_state` to rewind."""
        data = pickle.dumps((self._seed, self._rng.bit_generator.state))
        return _make(np.frombuffer(data, dtype=np.uint8).copy())

    def set_state(self, new_state):
        """Restore a state returned by :meth:`get_state`; returns the generator.

        Args:
            new_state (Tensor): a uint8 tensor from ``get_state``.
        """
        if not isinstance(new_state, Tensor) or new_state.dtype is not _dtype.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        arr = new_state._array if type(new_state._array) is np.ndarray else \
            new_state._array.get()
        try:
            seed_, state = pickle.loads(arr.tobytes())
            rng = np.random.Generator(np.random.PCG64())
            rng.bit_generator.state = state
        except Exception:  # noqa: BLE001 - any failure means the bytes are not a state
            raise RuntimeError("set_state: the given tensor is not a numtorch generator state "
                               f"(a uint8 tensor of {arr.size} bytes)") from None
        self._seed, self._rng = seed_, rng
        return self

    def clone_state(self):
        """A new generator in the same state as this one."""
        g = Generator(self.device)
        g.set_state(self.get_state())
        return g


default_generator = Generator()


def manual_seed(seed):
    """Seed the default generator and return it.

    Args:
        seed (int): the seed, in ``[-2**63, 2**64)``.

    Example:
        >>> _ = torch.manual_seed(0)
        >>> a = torch.rand(2)
        >>> _ = torch.manual_seed(0)
        >>> bool((a == torch.rand(2)).all())
        True
    """
    return default_generator.manual_seed(seed)


def seed():
    """Seed the default generator from operating-system entropy and return the seed."""
    return default_generator.seed()


def initial_seed():
    """Return the seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """Return the default generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default generator to a state returned by :func:`get_rng_state`.

    Args:
        new_state (Tensor): a uint8 state tensor.
    """
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, **kwargs):
    """Run a block with the default generator's state saved, and restore it afterwards.

    Args:
        devices (iterable, optional): accepted for torch compatibility; numtorch has one
            default generator for every device.
        enabled (bool): when False, do nothing. Default: True.

    Example:
        >>> _ = torch.manual_seed(0)
        >>> with torch._random.fork_rng():
        ...     _ = torch.rand(5)
        >>> a = torch.rand(1)
        >>> _ = torch.manual_seed(0)
        >>> bool((a == torch.rand(1)).all())
        True
    """
    if not enabled:
        yield
        return
    state = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(state)


def rng_for(generator):
    """The NumPy generator to draw from (``generator``'s or the default one)."""
    if generator is None:
        return default_generator._rng
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    return generator._rng
