"""Random state: generators, seeding, and saving/restoring the generator state.

Each CPU :class:`Generator` draws torch's own CPU random stream (``_torch_rng.TorchStream``:
torch's Mersenne Twister, seeding and samplers), so a seed gives torch's values for the common
samplers, and its state is torch's 5056-byte format, which moves between the two libraries. A
CUDA one draws on its GPU (cuRAND through CuPy, ``backend.device_rng``): those values are not
torch's. Every GPU has a default generator seeded by ``manual_seed`` along with the CPU's. The
sampling functions live in ``_sampling.py``.
"""

import contextlib

import numpy as np

from . import _dtype, backend
from ._class_repr import TorchNamed, object_repr as _object_repr
from ._device import default_device
from ._tensor import Tensor, _make
from ._torch_rng import TorchStream

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "default_generator", "fork_rng"]

_DEFAULT_SEED = 67280421310721  # what a fresh torch.Generator reports as its initial seed


def _check_state(new_state):
    """torch's TypeErrors for a state that is not a uint8 tensor."""
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
    if new_state.dtype is not _dtype.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")


class Generator(metaclass=TorchNamed):
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

    __repr__ = _object_repr  # torch's name in the default object repr
    _torch_name = "torch._C.Generator"

    def __init__(self, device="cpu"):
        self.device = default_device(device)
        kind = self.device.type
        if kind == "mps":
            raise RuntimeError("Cannot execute getNewGenerator() without MPS backend.")
        if kind == "xpu":
            raise RuntimeError("Cannot get XPU generator without ATen_xpu library.")
        if kind not in ("cpu", "cuda"):
            raise RuntimeError(f"{kind.upper()} device type not an accelerator.")
        if kind == "cpu":
            self.device = type(self.device)("cpu")  # one CPU generator: 'cpu:0' is 'cpu'
        if kind == "cuda":
            if backend.cupy_or_none() is None:
                from ._tensor import _NO_CUDA_LIBRARY

                raise RuntimeError(_NO_CUDA_LIBRARY.replace("Cannot initialize CUDA",
                                                            "Cannot get CUDA generator", 1))
            # torch reports the device as given ('cuda' stays 'cuda'); draws use its GPU
            self._index = backend.resolve_device(self.device).index
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
        if self.device.type == "cuda":
            self._rng = backend.device_rng(seed, self._index)
        else:
            self._rng = TorchStream(seed)
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
        if self.device.type == "cuda":
            return _device_state(self._seed, self._rng)
        data = self._rng.state_bytes()
        return _make(np.frombuffer(data, dtype=np.uint8).copy())

    def set_state(self, new_state):
        """Restore a state returned by :meth:`get_state`; returns the generator.

        Args:
            new_state (Tensor): a uint8 tensor from ``get_state``.
        """
        _check_state(new_state)
        arr = new_state._array if type(new_state._array) is np.ndarray else \
            new_state._array.get()
        if self.device.type == "cuda":
            self._seed = _set_device_state(self._rng, arr)
            return self
        rng = TorchStream(0)
        rng.set_state_bytes(arr.reshape(-1).tobytes())
        self._seed, self._rng = rng.seed, rng
        return self

    def clone_state(self):
        """A new generator in the same state as this one."""
        g = Generator(self.device)
        g.set_state(self.get_state())
        return g


default_generator = Generator()
# torch seeds its default CPU generator from the operating system's entropy when a process
# starts (a fresh Generator() keeps the fixed seed above), so an unseeded program draws other
# numbers on every run under either library
default_generator.manual_seed(int(np.random.SeedSequence().entropy % (1 << 64)))


class _DeviceDefaultGenerator(Generator):
    """GPU ``index``'s default generator (an entry of ``torch.cuda.default_generators``): a
    view of the backend's per-device default source, so ``manual_seed`` and
    ``cuda.manual_seed`` reseed what this object draws from."""

    def __init__(self, index):  # noqa: D107 - no reseed on creation, unlike Generator
        self.device = backend.resolve_device(default_device(f"cuda:{index}"))
        self._index = index

    @property
    def _rng(self):
        return backend.default_device_rng(self._index)

    @property
    def _seed(self):
        return backend.device_rng_initial_seed(self._index)

    def manual_seed(self, seed):
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise ValueError("Overflow when unpacking long long")
        backend.seed_device_rngs(seed % (1 << 64), self._index)
        return self

    def set_state(self, new_state):
        _check_state(new_state)
        arr = backend.to_host(new_state._array)
        rng = self._rng
        rng.initial = _set_device_state(rng, arr)
        return self


def manual_seed(seed):
    """Seed the default generator (and every GPU's default generator) and return it.

    Args:
        seed (int): the seed, in ``[-2**63, 2**64)``.

    Example:
        >>> _ = torch.manual_seed(0)
        >>> a = torch.rand(2)
        >>> _ = torch.manual_seed(0)
        >>> bool((a == torch.rand(2)).all())
        True
    """
    g = default_generator.manual_seed(seed)
    backend.seed_device_rngs(g._seed)  # lazy: no CUDA work until a GPU generator draws
    return g


def seed():
    """Seed the default generator (and every GPU's) from operating-system entropy and return
    the seed."""
    s = default_generator.seed()
    backend.seed_device_rngs(s)
    return s


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
        devices (iterable, optional): the GPUs whose default generators are saved and restored
            too (default: every GPU, when CUDA is available).
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
    cuda = _cuda_states(devices)
    try:
        yield
    finally:
        default_generator.set_state(state)
        for index, st in cuda:
            backend.default_device_rng(index).set_state(st)


def _cuda_states(devices):
    """``[(index, state bytes)]`` of the default generators of ``devices`` (every GPU for
    None); empty without CUDA."""
    count = backend.cuda_device_count()
    if count == 0:
        return []
    if devices is None:
        indices = range(count)
    else:
        from ._device import device as _dev

        indices = [d if isinstance(d, int) else backend.resolve_device(_dev(d)).index
                   for d in devices]
    return [(i, backend.default_device_rng(i).get_state()) for i in indices]


def rng_for(generator, device=None):
    """The generator to draw from for a result on ``device`` (None: the CPU): ``generator``'s,
    or the device's default one. A CUDA generator draws on its GPU (NumPy's Generator methods
    returning CuPy arrays); torch's error when the generator's device type differs."""
    cuda = device is not None and device.type == "cuda"
    if device is not None and device.type == "meta":
        return backend.meta_rng()  # draws nothing; no generator advances, as in torch
    if generator is None:
        if cuda:
            return backend.default_device_rng(backend.resolve_device(device).index)
        return default_generator._rng
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    if cuda != (generator.device.type == "cuda"):
        raise RuntimeError(f"Expected a '{'cuda' if cuda else 'cpu'}' device type for generator "
                           f"but found '{generator.device.type}'")
    return generator._rng


def _device_state(seed, rng):
    """A CUDA generator's state as a CPU uint8 tensor: 8 bytes of seed, then the device
    state (copied from the GPU)."""
    head = np.frombuffer(int(seed).to_bytes(8, "little"), dtype=np.uint8)
    return _make(np.concatenate([head, rng.get_state()]))


def _set_device_state(rng, arr):
    """Restore a state made by :func:`_device_state`; returns its seed."""
    try:
        rng.set_state(arr[8:])
    except ValueError as e:
        raise RuntimeError(f"set_state: the given tensor is not a numtorch CUDA generator state "
                           f"({e})") from None
    return int.from_bytes(arr[:8].tobytes(), "little")
