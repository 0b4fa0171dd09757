"""The 'sum' (and the total weight of a 'mean') of a float32/float64 nll_loss or
cross_entropy over (N, C) inputs, added in the order of torch's CPU kernel, so that a
training loop prints torch's loss to the last bit (found by experiment against torch 2.13;
tests/test_loss_s40_bits.py).

The order is the cascade that ``half_nll_sum`` describes (eight levels; a level receiving a
sample whose index is a multiple of 16**(j+1) passes its sum up and restarts), with each
addition rounded in the loss's own dtype. Here a level is one (segments, 16) grid whose rows
are added left to right by ``cumsum``: a handful of array calls per level, and after two or
three levels a single value is left.
"""

import numpy as np

from .half_nll_sum import level_grid

_STEP = 16
# samples, at most, for torch's order when some are not counted (ignore_index): it costs
# ~25 ns a sample in a handful of array calls per level (700: 67 us, 16384: 0.32 ms, 65536:
# 1.3 ms; a forward over 27+ classes costs several times that); beyond, NumPy's sum
_SOME_KEPT_UP_TO = 1 << 16
_ACC = np.add.accumulate  # left to right, each addition rounded (np.cumsum adds a wrapper)


def _all_kept(v):
    """The cascade of ``v`` when every sample counts: at each level the first value leaves
    alone, then every full run of 16 leaves as one sum, and the partial run stays held."""
    dt = v.dtype.type
    rest = v.size - 1
    if _STEP < rest <= _STEP * _STEP:  # two levels (17..257 samples): fewer array calls
        full = rest // _STEP
        runs = _ACC(v[1:1 + _STEP * full].reshape(full, _STEP), axis=1)[:, -1]
        held = dt(0) if rest == _STEP * full else _ACC(v[1 + _STEP * full:])[-1]
        if full < _STEP:  # level 1 holds every run; the first value sits above
            return dt(dt(dt(0) + held) + _ACC(runs)[-1]) + v[0]
    out = dt(0)
    while v.size > 1:
        rest = v.size - 1
        if rest < _STEP:  # one partial run, held; the first value goes up alone
            out = dt(out + _ACC(v[1:])[-1])
            v = v[:1]
            continue
        runs = -(-rest // _STEP)
        # row 0 holds the first value at its end (0 + ... + v[0] is v[0]); zeros pad the
        # last, partial run
        grid = np.zeros((runs + 1, _STEP), dtype=v.dtype)
        flat = grid.reshape(-1)
        flat[_STEP - 1] = v[0]
        flat[_STEP:_STEP + rest] = v[1:]
        sums = _ACC(grid, axis=1)[:, -1]
        if rest % _STEP:
            out = dt(out + sums[-1])
            sums = sums[:-1]
        v = sums
    # the last value lands in a level above every held sum (adding their zeros is exact)
    return dt(out + v[0]) if v.size else out


def _some_kept(v, times):
    """The cascade of the values ``v`` of the samples at ``times`` (the indices of the
    counted samples, increasing): the levels pass sums up at sample indices, not counts."""
    dt = v.dtype.type
    out = dt(0)
    period = _STEP
    while v.size > 1:
        flush, grid = level_grid(times, v, period, v.dtype)
        sums = _ACC(grid, axis=1)[:, -1]
        npass = int(flush.sum())
        if grid.shape[0] > npass:
            out = dt(out + sums[npass])
        v, times = sums[:npass], times[flush]
        period *= _STEP
    return dt(out + v[0]) if v.size else out


def cascade_total(vals, kept):
    """torch's CPU sum of the (N,) float32/float64 NumPy array ``vals`` over the counted
    samples ``kept`` (a bool array, or None for all); a scalar of ``vals``' dtype, or None
    where working out the order would cost more than it is worth (many samples, some not
    counted at indices where a level passes its sum up)."""
    if kept is None or kept.all():
        return _all_kept(vals)
    if kept[::_STEP].all():
        # every index where a level could pass up counts: the runs are those of all samples,
        # and the skipped ones add exact zeros
        return _all_kept(np.where(kept, vals, 0).astype(vals.dtype, copy=False))
    if vals.shape[0] > _SOME_KEPT_UP_TO:
        return None
    times = np.flatnonzero(kept)
    return _some_kept(vals[times], times)
