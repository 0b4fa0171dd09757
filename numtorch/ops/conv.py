"""Convolution primitives: N-d convolution, its transpose and its weight gradient.

Why primitives (design doc, section 8): a convolution composed of views and matmul would record
a dozen nodes and keep every intermediate alive; written here it is one strided view of the
input (im2col through ``as_strided``, no Python loop over output positions), one copy into
GEMM layout and ONE matmul per call, batched over groups.

The three ops are each other's gradients, which is what makes double backward work:

* ``Conv(x, w)``            -> y
* ``ConvTranspose(y, w)``   -> x-shaped   (the input gradient of Conv; col2im after a GEMM)
* ``ConvWeight(x, y)``      -> w-shaped   (the weight gradient of Conv; one GEMM)

Conv's backward is ``ConvTranspose`` (for x) and ``ConvWeight`` (for w); ConvTranspose's
backward is ``Conv`` and ``ConvWeight``; ConvWeight's backward is ``ConvTranspose`` and
``Conv``. All three are bilinear, so this closes under differentiation.

Layout: the GEMM operand ("cols") is ``(groups, C/groups * prod(kernel), n * prod(out))`` for a
block of ``n`` samples: the samples sit in the GEMM's long dim, so a block is one BLAS call
whatever its size. Blocks are cache-sized with a single-threaded BLAS and the whole batch with
a threaded one (see ``_chunk``; both measured). Channels-first columns keep the copy reading
whole rows of the input; an NHWC-style order (channels innermost) measured 2-3x slower to
build, because its innermost runs are only ``kernel_w`` long.
``unfold``/``fold`` (``Im2Col``/``Col2Im``, in ``conv_fold``) use torch's ``(N, C * prod(kernel),
L)`` layout on the same windows and col2im.

Padding is given per spatial dim as ``(low, high)`` pairs, so the asymmetric padding of
``padding='same'`` with even kernels needs no separate pad copy.

Kernel paths, chosen per shape by measurement (``bench/conv_shapes.py``); each is named by
``_note`` so that tests can assert which one a shape class takes:

* a kernel covering the whole unpadded input (one output position: a GAN's last
  discriminator layer or first generator layer): one GEMM over the flattened samples
  (``forward-whole``, ``input-whole``, ``weight-whole``);
* 1x1 without padding: a plain GEMM per sample for all three passes, or one over all the
  samples' positions on maps under ``_ONE_GEMM_BELOW`` positions, no im2col (``forward-1x1``,
  ``input-1x1``, ``weight-1x1``);
* 3x3 stride-1 single-group convolutions with many channels: Winograd F(2x2, 3x3) for the
  forward (so also the stride-1 input gradient) and the weight gradient (``conv_winograd``;
  ``forward-winograd``, ``weight-winograd``);
* 2-d stride-1 single-group convolutions with few filters against many input channels under
  a kernel of 9+ taps (fast_neural_style's 32 -> 3 9x9 output layer): one GEMM row per
  (filter, tap) and shifted adds instead of im2col, and the weight gradient from columns of
  the output gradient (``conv_taps``; ``forward-taps``, ``weight-taps``);
* depthwise 2-d stride 1 with a large kernel on a narrow map (ConvNeXt's 7x7): one GEMM per
  channel against a banded matrix of the kernel, on a strided view of the stacked padded
  planes (``conv_depthwise_band``; ``forward-depthwise-band``, ``weight-depthwise-band``);
* depthwise 2-d (one filter per channel) with up to ``MAX_CELLS`` grid cells per channel: a
  GEMV per channel over tap rows copied as one contiguous run each from channel-major phase
  planes (``conv_depthwise_gemv``; ``forward-depthwise-gemv``, ``weight-depthwise-gemv``
  for strided ones);
* depthwise stride 1 (one filter per channel): flat padded planes, one contiguous slice per
  kernel tap (``conv_depthwise``; ``forward-depthwise``, ``weight-depthwise``);
* 2-d stride 1 with few channels per group over rows of at least ``_FLAT_MIN_WIDTH``: im2col
  from flat padded planes, whose kernel-tap columns are contiguous runs (``forward-flat``);
* stride-1 input gradients (and stride-1 transposed convolutions) as a convolution of the
  output gradient (``input-as-conv``); strided ones with a kernel a multiple of the stride
  (dcgan's 4x4/2) as one stride-1 GEMM per output phase (``conv_subpixel``;
  ``input-subpixel``), the others through col2im (``input-col2im``);
  both gradients of a Winograd 3x3 at once from the output gradient's tiles
  (``backward-winograd``);
* a shallow reduction (``C * prod(kernel)`` of at most ``_PER_SAMPLE_MAX_DEPTH``: a network's
  first layer) over maps of ``_MIN_POINTWISE_LENGTH``+ positions: one GEMM per sample, batched
  (``forward-per-sample``, ``weight-per-sample``);
* strided 2-d convolutions whose kernel is a multiple of the stride (dcgan's 4x4/2) over
  16x16+ output maps with shallow cells: stride-1 convolutions of space-to-depth cells, one
  GEMM per tap reading one buffer in place, no columns (``conv_s2d``; ``forward-s2d``,
  ``weight-s2d``, ``input-s2d``, ``backward-s2d-pair``);
* strided 2-d convolutions over small maps with a moderate reduction (siamese_network's
  ResNet-18 at batch 1000 on 7x7 and 4x4 maps): channels-last columns, whole channel vectors
  per copy (``conv_nhwc``; ``forward-nhwc``, ``weight-nhwc``, ``input-nhwc``);
* everything else: im2col and GEMM in blocks (``forward-im2col``, ``weight-im2col``), the
  columns of strided 2-d convolutions with long output rows copied from phase planes
  (``conv_phases``; ``columns-phases``).

A single sample too large for one block (a 1080x1080 image) is cut into bands of output rows
(``_band``; Winograd: bands of tile rows), so that no path materialises a whole image's
columns or transformed tiles (up to 12 GB for fast_neural_style's 32 -> 3 9x9 layer).

Device (CuPy) arrays skip all of the above: ``conv_device`` runs one im2col copy and one GEMM
per pass (``forward-device``, ``weight-device``, ``input-as-conv``, ``input-device-col2im``).
"""

import itertools
import os

from ..autograd.graph import Op, channels_last_layout
from ..backend import helpers_for, is_device_array
from ..backend._run_copy import ascontiguous as _runs_contiguous
from . import _intraop
from . import conv_col2im as _col2im_last
from . import conv_depthwise as _depthwise
from . import conv_depthwise_band as _dw_band
from . import conv_depthwise_gemv as _dw_gemv
from . import conv_device as _device
from . import conv_half as _half
from . import conv_nhwc as _nhwc
from . import conv_phases as _phases
from . import conv_s2d as _s2d
from . import conv_samples as _batch_split
from . import conv_subpixel as _subpixel
from . import conv_taps as _taps
from . import conv_winograd as _winograd

__all__ = []


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def out_size(size, kernel, stride, padding, dilation):
    """Output spatial size of a convolution (floor division, as torch)."""
    return tuple((s + lo + hi - d * (k - 1) - 1) // st + 1
                 for s, k, st, (lo, hi), d in zip(size, kernel, stride, padding, dilation))


def _copy(xp, src, out=None):
    """A contiguous copy of ``src`` (into ``out`` if given); on the CPU split across the
    intra-op threads (``_intraop.copy``): the copies around a convolution's GEMM are otherwise
    its single-threaded part (ResNet-18's im2col alone is ~15% of a step)."""
    if is_device_array(src):
        if out is None:
            return xp.ascontiguousarray(src)
        out[...] = src
        return out
    return _intraop.copy(src, out)


def _pad_zeros(xp, x, padding):
    """``x`` with zeros added around its spatial dims (``x`` itself when no padding)."""
    if not any(lo or hi for lo, hi in padding):
        return x
    nd = len(padding)
    shape = x.shape[:-nd] + tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[-nd:], padding))
    out = xp.zeros(shape, dtype=x.dtype)
    _copy(xp, x, out[(Ellipsis,) + tuple(slice(lo, lo + s) for s, (lo, _) in
                                        zip(x.shape[-nd:], padding))])
    return out


def _windows(xp, x, kernel, stride, dilation, out):
    """The read-only strided view ``(N, C, *out, *kernel)`` of a padded ``(N, C, *S)`` x."""
    lead, sp = x.strides[:2], x.strides[2:]
    shape = x.shape[:2] + tuple(out) + tuple(kernel)
    strides = (lead + tuple(s * st for s, st in zip(sp, stride))
               + tuple(s * d for s, d in zip(sp, dilation)))
    return helpers_for(xp).as_strided(x, shape, strides)


def _cols_view(xp, x, kernel, stride, padding, dilation, out=None):
    """im2col as a strided view ``(C, *kernel, N, *out)`` (GEMM order), and ``out``.

    ``out`` may ask for fewer positions than fit: the adjoint of a transposed convolution
    whose output padding exceeds its stride (allowed below the dilation) has only as many
    outputs as that convolution had inputs.
    """
    nd = len(kernel)
    xpad = _pad_zeros(xp, x, padding)
    if out is None:
        out = out_size(x.shape[2:], kernel, stride, padding, dilation)
    win = _windows(xp, xpad, kernel, stride, dilation, out)
    axes = (1,) + tuple(range(2 + nd, 2 + 2 * nd)) + (0,) + tuple(range(2, 2 + nd))
    return win.transpose(axes), out


