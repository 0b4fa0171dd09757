"""vmap's ``randomness=`` modes.

While a vmap runs, the default generator draws through a ``VmapRng`` that knows the active
levels. ``"error"`` refuses every draw. ``"different"`` draws independently per sample: a
sampling op on batched operands draws its whole physical shape, and a draw made outside any
op (``torch.rand(3)``) draws one value per sample and comes back batched (see
``finish_hook``). ``"same"`` draws once and shares the values over the sample dims.
"""

import numpy as np

from . import _batched as B

__all__ = ["VmapRng", "install", "uninstall"]

ERROR = ("vmap: called random operation while in randomness error mode. Please either use the "
         "'same' or 'different' randomness flags on vmap or perform the randomness operation "
         "out of vmap")


class _Sharing:
    """Draws of a physical shape whose first ``len(shared)`` dims are batch dims; the dims
    flagged in ``shared`` get one draw broadcast over them."""

    def __init__(self, rng, shared):
        self._rng, self._shared = rng, shared

    def _shape(self, shape):
        shape = tuple(shape)
        return tuple(1 if s else n for s, n in zip(self._shared, shape)) + \
            shape[len(self._shared):], shape

    def _draw(self, fn, shape, *args, **kwargs):
        small, full = self._shape(shape)
        return np.broadcast_to(fn(*args, size=small, **kwargs), full).copy()

    def random(self, size=None, dtype=np.float64):
        small, full = self._shape(size)
        return np.broadcast_to(self._rng.random(small, dtype=dtype), full).copy()

    def standard_normal(self, size=None, dtype=np.float64):
        small, full = self._shape(size)
        return np.broadcast_to(self._rng.standard_normal(small, dtype=dtype), full).copy()

    def integers(self, low, high=None, size=None, dtype=np.int64):
        return self._draw(self._rng.integers, size, low, high, dtype=dtype)

    def exponential(self, scale=1.0, size=None):
        return self._draw(self._rng.exponential, size, scale)

    def geometric(self, p, size=None):
        return self._draw(self._rng.geometric, size, p)

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        return self._draw(self._rng.lognormal, size, mean, sigma)

    def standard_cauchy(self, size=None):
        return self._draw(self._rng.standard_cauchy, size)

    def __getattr__(self, name):  # poisson(rates) and the rest: per element, as drawn
        return getattr(self._rng, name)


class VmapRng:
    """Stands in for the default generator's NumPy generator while a vmap runs."""

    is_vmap_rng = True
    ERROR = ERROR

    def __init__(self, base):
        self._base = base
        self.pending = None  # (full shape, levels) of a per-sample draw made outside an op

    def mode(self):
        modes = [lvl.randomness for lvl in B.active_levels()]
        if "error" in modes:
            return "error"
        return "different" if "different" in modes else "same"

    def levels(self):
        """The levels drawn per sample (those with randomness='different')."""
        return tuple(lvl.id for lvl in B.active_levels() if lvl.randomness == "different")

    def plain(self):
        return self._base

    def sharing(self, levels):
        diff = set(self.levels())
        return _Sharing(self._base, tuple(lvl not in diff for lvl in levels))

    # -- draws made outside any op (torch.rand, torch.randn, torch.randint, randperm) ------
    def _direct(self, draw, shape):
        mode = self.mode()
        if mode == "error":
            raise RuntimeError(ERROR)
        lv = self.levels()
        if not lv:
            return draw(tuple(shape))
        lead = tuple(B.level_size(v) for v in lv)
        full = lead + tuple(shape)
        self.pending = (full, lv)
        return draw(full)

    def random(self, size=None, dtype=np.float64):
        return self._direct(lambda s: self._base.random(s, dtype=dtype), size)

    def standard_normal(self, size=None, dtype=np.float64):
        return self._direct(lambda s: self._base.standard_normal(s, dtype=dtype), size)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        return self._direct(lambda s: self._base.integers(low, high, size=s, dtype=dtype,
                                                          endpoint=endpoint), size)

    def permutation(self, n):
        if isinstance(n, (int, np.integer)):
            def draw(shape):
                if len(shape) == 1:
                    return self._base.permutation(n)
                # one draw per sample in turn, as torch (a loop over the batch); torch's
                # innermost level loops outermost, so the outermost level's index varies
                # fastest between draws
                lead = shape[:-1]
                rows = [self._base.permutation(n) for _ in range(int(np.prod(lead)))]
                k = len(lead)
                order = tuple(range(k - 1, -1, -1)) + (k,)
                return np.stack(rows).reshape(lead[::-1] + (n,)).transpose(order)
            return self._direct(draw, (int(n),))
        if self.mode() == "error":
            raise RuntimeError(ERROR)
        return self._base.permutation(n)

    def __getattr__(self, name):
        attr = getattr(self._base, name)
        # reading or restoring the state draws nothing (checkpoint saves it to replay)
        if callable(attr) and name not in _NOT_DRAWS and self.mode() == "error":
            raise RuntimeError(ERROR)
        return attr


