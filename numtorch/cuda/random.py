"""``torch.cuda.random``: seeding and saving the state of each GPU's default generator.

Each GPU has one default generator (drawing with cuRAND through CuPy, see
``backend/_cupy_random.py``); ``torch.manual_seed`` seeds them all along with the CPU's. As in
torch, seeding is lazy (it works, and does nothing visible, on a machine without CUDA) while
reading a seed or a state needs a GPU.
"""

from .. import backend
from .._device import device as _torch_device

__all__ = ["get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "default_generators"]

_GENERATORS = {}  # device index -> its _DeviceDefaultGenerator (made on first use)


def _index(device):
    """The GPU index of ``device`` (an int, 'cuda', 'cuda:N' or a device; 'cuda' is the current
    GPU)."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    d = _torch_device(device)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return backend.resolve_device(d).index


def _require_cuda():
    if backend.cupy_or_none() is None:
        raise backend.cuda_unavailable()


def _generator(index):
    from .._random import _DeviceDefaultGenerator

    g = _GENERATORS.get(index)
    if g is None:
        g = _GENERATORS[index] = _DeviceDefaultGenerator(index)
    return g


def default_generators():
    """The default generator of every visible GPU, as a tuple (empty without CUDA)."""
    return tuple(_generator(i) for i in range(backend.cuda_device_count()))


def get_rng_state(device="cuda"):
    """The state of GPU ``device``'s default generator, as a CPU uint8 tensor.

    Args:
        device (int, str or device): the GPU. Default: the current one.
    """
    _require_cuda()
    return _generator(_index(device)).get_state()


def get_rng_state_all():
    """``[get_rng_state(i) for each GPU]`` (empty without CUDA)."""
    return [get_rng_state(i) for i in range(backend.cuda_device_count())]


def set_rng_state(new_state, device="cuda"):
    """Restore GPU ``device``'s default generator to ``new_state`` (from
    :func:`get_rng_state`); nothing happens without CUDA, as in torch.

    Args:
        new_state (Tensor): a uint8 state tensor.
        device (int, str or device): the GPU. Default: the current one.
    """
    if backend.cupy_or_none() is None:
        return
    _generator(_index(device)).set_state(new_state)


def set_rng_state_all(new_states):
    """Restore every GPU's default generator, ``new_states[i]`` on GPU ``i``."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def manual_seed(seed):
    """Seed the current GPU's default generator (nothing happens without CUDA).

    Args:
        seed (int): the seed, in ``[-2**63, 2**64)``; negative seeds wrap as in torch.
    """
    seed = _check_seed(seed)
    if backend.cupy_or_none() is not None:
        backend.seed_device_rngs(seed, _index("cuda"))


def manual_seed_all(seed):
    """Seed the default generator of every GPU (lazily: works without CUDA)."""
    backend.seed_device_rngs(_check_seed(seed))


def seed():
    """Seed the current GPU's default generator from operating-system entropy."""
    manual_seed(_entropy())


def seed_all():
    """Seed every GPU's default generator from operating-system entropy."""
    manual_seed_all(_entropy())


def initial_seed():
    """The seed the current GPU's default generator was last seeded with."""
    _require_cuda()
    return backend.device_rng_initial_seed(_index("cuda"))


def _check_seed(seed):
    seed = int(seed)
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError("Overflow when unpacking long long")
    return seed % (1 << 64)


def _entropy():
    import numpy as np

    return int(np.random.SeedSequence().entropy % (1 << 63))