def _im2col(xp, x, kernel, stride, padding, dilation, out=None):
    """``(block, out)``: ``block(i, m)`` is the contiguous im2col columns
    ``(C * prod(kernel), m * prod(out))`` of samples ``i:i+m``; ``block(i, 1, (r0, r1))`` those
    of output rows ``r0:r1`` (first spatial dim) of sample ``i``; ``block(i, m, None, dst)``
    writes them into the 2-d view ``dst`` (unit-stride rows) and returns it. Strided 2-d
    convolutions copy them from the input's phase planes (``conv_phases``: whole output rows
    per copy; the ResNet-18 stem's columns 2.6 -> 1.0 ms per sample block), the others from a
    strided view of the padded input."""
    if out is None:
        out = out_size(x.shape[2:], kernel, stride, padding, dilation)
    if _PHASED and _phases.applies(x, kernel, stride, dilation, out):
        _note("columns-phases")
        return _phases.Planes(xp, x, kernel, stride, padding, tuple(out)).columns, out
    view, out = _cols_view(xp, x, kernel, stride, padding, dilation, out)
    nd = len(kernel)

    def block(i, m, rows=None, dst=None):
        band = () if rows is None else (slice(*rows),)
        src = view[(slice(None),) * (1 + nd) + (slice(i, i + m),) + band]
        if dst is not None:
            _copy(xp, src, dst.reshape(src.shape))  # splits dst's axes: a view, never a copy
            return dst
        return _copy(xp, src)

    return block, out