_NOT_DRAWS = frozenset(["spawn", "state_bytes", "set_state_bytes"])

SAME_BATCHED = ("Vmap does not currently support same randomness with a batched tensor input. "
                "Please file an issue with functorch")


def multinomial_in_vmap(fn, input, num_samples, replacement, out):
    """``torch.multinomial`` (``fn``) while a vmap runs: batched weights draw per sample from
    the physical rows (randomness 'different' only, as torch: 'same' refuses a batched
    input); plain weights draw once ('same') or once per sample ('different')."""
    from .. import _random

    gen = _random.default_generator
    rng = gen._rng
    if rng.mode() == "error":
        raise RuntimeError(ERROR)
    x = B.unwrap_owner(input)
    phys, own = B.physical(x)
    diff = rng.levels()
    if any(lvl not in diff for lvl in own):
        raise RuntimeError(SAME_BATCHED)
    full = tuple(sorted(set(own) | set(diff)))
    if full and input._array.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if full and out is not None:
        from ._batched_array import _escaped

        raise _escaped()
    gen._rng = rng.plain()  # the draws below are the physical ones
    try:
        if not full:
            return fn(phys, num_samples, replacement, out=out)
        m = B.materialize(x, full)
        draws = fn(m.reshape(-1, m.shape[-1]), num_samples, replacement)
        res = draws.reshape(tuple(m.shape[:-1]) + (num_samples,))
    finally:
        gen._rng = rng
    return B.wrap(res, full)


def finish_hook(arr, device, requires_grad, out):
    """``_creation._finish`` while a vmap runs: a per-sample draw becomes a BatchedTensor."""
    from .. import _random

    rng = _random.default_generator._rng
    pending = getattr(rng, "pending", None)
    if pending is None or out is not None:
        return None
    rng.pending = None
    full, lv = pending
    if tuple(arr.shape) != tuple(full):
        return None
    return B.wrap(_ORIGINAL_FINISH[0](arr, device, requires_grad, None), lv)


_SAVED = []
_ORIGINAL_FINISH = [None]


def _finish_in_vmap(arr, device=None, requires_grad=False, out=None):
    t = finish_hook(arr, device, requires_grad, out)
    return t if t is not None else _ORIGINAL_FINISH[0](arr, device, requires_grad, out)


def install():
    """Route the default generator through a VmapRng and the samplers' final wrapping through
    ``finish_hook`` (once, for the outermost vmap)."""
    from .. import _random, _sampling

    gen = _random.default_generator
    if isinstance(gen._rng, VmapRng):
        _SAVED.append(None)
        return
    _SAVED.append(gen._rng)
    gen._rng = VmapRng(gen._rng)
    _ORIGINAL_FINISH[0] = _sampling._finish
    _sampling._finish = _finish_in_vmap


def uninstall():
    from .. import _random, _sampling

    saved = _SAVED.pop()
    if saved is None:
        return
    gen = _random.default_generator
    if isinstance(gen._rng, VmapRng):  # unless the function reseeded the generator
        gen._rng = gen._rng._base
    _sampling._finish = _ORIGINAL_FINISH[0]
