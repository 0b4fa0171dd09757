"""The 'sum' and 'mean' of a half-precision (float16/bfloat16) nll_loss over (N, C) inputs,
accumulated as torch's CPU kernel does (found by experiment against torch 2.13;
tests/test_gap_s38_half_nll.py).

torch keeps eight partial sums in the half type, every addition rounded. Each counted sample
(ignored targets are skipped entirely) is added into level 0; after a sample whose index is
a multiple of 16**(j+1), level j is added into level j+1 and cleared (from level 0 upward, so
index 0 lifts its value to the top level). The result adds the levels from 0 to 7 onto zero.
The total weight of a weighted mean uses the same cascade.

Vectorised per level: between two flushes a level receives at most 16 values, so a level is
a (segments, 16) grid summed column by column.
"""

import numpy as np

_STEP = 16
_LEVELS = 8


def level_grid(times, vals, period, dtype):
    """One cascade level's inputs ``vals`` (arriving at sample ``times``, increasing) laid
    out as a (segments, longest) grid of ``dtype``, a row per run between two flushes (a
    flush at every time divisible by ``period``; None: never), zero-padded (padding zeros
    leave a partial sum as it is); and the flush mask."""
    n = len(times)
    flush = (times % period == 0) if period else np.zeros(n, dtype=bool)
    seg = np.cumsum(flush) - flush  # the segment a value joins: flushes strictly before it
    nseg = int(seg[-1]) + 1
    pos = np.arange(n) - np.searchsorted(seg, np.arange(nseg))[seg]
    grid = np.zeros((nseg, int(pos.max()) + 1), dtype=dtype)
    grid[seg, pos] = vals
    return flush, grid


def _level(times, vals, period, half):
    """Run one level over its inputs ``vals`` (float32) arriving at sample ``times``: returns
    the times and values it passes up (a flush at every time divisible by ``period``; None:
    never) and what it holds at the end."""
    if len(times) == 0:
        return times, vals, half(0)
    flush, grid = level_grid(times, vals, period, np.float32)
    nseg = grid.shape[0]
    acc = np.zeros(nseg, dtype=half)
    for i in range(grid.shape[1]):
        acc = (acc.astype(np.float32) + grid[:, i]).astype(half)
    nflush = int(flush.sum())
    held = acc[nflush] if nseg > nflush else half(0)
    return times[flush], acc[:nflush].astype(np.float32), held


def cascade_sum(vals, kept):
    """torch's half cascade sum of the (N,) half array ``vals`` over the samples ``kept``
    (a bool array, or None for all); a half scalar."""
    half = vals.dtype.type
    times = np.arange(vals.shape[0]) if kept is None else np.flatnonzero(kept)
    v = vals.astype(np.float32)[times]
    held = []
    for j in range(_LEVELS):
        period = _STEP ** (j + 1) if j + 1 < _LEVELS else None
        times, v, h = _level(times, v, period, half)
        held.append(h)
    out = half(0)
    for h in held:
        out = half(np.float32(out) + np.float32(h))
    return out