def _chunk(n, per_sample, length):
    """Samples per block of im2col columns (each block is one GEMM, batched over groups).

    Materialising the columns of the whole batch costs several passes over main memory (the
    copy, the GEMM reading it back, page faults of a fresh buffer). In blocks of about 1 MiB
    the copy stays in the L2 cache and the GEMM reads it from there: measured 30-45% faster
    for a small CNN's step with a single-threaded BLAS. A multi-threaded BLAS synchronises its
    threads in every call, which costs little on an idle machine but up to a scheduler time
    slice per call on a busy one (the blocked step measured 2-4x slower there than one GEMM
    per op), so with several BLAS threads the batch is cut into at most ``_MAX_BLOCKS``
    blocks, each at most ``_MAX_BLOCK_BYTES`` (which bounds the memory of large batches).
    """
    budget = _BLOCK_BYTES
    if _threaded():
        budget = max(budget, min(n * per_sample // _MAX_BLOCKS + 1, _MAX_BLOCK_BYTES))
    # but never so few output positions that the GEMM turns skinny (small late-stage maps)
    least = -(-_MIN_BLOCK_COLUMNS // max(length, 1))
    return max(1, min(n, max(budget // max(per_sample, 1), least)))


def _band(step, per_position, out):
    """Output rows per band of one sample's im2col columns, and the positions per row: all
    rows unless blocks are single samples whose columns overflow ``_BLOCK_BYTES`` (a 1080x1080
    image's 32 -> 64 3x3/2 conv: 340 MB of columns at once, banded 1 MB, no slower, and the
    weight gradient of its 3 -> 32 9x9 input conv: 1.1 GB); a band has at least
    ``_MIN_BLOCK_COLUMNS`` positions."""
    rest = _prod(out[1:])
    if step > 1 or not out:
        return (out[0] if out else 1), rest
    least = -(-_MIN_BLOCK_COLUMNS // max(rest, 1))
    return max(1, _BLOCK_BYTES // max(per_position * rest, 1), least), rest


def _threaded():
    """Whether BLAS runs several threads now (asked at each call: ``set_num_threads`` and the
    load cap of ``numtorch._threads`` may change it); ``_THREADED`` overrides the answer when
    it is not None.

    The count BLAS runs, not the user's: with two threads asked for and one other process
    busy, BLAS is capped at one thread, and whole-batch blocks made the MNIST net's 32 -> 64
    forward 24 ms against 18 in cache-sized ones (wall, median of 6 processes)."""
    if _THREADED is not None:
        return _THREADED
    if _batch_split.in_part():  # one part of a batch split across cores: BLAS runs one thread
        return False
    try:
        from .._threads import blas_threads_now, fit_blas_threads
    except ImportError:  # a build without the thread-count helper
        return (os.cpu_count() or 1) > 1
    fit_blas_threads()
    return blas_threads_now() > 1


_BLOCK_BYTES = 1 << 20
_MIN_BLOCK_COLUMNS = 512
_MIN_POINTWISE_LENGTH = 128
_FLAT_MIN_WIDTH = 32
_FLAT_MAX_DEPTH = 512
_MIN_CHANNELS_AS_CONV = 8  # fewer: too few GEMM rows (MNIST conv1 4x slower)
_MAX_AS_CONV_GROWTH = 3  # dx over gy positions above which col2im beats as-conv
_PATHS = None  # a list while a test watches which kernel each call takes


def _note(path):
    if _PATHS is not None:
        _PATHS.append(path)
_DIRECT_WEIGHT_ELEMENTS = 1 << 18
_MAX_BLOCKS = 1
_MAX_BLOCK_BYTES = 64 << 20
_THREADED = None
# C * prod(kernel) up to which dw is one GEMM per sample: dcgan's 3 -> 64 4x4/2 first layer
# (48 rows) dw 20.6 -> 9.2 ms, forward 10.3 -> 8.0; 4-7 channels 3x3 on 32x32 dw 7.2 -> 4.5,
# 9.2 -> 7.7 ms (one thread, CPU time); 144 rows lost (5.6 -> 6.8)
_PER_SAMPLE_MAX_DEPTH = 64
_BOTH_WINOGRAD = True  # conv_winograd.backward for both gradients (off: to compare)
_NHWC = True  # strided convs over short rows through conv_nhwc (off: to compare)
_PHASED = True  # im2col from phase planes where it applies (off: to compare, as in bench)
_FOLD_BIAS = True  # forward-im2col's bias folded into its GEMM (off: to compare)
_DW_GEMV = True  # depthwise 2-d convs as per-channel GEMVs over tap rows (conv_depthwise_gemv)
_S2D = True  # strided convs with kernel % stride == 0 on a space-to-depth grid (conv_s2d)
_SUBPIXEL = True  # strided input gradients as sub-pixel phases where they apply (off: compare)


def _rows(xp, g3, i, m, groups):
    """Samples ``i:i+m`` of a ``(N, O, L)`` array as GEMM rows ``(groups, O/g, m * L)``."""
    if m == 1:
        return g3[i].reshape(groups, -1, g3.shape[2])
    part = _copy(xp, g3[i:i + m].swapaxes(0, 1))
    return part.reshape(groups, -1, m * g3.shape[2])


def _cols_of(xp, g3, i, m, groups):
    """Samples ``i:i+m`` of a ``(N, O, L)`` array as GEMM columns ``(groups, m * L, O/g)``.

    A row-major copy: BLAS runs the long reduction of the weight gradient fastest on it (a
    transposed view of ``_rows`` measured 10-25% slower, far more with several threads).
    Except for one sample with a one-thread BLAS: its rows are one transposed matrix, which
    BLAS reads as it is, and the copy cost more than it saved (ResNet-18's 7x7 stem, batch
    16: 17.4 -> 16.2 ms, a 3x3/2 64-channel conv on 56x56 16.6 -> 15.7; one thread, CPU time).
    """
    if m == 1 and not is_device_array(g3) and not _threaded():
        return g3[i].reshape(groups, -1, g3.shape[2]).swapaxes(1, 2)
    part = _copy(xp, g3[i:i + m].swapaxes(1, 2))  # (m, L, O)
    return part.reshape(m * g3.shape[2], groups, -1).swapaxes(0, 1)


def _pointwise(kernel, padding, out):
    """Whether a convolution is a plain GEMM: a 1x1 kernel (``kernel`` or a weight) without
    padding (per sample, or over all samples' positions on small maps: ``_pointwise_product``;
    measured at or below the im2col path's time on every shape of 4-64 positions, 16-256 input
    and 64-512 output channels, batch 8 and 64, forward and backward, where im2col was faster
    on maps under 128 positions before the small maps took one GEMM)."""
    shape = kernel.shape[2:] if hasattr(kernel, "shape") else kernel
    return all(k == 1 for k in shape) and not any(lo or hi for lo, hi in padding)


def _channels_last_rows(a):
    """A channels-last ``(N, C, *S)`` array (not row-major: its memory is ``(N, *S, C)``) as
    its ``(N * prod(S), C)`` rows, a view; None for any other layout. 2-d and 3-d maps only:
    torch has no channels-last 1-d layout (conv1d of a transposed input writes row-major)."""
    if a.flags.c_contiguous or a.ndim not in (4, 5):
        return None
    v = a.transpose((0,) + tuple(range(2, a.ndim)) + (1,))
    return v.reshape(-1, a.shape[1]) if v.flags.c_contiguous else None


def _rows_1x1(x, w, stride, padding, groups, res):
    """x's rows when conv(x, w) is a 1x1, unpadded, stride-1, one-group convolution of a
    channels-last x with no caller's buffer to fill: then every pass is ONE GEMM on rows
    (ConvNeXt's MLP, channels-last models), where the channels-first path copies x to
    channels-first, runs a GEMM per sample and copies the result back."""
    if res is not None or groups != 1 or any(k != 1 for k in w.shape[2:]) or \
            any(s != 1 for s in stride) or any(lo or hi for lo, hi in padding):
        return None
    return _channels_last_rows(x)


def _from_rows(rows, like, channels):
    """``(N * prod(S), channels)`` rows as the channels-last ``(N, channels, *S)`` array."""
    nd = like.ndim
    y = rows.reshape((like.shape[0],) + tuple(like.shape[2:]) + (channels,))
    return y.transpose((0, nd - 1) + tuple(range(1, nd - 1)))


def _group_matrix(w, groups):
    """A 1x1 weight ``(O, C/g, 1...)`` as the GEMM operand ``(g, O/g, C/g)``."""
    return w.reshape(groups, w.shape[0] // groups, w.shape[1])


_ONE_GEMM_BELOW = 32


def _pointwise_product(xp, wm, xs):
    """``wm`` ``(g, P, Q)`` applied to every sample of ``xs`` ``(n, g, Q, L)``: ``(n, g, P, L)``.
    One GEMM per sample on maps of ``_ONE_GEMM_BELOW``+ positions; on smaller maps those are
    too skinny for BLAS (CvT's and ResNet's late 1x1 convolutions on 2x2-4x4 maps), and one
    GEMM over every sample's positions, ``xs`` copied position-major, is faster."""
    n, g, q, length = xs.shape
    if length >= _ONE_GEMM_BELOW:
        return xp.matmul(wm, xs)
    # (the copies move runs of L < 32 values: as whole items, see backend._run_copy)
    xt = _runs_contiguous(xp, xs.transpose(1, 2, 0, 3)).reshape(g, q, n * length)
    y = _matmul(xp, wm, xt)  # (g, P, n * L)
    return _runs_contiguous(xp, y.reshape(g, wm.shape[1], n, length).transpose(2, 0, 1, 3))


def _subsample(stride, out):
    """The index of the ``out`` positions a strided 1x1 convolution reads."""
    return (slice(None), slice(None)) + tuple(slice(0, o * st, st) for o, st in zip(out, stride))


def _samples(xp, x, stride, out, groups):
    """The positions a 1x1 convolution reads, as ``(N, g, C/g, L)`` (a copy only if strided)."""
    xs = x[_subsample(stride, out)]
    return xs.reshape(x.shape[0], groups, x.shape[1] // groups, _prod(out))


def _whole(kernel, size, padding, dilation, groups):
    """Whether the kernel covers the whole unpadded input (a GAN discriminator's last layer,
    a generator's first on a 1x1 map): the convolution is then one GEMM over the flattened
    samples, with no im2col copy or col2im scatter (dcgan's 512 -> 1 4x4 layer on 4x4 maps
    copied a transposed x for a GEMV, and took the col2im path for dx)."""
    return (groups == 1 and tuple(kernel) == tuple(size) and all(d == 1 for d in dilation)
            and not any(lo or hi for lo, hi in padding))


def _matmul(xp, a, b, out=None):
    """Batched (over groups) matmul; a plain 2-D GEMM when there is a single group."""
    if a.shape[0] == 1:
        res = xp.matmul(a[0], b[0], out=None if out is None else out[0])
        return res[None] if out is None else out
    return xp.matmul(a, b, out=out)


def _into(xp, y, res):
    """``y`` written into ``res`` (``y`` itself when there is no ``res``, or it is ``res``)."""
    if res is None or y is res:
        return y
    _copy(xp, y, res)
    return res


def _given(res, dtype):
    """``res`` if a kernel may write its result ``dtype`` straight into it, else None."""
    return res if res is not None and res.dtype == dtype else None


def _conv_forward(xp, x, w, b, stride, padding, dilation, groups, out=None, taps=None,
                  res=None):
    """y = conv(x, w) + b: a 1x1 convolution over a large map is a plain GEMM per sample; any
    other goes through im2col and a GEMM block by block (see ``_chunk``). ``taps``: the
    Winograd filters of ``w`` when the caller has them (``conv_winograd.forward``). ``res``:
    a contiguous array of y's shape to hold the result (one part's share of a batch split
    across cores, so that the parts need no joining copy); it is what is returned then."""
    return _into(xp, _forward_paths(xp, x, w, b, stride, padding, dilation, groups, out, taps,
                                    res), res)


def _forward_paths(xp, x, w, b, stride, padding, dilation, groups, out, taps, res):
    if out is None:
        out = out_size(x.shape[2:], w.shape[2:], stride, padding, dilation)
    if is_device_array(x):
        _note("forward-device")
        return _device.forward(xp, x, w, b, stride, padding, dilation, groups, tuple(out))
    live = _live_taps(x.shape[2:], w.shape[2:], stride, padding, dilation, out) \
        if taps is None else None
    if live is not None:
        # taps that read only padding add nothing: drop them
        _note("forward-live-taps")
        crop, padding = live
        w = w[crop]
    rows = _rows_1x1(x, w, stride, padding, groups, res)
    if rows is not None:
        _note("forward-1x1-channels-last")
        y = xp.matmul(rows, w.reshape(w.shape[0], w.shape[1]).T)
        if b is not None:
            y += b
        return _from_rows(y, x, w.shape[0])
    if _whole(w.shape[2:], x.shape[2:], padding, dilation, groups):
        _note("forward-whole")
        n, o = x.shape[0], w.shape[0]
        ck = _prod(w.shape[1:])
        y = xp.matmul(x.reshape(n, ck), w.reshape(o, ck).T)
        if b is not None:
            y += b
        return y.reshape((n, o) + (1,) * (w.ndim - 2))
    if _pointwise(w, padding, out):
        _note("forward-1x1")
        y = _pointwise_product(xp, _group_matrix(w, groups), _samples(xp, x, stride, out, groups))
        y = y.reshape((x.shape[0], w.shape[0]) + tuple(out))
        if b is not None:
            y += b.reshape((-1,) + (1,) * len(out))
        return y
    if _dw_band.applies(x, w, stride, dilation, groups, out, padding):
        _note("forward-depthwise-band")
        return _dw_band.forward(xp, x, w, b, padding, out)
    if _DW_GEMV and _dw_gemv.applies(x, w, stride, dilation, groups, out):
        _note("forward-depthwise-gemv")
        return _dw_gemv.forward(xp, x, w, b, stride, padding, dilation, out)
    if _depthwise.applies(x.shape[1], w.shape[0], groups, stride):
        _note("forward-depthwise")
        return _depthwise.forward(xp, x, w, b, padding, dilation, out)
    if _winograd.applies(x, w, stride, dilation, groups, out):
        _note("forward-winograd")
        return _winograd.forward(xp, x, w, b, padding, out, taps, _given(res, x.dtype))
    res = _given(res, xp.result_type(x, w))
    if _taps_apply(x, w.shape[0], w, stride, padding, groups, out, _taps.FORWARD_SHARE):
        _note("forward-taps")
        return _into(xp, _taps.forward(xp, x, w, b, padding, dilation, out), res)
    if _flat_applies(w, groups, stride, out):
        _note("forward-flat")
        return _flat_forward(xp, x, w, b, padding, dilation, groups, out, res)
    if _S2D and _s2d.applies(x, w, stride, dilation, groups, out):
        _note("forward-s2d")
        return _s2d.forward(xp, x, w, b, stride, padding, out, res)
    if _per_sample(w.shape[1] * _prod(w.shape[2:]), groups, out):
        _note("forward-per-sample")
        return _forward_per_sample(xp, x, w, b, stride, padding, dilation, out, res)
    if _nhwc_applies(x, w, stride, dilation, groups, out):
        _note("forward-nhwc")
        return _nhwc.forward(xp, x, w, b, stride, padding, dilation, out, res)
    _note("forward-im2col")
    kernel = w.shape[2:]
    block, out = _im2col(xp, x, kernel, stride, padding, dilation, out)
    n, o = x.shape[0], w.shape[0]
    length = _prod(out)
    wm = w.reshape(groups, o // groups, -1)
    y = xp.empty((n, o, length), dtype=xp.result_type(x, w)) if res is None else \
        res.reshape(n, o, length)
    step = _chunk(n, wm.shape[2] * groups * length * x.itemsize, length)
    bias = None if b is None else b.reshape(o, 1)
    band, rest = _band(step, wm.shape[2] * groups * x.itemsize, out)
    if _FOLD_BIAS and bias is not None and band >= out[0] and groups == 1 and \
            b.dtype == w.dtype == x.dtype and x.dtype.char in "fd":
        # the bias as one more GEMM column of w against a row of ones under the columns
        # (one reused buffer), not a pass over y per block: 8x16x80x80 -> 32 3x3/2 (phase
        # columns) 3.43 -> 3.23 ms, the MNIST net's 32 -> 64 3x3 19.10 -> 18.91 (one thread,
        # CPU time, medians of 5 alternating)
        return _forward_bias_folded(xp, block, wm[0], b, n, step, length, y, out, res)
    for i in range(0, n, step):
        m = min(step, n - i)
        if band < out[0]:
            y4 = y[i].reshape(o, out[0], rest)
            for r in range(0, out[0], band):
                rows = min(band, out[0] - r)
                cols = block(i, 1, (r, r + rows)).reshape(groups, -1, rows * rest)
                _matmul(xp, wm, cols,
                        out=y4[:, r:r + rows].reshape(groups, o // groups, rows * rest))
            if bias is not None:
                y[i] += bias
            continue
        cols = block(i, m).reshape(groups, -1, m * length)
        if m == 1:
            _matmul(xp, wm, cols, out=y[i].reshape(groups, o // groups, length))
        else:
            _copy(xp, _matmul(xp, wm, cols).reshape(o, m, length).swapaxes(0, 1), y[i:i + m])
        if bias is not None:
            y[i:i + m] += bias
    return y.reshape((n, o) + tuple(out)) if res is None else res


def _forward_bias_folded(xp, block, wm, b, n, step, length, y, out, res):
    """The forward-im2col blocks of a single-group convolution with its bias folded into the
    GEMM: ``[w | b] @ [cols; 1]``."""
    o, ck = wm.shape
    wb = xp.concatenate((wm, b.reshape(o, 1)), axis=1)
    buf = xp.empty((ck + 1, min(step, n) * length), dtype=y.dtype)
    buf[ck] = 1
    for i in range(0, n, step):
        m = min(step, n - i)
        cols = buf[:, :m * length]
        block(i, m, None, cols[:ck])
        if m == 1:
            xp.matmul(wb, cols, out=y[i])
        else:
            _copy(xp, xp.matmul(wb, cols).reshape(o, m, length).swapaxes(0, 1), y[i:i + m])
    return y.reshape((n, o) + tuple(out)) if res is None else res


def _taps_apply(x, o, other, stride, padding, groups, out, share, kernel=None):
    """Whether ``conv_taps`` computes this convolution (or its weight gradient, ``other``
    being the output gradient): few filters against the input channels under a large
    kernel, operands of one floating dtype."""
    if kernel is None:
        kernel = other.shape[2:]
    return other.dtype == x.dtype and _taps.applies(
        x.shape[1], o, tuple(kernel), stride, groups, x.dtype, x, share) and _taps.dense(
        x.shape[2:], padding, out)


def _live_taps(size, kernel, stride, padding, dilation, out):
    """``(index of the kernel's live taps, padding for them)`` when some kernel rows or columns
    read only padding at every output position (a 3x3 kernel with padding 1 over a 1x1 map:
    ResNet-18's last stage on 28x28 images, where a forward of 1000 samples ran 63 ms of
    im2col against 19 in torch); None when every tap is live or cropping would need a negative
    padding."""
    crop, pads, cut = [slice(None), slice(None)], [], False
    for s, k, st, (lo, hi), d, q in zip(size, kernel, stride, padding, dilation, out):
        # tap t reads rows i * st + t * d - lo for outputs i < q: live if one is inside [0, s)
        live = [t for t in range(k) if t * d - lo <= s - 1 and (q - 1) * st + t * d - lo >= 0]
        if not live:
            return None
        t0, t1 = live[0], live[-1]
        lo2, hi2 = lo - t0 * d, hi - (k - 1 - t1) * d
        if lo2 < 0 or hi2 < 0:
            return None
        cut = cut or t0 > 0 or t1 < k - 1
        crop.append(slice(t0, t1 + 1))
        pads.append((lo2, hi2))
    return (tuple(crop), tuple(pads)) if cut else None


def _flat_applies(w, groups, stride, out):
    """Whether ``_flat_forward`` wins: a 2-d stride-1 convolution with few input channels per
    group (the im2col copy is then a large share of the work) over rows wide enough that the
    junk columns cost little (measured: 3x3 with 16-32 channels on 32x32 maps 18-30% faster;
    64 channels on 28x28 or 26x26 without padding 5-10% slower)."""
    return (len(out) == 2 and all(st == 1 for st in stride) and out[-1] >= _FLAT_MIN_WIDTH
            and w.shape[1] * _prod(w.shape[2:]) <= _FLAT_MAX_DEPTH)


def _flat_forward(xp, x, w, b, padding, dilation, groups, out, res=None):
    """y = conv(x, w) + b (stride 1) with im2col from flat padded planes.

    Each (sample, channel) plane is zero-padded and flattened once; computing the output on
    the padded grid (``(padded_w - out_w)`` junk columns per row, dropped when the result is
    copied into y), the columns of kernel tap ``t`` are the contiguous run
    ``plane[off_t : off_t + out_h * padded_w]``, so the im2col copy moves whole runs instead
    of one output row at a time.
    """
    kernel = w.shape[2:]
    nd = len(kernel)
    n, c = x.shape[:2]
    o = w.shape[0]
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[2:], padding))
    plane_strides = [_prod(padded[d + 1:]) for d in range(nd)]
    length = out[0] * plane_strides[0]
    reach = sum((k - 1) * dl * st for k, dl, st in zip(kernel, dilation, plane_strides))
    size = _prod(padded)
    flat = xp.zeros((n, c, size + max(0, reach + length - size)), dtype=x.dtype)
    inner = flat[:, :, :size].reshape((n, c) + padded)
    _copy(xp, x, inner[(slice(None),) * 2 + tuple(slice(lo, lo + s) for s, (lo, _) in
                                                  zip(x.shape[2:], padding))])
    item = flat.itemsize
    view = helpers_for(xp).as_strided(
        flat, (c,) + tuple(kernel) + (n, length),
        (flat.strides[1],) + tuple(dl * st * item for dl, st in zip(dilation, plane_strides))
        + (flat.strides[0], item))
    wm = w.reshape(groups, o // groups, -1)
    y = xp.empty((n, o) + tuple(out), dtype=xp.result_type(x, w)) if res is None else res
    step = _chunk(n, wm.shape[2] * groups * length * x.itemsize, length)
    valid = (slice(None),) * 3 + tuple(slice(0, q) for q in out[1:])
    # one sample's columns beyond the block: bands of output rows (a 1080x1080 image's 3 -> 32
    # 9x9 conv: 1.1 GB of columns at once)
    band = max(1, _BLOCK_BYTES // (wm.shape[2] * groups * plane_strides[0] * x.itemsize))
    # the bias folded into the GEMM as for forward-im2col (``_forward_bias_folded``): the
    # pass over y cost 0.9 of 4.3 ms for 128x3x32x32 -> 16 (one thread, CPU time); samples
    # banded one at a time (32 channels on 32x32 maps) keep the pass
    fold = (_FOLD_BIAS and b is not None and groups == 1 and b.dtype == w.dtype == x.dtype
            and x.dtype.char in "fd"
            and (step > 1 or band >= out[0]))
    if fold:
        ck = wm.shape[2]
        wb = xp.concatenate((wm[0], b.reshape(o, 1)), axis=1)[None]
        buf = xp.empty((ck + 1, min(step, n) * length), dtype=x.dtype)
        buf[ck] = 1
    for i in range(0, n, step):
        m = min(step, n - i)
        if m == 1 and band < out[0]:
            for r in range(0, out[0], band):
                rows = min(band, out[0] - r)
                cols = _copy(xp, view[(slice(None),) * (1 + nd) + (
                    i, slice(r * plane_strides[0], (r + rows) * plane_strides[0]))])
                grid = _matmul(xp, wm, cols.reshape(groups, -1, rows * plane_strides[0]))
                _copy(xp, grid.reshape((o, 1, rows) + padded[1:])[valid].swapaxes(0, 1),
                      y[i:i + 1, :, r:r + rows])
            if fold:  # a last block of one sample, banded: its bias on its own
                y[i] += b.reshape((-1,) + (1,) * nd)
            continue
        src = view[(slice(None),) * (1 + nd) + (slice(i, i + m),)]
        if fold:
            cols = buf[:, :m * length]
            _copy(xp, src, cols[:ck].reshape(src.shape))  # splits axes: a view, not a copy
            cols = cols[None]
        else:
            cols = _copy(xp, src).reshape(groups, -1, m * length)
        grid = _matmul(xp, wb if fold else wm, cols)
        _copy(xp, grid.reshape((o, m, out[0]) + padded[1:])[valid].swapaxes(0, 1), y[i:i + m])
    if b is not None and not fold:
        y += b.reshape((-1,) + (1,) * nd)
    return y


def _conv_weight(xp, x, gy, kernel, stride, padding, dilation, groups):
    """dw = the weight gradient of conv(x, w) for output gradient ``gy``, blocked as above.

    Small blocks run fastest as ``cols @ gy^T`` followed by one transpose of the small
    ``(C*K, O)`` sum; when the sum is large (late layers: 4608 x 512) that transpose alone
    costs as much as the GEMM (NumPy transposes without cache blocking), so then each block is
    ``gy @ cols^T`` straight into the ``(O, C*K)`` layout of the weight.
    """
    nd = len(kernel)
    n, o = gy.shape[:2]
    out = tuple(gy.shape[2:])
    if n == 0:  # an empty batch: nothing to sum (the GEMM paths' reshapes need rows)
        return xp.zeros((o, x.shape[1] // groups) + tuple(kernel), dtype=gy.dtype)
    if is_device_array(gy):
        _note("weight-device")
        return _device.weight(xp, x, gy, kernel, stride, padding, dilation, groups)
    rows = _rows_1x1(x, _shaped(gy, x.shape[1], kernel), stride, padding, groups, None)
    if rows is not None:
        _note("weight-1x1-channels-last")
        g = _channels_last_rows(gy)
        if g is None:
            g = xp.ascontiguousarray(gy.transpose((0,) + tuple(range(2, gy.ndim)) + (1,)))
            g = g.reshape(-1, o)
        return xp.matmul(g.T, rows).reshape((o, x.shape[1]) + tuple(kernel))
    if _whole(kernel, x.shape[2:], padding, dilation, groups):
        _note("weight-whole")
        dw = xp.matmul(gy.reshape(n, o).T, x.reshape(n, _prod(x.shape[1:])))
        return dw.reshape((o, x.shape[1]) + tuple(kernel))
    if _pointwise(kernel, padding, out):
        _note("weight-1x1")
        xs = _samples(xp, x, stride, out, groups)  # (n, g, C/g, L)
        length, c = _prod(out), x.shape[1] // groups
        gy4 = gy.reshape(n, groups, o // groups, length)
        if (o // groups) * c > length * (o // groups + c):
            # small maps: one GEMM over all samples' positions (copying gy and x to
            # position-major rows costs less than the per-sample products' (N, O, C) sum)
            rows = n * length
            gt = _runs_contiguous(xp, gy4.transpose(1, 2, 0, 3)).reshape(groups, -1, rows)
            xt = xp.ascontiguousarray(xs.transpose(1, 0, 3, 2)).reshape(groups, rows, c)
            dw = _matmul(xp, gt, xt)
        else:
            dw = xp.matmul(gy4, xs.swapaxes(2, 3)).sum(0)  # (g, O/g, C/g)
        return dw.reshape((o, x.shape[1] // groups) + (1,) * nd)
    if _dw_band.applies(x, _shaped(gy, 1, kernel), stride, dilation, groups, out, padding):
        _note("weight-depthwise-band")
        return _dw_band.weight(xp, x, gy, kernel, padding)
    if _winograd.applies_weight(x, gy, kernel, stride, dilation, groups):
        _note("weight-winograd")
        return _winograd.weight(xp, x, gy, padding)
    if _taps_apply(x, o, gy, stride, padding, groups, out, _taps.WEIGHT_SHARE, kernel):
        _note("weight-taps")
        return _taps.weight(xp, x, gy, kernel, padding, dilation)
    if _DW_GEMV and _dw_gemv.applies_weight(x, _shaped(gy, 1, kernel), stride, dilation, groups,
                                            out):
        _note("weight-depthwise-gemv")
        return _dw_gemv.weight(xp, x, gy, kernel, stride, padding, dilation)
    if _depthwise.applies(x.shape[1], o, groups, stride):
        _note("weight-depthwise")
        return _depthwise.weight(xp, x, gy, kernel, padding, dilation)
    if _S2D and _s2d.applies(x, _shaped(gy, x.shape[1], kernel), stride, dilation, groups, out):
        _note("weight-s2d")
        return _s2d.weight(xp, x, gy, kernel, stride, padding)
    if _per_sample(x.shape[1] * _prod(kernel), groups, out):
        _note("weight-per-sample")
        return _weight_per_sample(xp, x, gy, kernel, stride, padding, dilation)
    if _nhwc_applies(x, _shaped(gy, x.shape[1], kernel), stride, dilation, groups, out):
        _note("weight-nhwc")
        return _nhwc.weight(xp, x, gy, kernel, stride, padding, dilation)
    _note("weight-im2col")
    block, out = _im2col(xp, x, kernel, stride, padding, dilation, out)
    length = _prod(out)
    gy3 = gy.reshape(n, o, length)
    ck = x.shape[1] * _prod(kernel)
    step = _chunk(n, ck * length * x.itemsize, length)
    band, rest = _band(step, ck * x.itemsize, out)
    # banded, each band's gy rows are a view: read in place (no copy into column layout)
    direct = step >= n or ck * o // groups >= _DIRECT_WEIGHT_ELEMENTS or band < out[0]
    acc = None
    for i in range(0, n, step):
        m = min(step, n - i)
        if band < out[0]:
            g4 = gy3[i].reshape(groups, o // groups, out[0], rest)
            for r in range(0, out[0], band):
                rows = min(band, out[0] - r)
                cols = block(i, 1, (r, r + rows)).reshape(groups, -1, rows * rest)
                part = _matmul(xp, g4[:, :, r:r + rows].reshape(groups, o // groups, -1),
                               cols.swapaxes(1, 2))
                if acc is None:
                    acc = part
                else:
                    acc += part
            continue
        cols = block(i, m).reshape(groups, -1, m * length)
        if direct:
            part = _matmul(xp, _rows(xp, gy3, i, m, groups), cols.swapaxes(1, 2))
        else:
            part = _matmul(xp, cols, _cols_of(xp, gy3, i, m, groups))
        if acc is None:
            acc = part
        else:
            acc += part
    if acc is None:  # an empty batch
        acc = xp.zeros((groups, o // groups, ck // groups), dtype=xp.result_type(x, gy))
    elif not direct:
        acc = _copy(xp, acc.swapaxes(1, 2))
    return acc.reshape((o, x.shape[1] // groups) + tuple(kernel))


def _nhwc_applies(x, w, stride, dilation, groups, out):
    """Whether ``conv_nhwc`` computes this forward (or weight gradient): where it applies and
    phase-plane columns (long output rows) do not."""
    return _NHWC and _nhwc.applies(x, w, stride, dilation, groups, out) and not (
        _PHASED and _phases.applies(x, w.shape[2:], stride, dilation, out))


def _shaped(like, c, kernel):
    """A stand-in with a weight's ``ndim``, ``shape`` ``(O, C, *kernel)`` and ``dtype`` (for
    path tests that read only those), O taken from ``like``'s second dim."""
    return _Shape((like.shape[1], c) + tuple(kernel), like.dtype)


class _Shape:
    __slots__ = ("shape", "dtype", "ndim")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.ndim = shape, dtype, len(shape)


def _per_sample(depth, groups, out):
    """Whether a convolution reducing over ``depth = C/groups * prod(kernel)`` rows runs one
    GEMM per sample (``_forward_per_sample``, ``_weight_per_sample``): a shallow reduction,
    one group, and maps large enough that a sample's GEMM is not skinny (as for 1x1 convs)."""
    return groups == 1 and depth <= _PER_SAMPLE_MAX_DEPTH and _prod(out) >= _MIN_POINTWISE_LENGTH


def _sample_columns(xp, x, kernel, stride, padding, dilation, out):
    """``fill(i, m, dst)``: writes the im2col columns of samples ``i:i+m`` into the contiguous
    ``dst`` ``(m, C * prod(kernel), prod(out))`` and returns it. Strided 2-d ones with long
    output rows come from phase planes (``conv_phases``: whole output rows per copy instead of
    every other value): dcgan's 3 -> 16 4x4/2 layer on 64x64, batch 16, forward 0.68-0.72 ->
    0.55-0.60 ms (one thread, CPU time)."""
    if _PHASED and _phases.applies(x, kernel, stride, dilation, out):
        _note("columns-phases")
        return _phases.Planes(xp, x, tuple(kernel), stride, padding, tuple(out)).samples
    nd = len(kernel)
    win = _windows(xp, _pad_zeros(xp, x, padding), kernel, stride, dilation, out)
    win = win.transpose((0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd)))

    def fill(i, m, dst):
        src = win[i:i + m]
        _copy(xp, src, dst.reshape(src.shape))
        return dst

    return fill


def _forward_per_sample(xp, x, w, b, stride, padding, dilation, out, res=None):
    """y = conv(x, w) + b for few input channels times taps: ``w @ cols[i]`` per sample,
    batched by matmul, lands in y's layout, where the blocked GEMM's ``(O, m * L)`` result
    needs a transposing copy into y (as large as y, against a GEMM of only
    ``C * prod(kernel)`` multiply-adds per output)."""
    kernel = tuple(w.shape[2:])
    n, o = x.shape[0], w.shape[0]
    length = _prod(out)
    fill = _sample_columns(xp, x, kernel, stride, padding, dilation, out)
    ck = x.shape[1] * _prod(kernel)
    wm = w.reshape(o, ck)
    y = xp.empty((n, o, length), dtype=xp.result_type(x, w)) if res is None else \
        res.reshape(n, o, length)
    # the bias as one more GEMM column of w against a row of ones under the columns: the
    # separate pass over y cost a third of the MNIST net's 1 -> 32 3x3 forward (0.71 ms,
    # 0.47 without bias; one thread, CPU time), the GEMM's tenth reduction row next to nothing
    fold = b is not None and b.dtype == w.dtype == x.dtype and x.dtype.char in "fd"
    if fold:
        wm = xp.concatenate((wm, b.reshape(o, 1)), axis=1)
    step = max(1, _BLOCK_BYTES // max(ck * length * x.itemsize, 1))
    buf = xp.empty((min(step, n), ck + fold, length), dtype=x.dtype)
    if fold:
        buf[:, ck] = 1
    for i in range(0, n, step):
        m = min(step, n - i)
        cols = buf[:m]
        fill(i, m, cols[:, :ck])
        xp.matmul(wm, cols, out=y[i:i + m])
    if b is not None and not fold:
        y += b.reshape(o, 1)
    return y.reshape((n, o) + tuple(out)) if res is None else res


def _weight_per_sample(xp, x, gy, kernel, stride, padding, dilation):
    """dw for few input channels times kernel taps (a network's first convolution): one GEMM
    ``gy[i] @ cols[i]^T`` per sample, batched by matmul, summed over the samples.

    The blocked GEMM of ``_conv_weight`` needs ``gy`` copied into its column layout, and with
    a reduction of only ``C * prod(kernel)`` rows that copy is most of the work; per sample,
    ``gy`` is read in place. MNIST's 1 -> 32 3x3 conv on 28x28, batch 64: 2.7 -> 0.73 ms, a
    CIFAR-style 3 -> 16 on 32x32: 1.5 -> 0.7 ms (one thread, CPU time); with 16 channels
    (144 rows) it lost, 5.6 -> 6.8 ms.
    """
    n, o = gy.shape[:2]
    out = tuple(gy.shape[2:])
    length = _prod(out)
    fill = _sample_columns(xp, x, kernel, stride, padding, dilation, out)
    ck = x.shape[1] * _prod(kernel)
    gy3 = gy.reshape(n, o, length)
    acc = xp.zeros((o, ck), dtype=xp.result_type(x, gy))
    step = max(1, _BLOCK_BYTES // max(ck * length * x.itemsize, 1))
    buf = xp.empty((min(step, n), ck, length), dtype=x.dtype)
    for i in range(0, n, step):
        m = min(step, n - i)
        cols = fill(i, m, buf[:m])
        acc += xp.matmul(gy3[i:i + m], cols.swapaxes(1, 2)).sum(0)
    return acc.reshape((o, x.shape[1]) + tuple(kernel))


def _conv_input(xp, gy, w, size, stride, padding, dilation, groups, filters=None, res=None):
    """dx = the input gradient of conv(x, w) (x of spatial ``size``) for output gradient gy.

    With stride 1 it is itself a convolution (of ``gy`` with the flipped, transposed weight),
    computed by ``_conv_forward``: one im2col copy instead of a GEMM into columns nine times
    the size of dx and nine read-modify-write passes of col2im (measured 1.3-4x faster, most
    for depthwise convolutions). Strided convolutions scatter through ``_col2im_into``.
    ``filters``: the Winograd filters of ``w`` (``conv_winograd.filters``) when known.
    ``res``: where to write dx, as for ``_conv_forward``.
    """
    return _into(xp, _input_paths(xp, gy, w, size, stride, padding, dilation, groups, filters,
                                  res), res)


def _input_paths(xp, gy, w, size, stride, padding, dilation, groups, filters, res):
    out = tuple(gy.shape[2:])
    if is_device_array(gy):
        return _device_input(xp, gy, w, size, stride, padding, dilation, groups, out)
    rows = _rows_1x1(gy, w, stride, padding, groups, res) if tuple(size) == out else None
    if rows is not None:
        _note("input-1x1-channels-last")
        return _from_rows(xp.matmul(rows, w.reshape(w.shape[0], w.shape[1])), gy, w.shape[1])
    if _whole(w.shape[2:], size, padding, dilation, groups) and all(q == 1 for q in out):
        _note("input-whole")
        n, o = gy.shape[:2]
        ck = _prod(w.shape[1:])
        res = _given(res, xp.result_type(gy, w))
        dx = xp.matmul(gy.reshape(n, o), w.reshape(o, ck),
                       out=None if res is None else res.reshape(n, ck))
        return dx.reshape((n, w.shape[1]) + tuple(size)) if res is None else res
    if _pointwise(w, padding, out):
        _note("input-1x1")
        n, o = gy.shape[:2]
        c = w.shape[1] * groups
        wt = _group_matrix(w, groups).swapaxes(1, 2)  # (g, C/g, O/g)
        dx = _pointwise_product(xp, wt, gy.reshape(n, groups, o // groups, _prod(out)))
        dx = dx.reshape((n, c) + out)
        if tuple(size) == out:
            return dx
        full = xp.zeros((n, c) + tuple(size), dtype=dx.dtype)
        full[_subsample(stride, out)] = dx
        return full
    c_in = w.shape[1] * groups
    # dx much larger than gy (a transposed convolution of a 1x1 or 2x2 input): convolving gy
    # padded to dx's size would multiply mostly padding; the GEMM on gy plus col2im does not
    # (dcgan's 1x1 -> 4x4 layer 12.5 -> 2.2 ms; the two meet near 3x, measured)
    small = _prod(size) > _MAX_AS_CONV_GROWTH * _prod(out)
    if all(st == 1 for st in stride) and not small and (
            c_in >= _MIN_CHANNELS_AS_CONV or _depthwise.applies(c_in, w.shape[0], groups, stride)):
        _note("input-as-conv")
        return _input_as_conv(xp, gy, w, size, padding, dilation, groups, filters, res)
    if _DW_GEMV and _dw_gemv.applies_input(gy, w, stride, dilation, groups):
        _note("input-depthwise-gemv")
        return _dw_gemv.input_grad(xp, gy, w, size, stride, padding)
    if _depthwise.applies(c_in, w.shape[0], groups, (1,)):
        _note("input-depthwise")
        return _depthwise.input_scatter(xp, gy, w, size, stride, padding, dilation)
    if _S2D and _s2d.applies_input(gy, w, stride, dilation, groups):
        _note("input-s2d")
        return _s2d.input_grad(xp, gy, w, size, stride, padding, _given(res, gy.dtype))
    if _SUBPIXEL and _subpixel.applies(gy, w, stride, dilation, groups):
        _note("input-subpixel")
        return _subpixel.input_grad(
            xp, gy, w, size, stride, padding,
            _chunk(gy.shape[0], c_in * _prod(w.shape[2:]) * _prod(out) * gy.itemsize,
                   _prod(out)), _given(res, gy.dtype))
    if _NHWC and _nhwc.applies_input(gy, w, stride, dilation, groups, out):
        _note("input-nhwc")
        return _nhwc.input_grad(xp, gy, w, size, stride, padding, dilation,
                                _given(res, xp.result_type(gy, w)))
    _note("input-col2im")
    return _input_col2im(xp, gy, w, size, stride, padding, dilation, groups,
                         _given(res, xp.result_type(gy, w)))


def _device_input(xp, gy, w, size, stride, padding, dilation, groups, out):
    """dx on a GPU (``conv_device``): stride 1 as a convolution of gy (one GEMM), strided
    through one GEMM and col2im; a much larger dx (a transposed convolution of a tiny map)
    takes col2im too, as on the CPU."""
    if all(st == 1 for st in stride) and _prod(size) <= _MAX_AS_CONV_GROWTH * _prod(out):
        _note("input-as-conv")
        return _input_as_conv(xp, gy, w, size, padding, dilation, groups)
    _note("input-device-col2im")
    return _device.input_col2im(xp, gy, w, size, stride, padding, dilation, groups,
                                _col2im_into)


def _input_as_conv(xp, gy, w, size, padding, dilation, groups, filters=None, res=None):
    """dx = conv(gy, flip(w^T)) for a stride-1 convolution (see ``_conv_input``).

    Per dim, dx[s] = sum_k gy[s + lo - d*k] w[k] = sum_k' gy_p[s + d*k'] w[K-1-k'] with gy
    padded by ``d*(K-1) - lo`` in front and whatever makes ``size`` outputs behind; a negative
    pad (a padding wider than the kernel) crops gy instead. Given the Winograd ``filters``
    of ``w``, the flipped weight's are the same matrices reordered: it is never copied.
    """
    kernel = w.shape[2:]
    o, cg = w.shape[:2]
    crop, pads = [slice(None), slice(None)], []
    for k, d, (lo, _), s, ly in zip(kernel, dilation, padding, size, gy.shape[2:]):
        ext = d * (k - 1)
        front = ext - lo
        back = s + ext - ly - front
        crop.append(slice(max(0, -front), ly - max(0, -back)))
        pads.append((max(0, front), max(0, back)))
    wt = w.reshape((groups, o // groups, cg) + kernel).swapaxes(1, 2)
    wt = wt.reshape((cg * groups, o // groups) + kernel)
    wt = wt[(slice(None),) * 2 + (slice(None, None, -1),) * len(kernel)]
    taps = None if filters is None else (filters, _winograd.FLIPPED)
    if taps is None:
        wt = xp.ascontiguousarray(wt)
    return _conv_forward(xp, gy[tuple(crop)], wt, None, (1,) * len(kernel), tuple(pads),
                         dilation, groups, tuple(size), taps, res=res)


def _input_col2im(xp, gy, w, size, stride, padding, dilation, groups, res=None):
    """dx for any stride: per block one GEMM ``w^T @ gy`` into columns, then col2im into the
    block's samples."""
    kernel = tuple(w.shape[2:])
    nd = len(kernel)
    n, o = gy.shape[:2]
    out = tuple(gy.shape[2:])
    length = _prod(out)
    c_in = w.shape[1] * groups
    step = _chunk(n, c_in * _prod(kernel) * length * gy.itemsize, length)
    if _col2im_last.applies(c_in, groups):
        return _col2im_last.input_grad(xp, gy, w, size, stride, padding, dilation, step, _copy,
                                       res)
    wt = w.reshape(groups, o // groups, -1).swapaxes(1, 2)  # (g, C/g * K, O/g)
    full = tuple(s + lo + hi for s, (lo, hi) in zip(size, padding))
    dx = xp.zeros((n, c_in) + full, dtype=xp.result_type(gy, w))
    gy3 = gy.reshape(n, o, length)
    for i in range(0, n, step):
        m = min(step, n - i)
        cols = _matmul(xp, wt, _rows(xp, gy3, i, m, groups))  # (g, C/g * K, m * L)
        cols = cols.reshape((c_in,) + kernel + (m,) + out)
        _col2im_into(dx[i:i + m], xp.moveaxis(cols, 1 + nd, 0), stride, dilation)
    if not any(lo or hi for lo, hi in padding):
        return dx
    crop = dx[(slice(None),) * 2 + tuple(slice(lo, lo + s) for s, (lo, _) in
                                         zip(size, padding))]
    return _copy(xp, crop, res)


def _col2im_into(buf, cols, stride, dilation):
    """Add the windows ``cols`` ``(N, C, *kernel, *out)`` into the padded ``buf``.

    One strided add per kernel offset, never a loop over output positions and never
    ``add.at``: within one offset the windows never collide.
    """
    nd = len(stride)
    kernel, out = cols.shape[2:2 + nd], cols.shape[2 + nd:]
    if not buf.size or not cols.size:
        return
    taps = [(kidx, tuple(slice(k * d, k * d + st * (o - 1) + 1, st)
                         for k, d, st, o in zip(kidx, dilation, stride, out)))
            for kidx in itertools.product(*(range(k) for k in kernel))]
    # the samples (or channels) are independent: on the CPU they are split across the
    # intra-op threads, each part running every tap's strided add
    axis = 0 if buf.shape[0] >= buf.shape[1] else 1

    def part(lo, hi):
        lead = (slice(None),) * axis + (slice(lo, hi),) + (slice(None),) * (1 - axis)
        for kidx, dst in taps:
            buf[lead + dst] += cols[lead + kidx]

    n = buf.shape[axis]
    if is_device_array(buf):
        part(0, n)
    else:
        _intraop.split(part, n, buf.size // n)


def _bias_grad(grad, nd):
    return grad.sum((0,) + tuple(range(2, 2 + nd)))


def _bias_grad_array(xp, grad, nd):
    """The bias gradient of an array ``grad``: on the CPU one einsum pass over the
    ``(N, O, L)`` view (NumPy's ``sum`` over the axes (0, 2, 3) makes a slower strided
    reduction: the MNIST net's 64x64x24x24 gradient 0.45 -> 0.14 ms, one thread, CPU time;
    the same error against a float64 sum)."""
    if _half.applies(grad):  # float32 sum, rounded once (NumPy would sum in float16)
        return _bias_grad_array(xp, grad.astype("f"), nd).astype(grad.dtype)
    if (is_device_array(grad) or grad.dtype.char not in "fd" or not grad.flags.c_contiguous
            or not grad.size):
        return _bias_grad(grad, nd)
    return xp.einsum("nol->o", grad.reshape(grad.shape[0], grad.shape[1], -1))


def _geometry(op):
    """The stride/padding/dilation/groups parameters every conv-family op shares."""
    return dict(stride=op.stride, padding=op.padding, dilation=op.dilation, groups=op.groups)


class _ConvPair(Op):
    """The backward that ``Conv`` and ``ConvTranspose`` share: each one is the other's input
    gradient, ``ConvWeight`` gives the weight gradient (with the operands' roles swapped for
    the transpose), and the bias gradient sums ``grad`` over the batch and spatial dims."""

    def backward(self, grad):
        x, w = self.saved_inputs()
        if x.is_complex() or w.is_complex():  # torch's complex convention: conjugates
            x, w = x.conj(), w.conj()
        needs = self.needs_input_grad
        geo = _geometry(self)
        gx = self._input_grad(grad, w, tuple(x.shape[2:]), geo) if needs[0] else None
        gw = ConvWeight.apply(*self._weight_operands(x, grad), kernel=tuple(w.shape[2:]),
                              half_rounding=True, **geo) if needs[1] else None
        if len(needs) == 2:
            return gx, gw
        return gx, gw, (_bias_grad(grad, w.ndim - 2) if needs[2] else None)

    def backward_arrays(self, grad):
        """The first-order gradients on arrays, the batch split across cores when that pays
        (``conv_samples``): each part computes its samples' input gradient and its share of
        the weight and bias gradients."""
        x, w = (t._array for t in self.saved_inputs())
        if x.dtype.kind == "c" or w.dtype.kind == "c":  # torch's complex convention
            x, w = x.conj(), w.conj()
        needs = self.needs_input_grad
        bias = len(needs) > 2 and needs[2]
        xp, nd = self.xp, w.ndim - 2
        size, kernel = tuple(x.shape[2:]), tuple(w.shape[2:])
        geo = (self.stride, self.padding, self.dilation, self.groups)

        filters = self.__dict__.pop("winograd_filters", None)
        if _half.applies(x, w, grad):
            # torch's CPU float16 gradients round each GEMM and col2im add to float16
            gx = None
            if needs[0]:
                last = channels_last_layout(x) or channels_last_layout(w)
                gx = (_half.input_grad(grad, w, size, *geo, channels_last=last)
                      if isinstance(self, Conv) else
                      self._input_grad_array(xp, grad.astype("f"), w.astype("f"), size,
                                             geo).astype("e"))
            gw = _half.weight_grad(*self._weight_operands(x, grad), kernel,
                                   *geo) if needs[1] else None
            gb = None
            if bias:
                gb = (_half.bias_grad_per_sample(grad) if isinstance(self, Conv)
                      and any(d > 1 for d in self.dilation) else _bias_grad_array(xp, grad, nd))
            return (gx, gw) if len(needs) == 2 else (gx, gw, gb)
        macs = x.shape[0] * _prod(self._conv_out(x, grad).shape[2:]) * w.size * sum(needs[:2])
        k = _batch_split.parts((x, w, grad), x.shape[0], macs)
        if isinstance(self, Conv):
            k = _keep_winograd(k, x, w, self, tuple(grad.shape[2:]))
        whole = _split_result(xp, k, needs[0], x.shape, (grad, w))
        both = _both_winograd(self, x, w, grad, needs, k)
        pair = (not both and k == 1 and isinstance(self, ConvTranspose) and needs[0]
                and needs[1] and (_s2d_pair(grad, w, x, *geo) and "s2d" or
                                  _nhwc_pair(grad, w, x, *geo) or
                                  _per_sample_pair(grad, w, x, *geo) and "per-sample"))
        if both:
            _note("backward-winograd")
            if filters is None:
                filters = _winograd.filters(xp, w)

        def part(lo, hi):
            g = grad[lo:hi]
            if both:
                gx, gw = _winograd.backward(xp, x[lo:hi], g, filters, self.padding, True,
                                            None if whole is None else whole[lo:hi])
                return gx, gw, (_bias_grad_array(xp, g, nd) if bias else None)
            if pair == "s2d":
                _note("backward-s2d-pair")
                gx, gw = _s2d.forward_weight(xp, g, w, x, self.stride, self.padding, size)
                return gx, gw, (_bias_grad_array(xp, g, nd) if bias else None)
            if pair == "per-sample":
                _note("backward-per-sample-pair")
                gx, gw = _per_sample_pair_grads(xp, g, w, x, self.stride, self.padding,
                                                self.dilation, size)
                return gx, gw, (_bias_grad_array(xp, g, nd) if bias else None)
            if pair:
                _note("backward-nhwc-pair")
                gx, gw = _nhwc.forward_weight(xp, g, w, x, self.stride, self.padding,
                                              self.dilation, size)
                return gx, gw, (_bias_grad_array(xp, g, nd) if bias else None)
            gx = self._input_grad_array(
                xp, g, w, size, geo, filters,
                None if whole is None else whole[lo:hi]) if needs[0] else None
            gw = _conv_weight(xp, *self._weight_operands(x[lo:hi], g), kernel,
                              *geo) if needs[1] else None
            return gx, gw, (_bias_grad_array(xp, g, nd) if bias else None)

        def combine(res):
            gx, gw, gb = zip(*res)
            return (_joined(whole, gx) if needs[0] else None,
                    _batch_split.summed(gw) if needs[1] else None,
                    _batch_split.summed(gb) if bias else None)

        gx, gw, gb = _by_samples(x.shape[0], (x, w, grad), macs, part, combine, k)
        return (gx, gw) if len(needs) == 2 else (gx, gw, gb)


def _s2d_pair(gy, w, x, stride, padding, dilation, groups):
    """Whether both gradients of a ``ConvTranspose`` (input ``x``, output gradient ``gy``)
    come from one fill of ``gy``'s space-to-depth cells (``conv_s2d.forward_weight``): its
    dx (a convolution of ``gy``) would take ``conv_s2d``, as ``_forward_paths`` orders them."""
    size, kernel = tuple(x.shape[2:]), tuple(w.shape[2:])
    return (_S2D and not is_device_array(gy) and gy.dtype == w.dtype == x.dtype
            and _live_taps(gy.shape[2:], kernel, stride, padding, dilation, size) is None
            and not _whole(kernel, gy.shape[2:], padding, dilation, groups)
            and not _pointwise(w, padding, size)
            and _s2d.applies(gy, w, stride, dilation, groups, size))


def _nhwc_pair(gy, w, x, stride, padding, dilation, groups):
    """Whether both gradients of a ``ConvTranspose`` (input ``x``, output gradient ``gy``)
    would take ``conv_nhwc`` over ``gy``'s columns (dx its forward, dw its weight gradient:
    no path before it applies), so that one pass computes them (``forward_weight``)."""
    size, kernel = tuple(x.shape[2:]), tuple(w.shape[2:])
    return (not is_device_array(gy) and gy.dtype == w.dtype == x.dtype
            and _live_taps(gy.shape[2:], kernel, stride, padding, dilation, size) is None
            and not _whole(kernel, gy.shape[2:], padding, dilation, groups)
            and not _per_sample(w.shape[1] * _prod(kernel), groups, size)
            and _nhwc_applies(gy, w, stride, dilation, groups, size))


def _per_sample_pair(gy, w, x, stride, padding, dilation, groups):
    """Whether both gradients of a strided ``ConvTranspose`` with few output channels (input
    ``x``, output gradient ``gy``) would take the per-sample GEMMs over ``gy``'s columns (dx
    its forward, dw its weight gradient), so that one pass builds them
    (``_per_sample_pair_grads``). Strided and not 1x1: no stride-1 path comes first."""
    size, kernel = tuple(x.shape[2:]), tuple(w.shape[2:])
    return (not is_device_array(gy) and gy.dtype == w.dtype == x.dtype
            and gy.dtype.char in "fd" and any(s > 1 for s in stride)
            and any(k > 1 for k in kernel)
            and _live_taps(gy.shape[2:], kernel, stride, padding, dilation, size) is None
            and not _whole(kernel, gy.shape[2:], padding, dilation, groups)
            and _per_sample(w.shape[1] * _prod(kernel), groups, size))


def _per_sample_pair_grads(xp, a, w, g, stride, padding, dilation, out):
    """``(conv(a, w), dw of conv(a, .) for output gradient g)`` from one pass over ``a``'s
    per-sample columns: a transposed convolution's two gradients (``a`` its output gradient,
    ``g`` its input). dcgan's 16 -> 3 output layer built the 3-channel 64x64 gradient's
    columns once for each."""
    kernel = tuple(w.shape[2:])
    n, o = a.shape[0], w.shape[0]
    length = _prod(out)
    fill = _sample_columns(xp, a, kernel, stride, padding, dilation, out)
    ck = a.shape[1] * _prod(kernel)
    wm = w.reshape(o, ck)
    y = xp.empty((n, o, length), dtype=a.dtype)
    g3 = g.reshape(n, o, length)
    acc = xp.zeros((o, ck), dtype=a.dtype)
    step = max(1, _BLOCK_BYTES // max(ck * length * a.itemsize, 1))
    buf = xp.empty((min(step, n), ck, length), dtype=a.dtype)
    for i in range(0, n, step):
        m = min(step, n - i)
        cols = fill(i, m, buf[:m])
        xp.matmul(wm, cols, out=y[i:i + m])
        acc += xp.matmul(g3[i:i + m], cols.swapaxes(1, 2)).sum(0)
    return y.reshape((n, o) + tuple(out)), acc.reshape((o, a.shape[1]) + kernel)


def _both_winograd(op, x, w, grad, needs, k):
    """Whether a ``Conv``'s input and weight gradients come from one Winograd pass over the
    output gradient's tiles (``conv_winograd.backward``): both needed, NumPy operands, and
    both gradients would take Winograd apart (judged on the first of ``k`` parts)."""
    if not (_BOTH_WINOGRAD and isinstance(op, Conv) and needs[0] and needs[1]) \
            or is_device_array(x):
        return False
    first = -(-x.shape[0] // k)
    return _winograd.applies_backward(x[:first], w, grad[:first], op.stride, op.dilation,
                                      op.groups, op.padding)


def _keep_winograd(k, x, w, op, out):
    """``k`` parts, or 1 when the whole batch takes Winograd and a ``1/k`` share of it would
    not (too few tiles: ResNet-18's 512-channel 4x4 maps, batch 16: 32 tiles per part).

    Split, each part fell back to im2col: 2.25x the multiplications, a flipped copy of the
    weight per part for the input gradient and a 9 MB partial weight gradient per part to add
    up; whole, the Winograd GEMMs run on BLAS's threads, the transforms split by rows, and the
    backward reuses the forward's transformed filters. Within a ResNet-18 step, two threads,
    per such layer (median of 24): forward 8.3 -> 9.6 ms, backward 22.1 -> 13.2 ms (17.3
    with only the backward whole, its filters transformed again).
    """
    if k == 1:
        return k
    geo = (op.stride, op.dilation, op.groups, out)
    if _winograd.applies(x, w, *geo) and not _winograd.applies(x[:-(-x.shape[0] // k)], w, *geo):
        return 1
    return k


def _split_result(xp, k, needed, shape, operands):
    """The array a batch split into ``k`` parts writes its per-sample result into, each part
    its own samples (no joining copy: ResNet-18's split outputs and input gradients are
    ~70 MB a step); None when not split or the operands' dtypes differ (the parts' results
    then keep their own dtype, joined as before)."""
    dtypes = {a.dtype for a in operands if a is not None}
    if k == 1 or not needed or len(dtypes) != 1:
        return None
    return xp.empty(shape, dtype=dtypes.pop())


def _joined(whole, parts):
    """The parts' results as one batch: ``whole`` when they were written into it."""
    return _batch_split.joined(parts) if whole is None else whole


def _by_samples(n, arrays, macs, kernel, combine, k=None):
    """``kernel(0, n)``, or ``combine`` of ``kernel(lo, hi)`` over parts of the batch computed
    on several cores (``conv_samples``: when the work is large and the cores are free); ``k``
    parts when the caller has asked ``conv_samples.parts`` already."""
    if k is None:
        k = _batch_split.parts(arrays, n, macs)
    if k == 1:
        return kernel(0, n)
    return combine(_batch_split.run(kernel, n, k))


class Conv(_ConvPair):
    """y = conv(x, w) (+ b); dx = conv_transpose(g, w), dw = conv_weight(x, g), db = sum(g)."""

    def forward(self, x, w, b=None):
        self.save_inputs(x, w)
        if x.dtype.char == "e" and w.dtype.char == "e" and not is_device_array(x):
            # torch's CPU float16 convolution sums and adds the bias in float32 and rounds
            # once (rounding before the bias add gave another last bit on ~30% of values);
            # its gradients keep the float16 path (they round as float16 arithmetic there)
            return self._forward(x.astype("f"), w.astype("f"),
                                 None if b is None else b.astype("f")).astype("e")
        return self._forward(x, w, b)

    def _forward(self, x, w, b):
        out = self.__dict__.get("out")
        if out is None:
            out = out_size(x.shape[2:], w.shape[2:], self.stride, self.padding, self.dilation)
        n = x.shape[0]
        macs = n * _prod(out) * w.size
        k = _keep_winograd(_batch_split.parts((x, w, b), n, macs), x, w, self, out)
        whole = _split_result(self.xp, k, True, (n, w.shape[0]) + tuple(out), (x, w, b))
        taps = None
        if not is_device_array(x) and _winograd.applies(x[:-(-n // k)], w, self.stride,
                                                        self.dilation, self.groups, out):
            # the filter transform is memory-bound (512 channels: ~4 ms): once for all the
            # parts, and kept for the input gradient, which reuses it reordered
            u = _winograd.filters(self.xp, w, k)
            taps = (u.transpose(0, 2, 1), None)
            self.winograd_filters = u

        def part(lo, hi):
            return _conv_forward(self.xp, x[lo:hi], w, b, self.stride, self.padding,
                                 self.dilation, self.groups, out, taps,
                                 res=None if whole is None else whole[lo:hi])

        return _by_samples(n, (x, w, b), macs, part, lambda res: _joined(whole, res), k)

    @staticmethod
    def _input_grad(grad, w, size, geo):
        return ConvTranspose.apply(grad, w, size=size, **geo)

    @staticmethod
    def _input_grad_array(xp, grad, w, size, geo, filters=None, res=None):
        return _conv_input(xp, grad, w, size, *geo, filters=filters, res=res)

    @staticmethod
    def _conv_out(x, grad):
        return grad

    @staticmethod
    def _weight_operands(x, grad):
        return x, grad


class ConvTranspose(_ConvPair):
    """y = conv_transpose(x, w) (+ b) to spatial ``size``; dx = conv(g, w),
    dw = conv_weight(g, x), db = sum(g)."""

    def forward(self, x, w, b=None):
        self.save_inputs(x, w)
        if _half.applies(x, w) and (b is None or _half.applies(b)):
            # torch's CPU float16 transposed convolution: float16 columns, col2im adds in
            # float16, then the bias added and rounded once more
            y = _half.input_grad(x, w, self.size, self.stride, self.padding, self.dilation,
                                 self.groups)
            if b is not None:
                y = (y.astype("f") + b.astype("f").reshape((-1,) + (1,) * (w.ndim - 2)))
                y = y.astype("e")
            return y
        n = x.shape[0]
        macs = n * _prod(x.shape[2:]) * w.size
        k = _batch_split.parts((x, w, b), n, macs)
        whole = _split_result(self.xp, k, True, (n, w.shape[1] * self.groups) + tuple(self.size),
                              (x, w, b))

        def part(lo, hi):
            y = _conv_input(self.xp, x[lo:hi], w, self.size, self.stride, self.padding,
                            self.dilation, self.groups,
                            res=None if whole is None else whole[lo:hi])
            if b is not None:
                y += b.reshape((-1,) + (1,) * (w.ndim - 2))
            return y

        return _by_samples(n, (x, w, b), macs, part, lambda res: _joined(whole, res), k)

    @staticmethod
    def _input_grad(grad, w, size, geo):
        return Conv.apply(grad, w, out=size, **geo)

    @staticmethod
    def _input_grad_array(xp, grad, w, size, geo, filters=None, res=None):
        return _conv_forward(xp, grad, w, None, *geo, size, res=res)

    @staticmethod
    def _conv_out(x, grad):
        return x

    @staticmethod
    def _weight_operands(x, grad):
        return grad, x


class ConvWeight(Op):
    """dw = conv_weight(x, gy): the weight gradient of ``y = conv(x, w)``; bilinear, so
    d/dx = conv_transpose(gy, G) and d/dgy = conv(x, G) for a cotangent G."""

    def forward(self, x, gy):
        self.save_inputs(x, gy)
        if self.__dict__.get("half_rounding") and _half.applies(x, gy):
            return _half.weight_grad(x, gy, self.kernel, self.stride, self.padding,
                                     self.dilation, self.groups)
        return _conv_weight(self.xp, x, gy, self.kernel, self.stride, self.padding,
                            self.dilation, self.groups)

    def backward(self, gg):
        x, gy = self.saved_inputs()
        nx, ngy = self.needs_input_grad
        geo = _geometry(self)
        gx = ConvTranspose.apply(gy, gg, size=tuple(x.shape[2:]), **geo) if nx else None
        ggy = Conv.apply(x, gg, out=tuple(gy.shape[2:]), **geo) if ngy else None
        return gx, ggy


def conv(input, weight, bias, stride, padding, dilation, groups):
    """N-d convolution of checked operands (see :func:`numtorch.nn.functional.conv2d`).

    ``input`` is ``(N, C, *S)``, ``weight`` ``(O, C/groups, *k)``; ``stride`` and
    ``dilation`` are tuples, ``padding`` a tuple of ``(low, high)`` pairs per spatial dim.
    """
    args = (input, weight) if bias is None else (input, weight, bias)
    return Conv.apply(*args, stride=tuple(stride), padding=tuple(padding),
                      dilation=tuple(dilation), groups=groups)


def conv_transpose(input, weight, bias, stride, padding, dilation, groups, size):
    """N-d transposed convolution of checked operands to the spatial ``size``.

    ``weight`` is ``(C_in, C_out/groups, *k)``; ``size`` is the output's spatial shape (the
    input shape of the convolution this transposes, output padding included).
    """
    args = (input, weight) if bias is None else (input, weight, bias)
    return ConvTranspose.apply(*args, stride=tuple(stride), padding=tuple(padding),
                               dilation=tuple(dilation), groups=groups, size=tuple(size))
