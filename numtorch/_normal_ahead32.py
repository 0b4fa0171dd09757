"""Float32 normals for the calls a loop is about to make, computed together.

A training loop that draws ``randn(32)`` every step pays the small block kernel's ~80 NumPy
calls each time (~37 us where torch takes ~1.3 us). The values of such a call depend only on
the 32 words it takes from the stream (its blocks of 16 start where it starts), so once a
stream serves two calls of one size with nothing drawn in between, the next calls of that size
are computed at once from a copy of the stream (one pass of the large kernel over all their
words, bit for bit the same values) and served while the stream is still where the last call
left it. Anything else drawing from the stream, a reseed or a restored state moves it
elsewhere, and the look-ahead is dropped: values never depend on it, only time does.

The stream's position is read from NumPy's MT19937 state struct (624 words and ``pos``) and
the copy is a byte copy of that struct, checked once against NumPy's own state interface; if
the layout ever differs, the look-ahead stays off.
"""

import ctypes

import numpy as np

from ._normal_kernel32 import box_muller_blocks32

MAX_SIZE = 256  # larger draws gain nothing: the block kernel's cost is no longer fixed
_WORDS = 2048  # the words a look-ahead draws (64 calls of randn(32))
_STATE_BYTES = 625 * 4  # uint32 key[624]; int pos
_MASK24 = np.uint64((1 << 24) - 1)
_SCALE24 = np.float32(2.0 ** -24)
_LAYOUT_OK = []  # [bool] once checked


def _view(bit_generator):
    return (ctypes.c_uint32 * 625).from_address(bit_generator.ctypes.state_address)


def _mark(words):
    """The stream's position: pos and a few key words (a reseed or a refill changes them)."""
    return words[624], words[0], words[311], words[623], words[(words[624] - 1) % 624]


def _layout_ok(bit_generator):
    if not _LAYOUT_OK:
        try:
            probe = np.random.MT19937(12345)
            probe.random_raw(7)
            twin = np.random.MT19937()
            ctypes.memmove(twin.ctypes.state_address, probe.ctypes.state_address,
                           _STATE_BYTES)
            state = probe.state["state"]
            _LAYOUT_OK.append(bool(
                int(_view(probe)[624]) == int(state["pos"]) and
                np.array_equal(np.asarray(_view(probe)[:624], dtype=np.uint32), state["key"])
                and np.array_equal(twin.random_raw(1300), probe.random_raw(1300))))
        except (AttributeError, TypeError, ValueError, OSError):  # pragma: no cover
            _LAYOUT_OK.append(False)
    return _LAYOUT_OK[0]


class Ahead:
    """The look-ahead of one ``TorchStream``: call ``take(n)`` for ``n`` float32 normals
    (``n`` a multiple of 16, at most ``MAX_SIZE``); None means "compute them yourself"."""

    def __init__(self, bit_generator):
        self.bg = bit_generator  # (no ctypes object kept: a stream stays picklable)
        self.size = 0  # the size of the calls being served or watched
        self.after = None  # the stream's mark when the last call of that size ended
        self.values = None  # (calls, size) normals for the calls to come
        self.next = 0
        self.scratch = None

    def take(self, n):
        words = _view(self.bg)
        here = _mark(words)
        if n == self.size and here == self.after:
            if self.values is None or self.next == len(self.values):
                if not _layout_ok(self.bg):
                    return None
                self._fill(n)
            out = self.values[self.next].copy()
            self.next += 1
            self.bg.random_raw(n)  # the stream moves past the call's words, as if drawn
            self.after = _mark(words)
            return out
        # a first call of this size, or the stream moved: the caller draws; watch what follows
        self.size, self.values = n, None
        self.after = None
        return None

    def drew(self, n):
        """The caller drew its ``n`` normals itself: remember where the stream is now."""
        if n == self.size:
            self.after = _mark(_view(self.bg))

    def _fill(self, n):
        if self.scratch is None:
            self.scratch = np.random.MT19937()
        ctypes.memmove(self.scratch.ctypes.state_address, self.bg.ctypes.state_address,
                       _STATE_BYTES)
        calls = max(_WORDS // n, 2)
        bits = self.scratch.random_raw(calls * n)
        bits &= _MASK24
        values = bits.astype(np.float32)
        values *= _SCALE24
        box_muller_blocks32(values)
        self.values = values.reshape(calls, n)
        self.next = 0
