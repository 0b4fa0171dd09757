"""The short-time Fourier transform and its inverse: ``stft`` and ``istft``.

Both are compositions of differentiable ops: framing is an ``unfold`` view, the transform is
``fft_ops``, and the inverse's overlap-add sums a few shifted copies of the frames (one per
frame that overlaps a given hop), so gradients of every order come for free.
"""

import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from .._warn_once import warn_once
from . import fft_ops as _f
from ._pointwise import type_name
from ._resample import constant_pad
from ._util import user_stacklevel

__all__ = ["stft", "istft"]

_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known "
              "to cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
              "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
              "device=<device>)`.")
_NO_WINDOW_INV = ("A window was not provided. A rectangular window will be applied.Please "
                  "provide the same window used by stft to make the inversion lossless.To "
                  "suppress this warning and use a rectangular window, explicitly set "
                  "`window=torch.ones(n_fft, device=<device>)`.")


def _flag(v):
    return "None" if v is None else str(int(bool(v)))


def _type_str(t):
    legacy = t.dtype._legacy
    return f"torch.{legacy}"


def _window_str(window):
    if window is None:
        return "None"
    return f"{_type_str(window)}{{[{', '.join(map(str, window.shape))}]}}"


def _centred_window(window, win_length, n_fft, like):
    """The window zero-padded on both sides to ``n_fft`` (ones when None)."""
    if window is None:
        from .._creation import ones

        window = ones(win_length, dtype=like.dtype.to_real(), device=like.device)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = constant_pad(window, ((left, n_fft - win_length - left),), 0)
    return window


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform: the DFT of overlapping windowed frames.

    Args:
        input (Tensor): a signal ``(L,)`` or a batch ``(B, L)``, real or complex.
        n_fft (int): the frame (and transform) size.
        hop_length (int, optional): the step between frames. Default: ``n_fft // 4``.
        win_length (int, optional): the window length (``<= n_fft``; the window is centred in
            the frame). Default: ``n_fft``.
        window (Tensor, optional): a 1-D window of ``win_length`` points. Default: all ones
            (with a warning about spectral leakage).
        center (bool): pad the signal by ``n_fft // 2`` on both sides so frame ``t`` is centred
            at ``t * hop_length``. Default: True.
        pad_mode (str): how ``center`` pads: ``"reflect"``, ``"constant"``, ``"replicate"``
            or ``"circular"``. Default: ``"reflect"``.
        normalized (bool): scale by ``n_fft ** -0.5``. Default: False.
        onesided (bool, optional): keep only the ``n_fft // 2 + 1`` non-redundant frequencies
            (the default for real inputs and windows).
        return_complex (bool, optional): return a complex tensor (required for real inputs;
            False returns ``view_as_real`` of it, deprecated as in torch).
        align_to_window (bool, optional): with ``center=False``, start the first frame so
            that the window, not the frame, begins at the start of the signal.

    Returns:
        Tensor: ``(B?, n_freq, n_frames)``.

    Example:
        >>> x = torch.randn(64)
        >>> torch.stft(x, 16, window=torch.hann_window(16), return_complex=True).shape
        torch.Size([9, 17])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"stft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    if window is None:  # torch warns (once per process) before it checks return_complex
        warn_once("stft-no-window", _NO_WINDOW, UserWarning, stacklevel=user_stacklevel())
    complex_io = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if return_complex is None:
        if not complex_io:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        return_complex = True
    if center:
        if align_to_window is not None:
            raise RuntimeError("stft align_to_window should only be set when center = false")
        if pad_mode not in ("constant", "reflect", "replicate", "circular"):
            raise NotImplementedError(f"Unrecognised padding mode {pad_mode}")
        if input.ndim >= 1:
            from ..nn.functional.padding import pad

            half = int(n_fft) // 2
            x3 = input.reshape((-1, 1, input.shape[-1]))
            input = pad(x3, (half, half), mode=pad_mode).reshape(
                tuple(input.shape[:-1]) + (input.shape[-1] + 2 * half,))
    hop = int(n_fft) // 4 if hop_length is None else hop_length
    win = int(n_fft) if win_length is None else win_length

    def fail(what):
        return RuntimeError(
            f"stft({_type_str(input)}[{', '.join(map(str, input.shape))}], n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_str(window)}, "
            f"normalized={_flag(normalized)}, onesided={_flag(onesided)}, "
            f"return_complex={_flag(return_complex)}, align_to_window="
            f"{_flag(align_to_window)}) : {what}")

    if input.ndim not in (1, 2):
        raise fail("expected a 1D or 2D tensor")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise fail("expected a tensor of floating point or complex values")
    length = input.shape[-1]
    if not 0 < n_fft <= length:
        raise fail(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise fail(f"expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise fail(f"expected a 1D window tensor of size equal to win_length={win}, but got "
                   f"window with size {list(window.shape)}")
    if onesided is None:
        onesided = not complex_io
    elif onesided and complex_io:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if align_to_window and win < n_fft:
        left = (n_fft - win) // 2
        input = constant_pad(input, ((left, n_fft - win - left),), 0)
    w = _centred_window(window, win, n_fft, input)
    frames = input.unfold(-1, n_fft, hop) * w  # (B?, n_frames, n_fft)
    norm = "ortho" if normalized else "backward"
    if onesided:
        spec = _f.r2c("stft", frames, (frames.ndim - 1,), [None], norm)
    else:
        spec = _f.c2c("stft", frames, (frames.ndim - 1,), [None], norm, True)
    spec = spec.transpose(-1, -2)
    if return_complex:
        return spec
    warn_once("stft-real-output",
              "stft with return_complex=False is deprecated. In a future pytorch release, "
              "stft will return complex tensors for all inputs, and return_complex=False "
              "will raise an error.\nNote: you can still call torch.view_as_real on the "
              "complex output to recover the old return format.", UserWarning, stacklevel=2)
    from .complex_ops import view_as_real

    return view_as_real(spec)


def _overlap_add(frames, hop):
    """Sum frames ``(..., T, n)`` placed ``hop`` apart into a signal of ``n + hop * (T - 1)``
    samples, as one shifted copy per overlapping hop (a few big ops, no loop over frames)."""
    t, n = frames.shape[-2], frames.shape[-1]
    r = -(-n // hop)  # hops one frame spans
    padded = constant_pad(frames, ((0, 0), (0, r * hop - n)), 0)
    chunks = padded.reshape(tuple(frames.shape[:-1]) + (r, hop))
    total = None
    for k in range(r):
        part = constant_pad(chunks.select(-2, k), ((k, r - 1 - k), (0, 0)), 0)
        total = part if total is None else total + part
    flat = total.reshape(tuple(frames.shape[:-2]) + ((t + r - 1) * hop,))
    return flat.narrow(-1, 0, n + hop * (t - 1))


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of :func:`stft` by windowed overlap-add (least-squares, so it inverts
    exactly when the squared windows overlap to a nonzero sum everywhere).

    Args:
        input (Tensor): a complex spectrogram ``(B?, n_freq, n_frames)``.
        n_fft, hop_length, win_length, window, center, normalized: as given to :func:`stft`.
        onesided (bool, optional): whether ``input`` holds only ``n_fft // 2 + 1``
            frequencies. Default: True unless it has ``n_fft`` of them.
        length (int, optional): the signal length to return (cropped or zero-padded).
        return_complex (bool): return a complex signal (needs a two-sided spectrum).

    Example:
        >>> x = torch.randn(64)
        >>> w = torch.hann_window(16)
        >>> S = torch.stft(x, 16, window=w, return_complex=True)
        >>> torch.allclose(torch.istft(S, 16, window=w), x, atol=1e-5)
        True
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    if window is None:
        warn_once("istft-no-window", _NO_WINDOW_INV, UserWarning,
                  stacklevel=user_stacklevel())
    hop = int(n_fft) // 4 if hop_length is None else hop_length
    win = int(n_fft) if win_length is None else win_length

    def fail(what):
        dt = {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}[input.dtype.name]
        return RuntimeError(
            f"istft(CPU{dt}Type[{', '.join(map(str, input.shape))}], n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_str(window)}, "
            f"center={_flag(center)}, normalized={_flag(normalized)}, onesided="
            f"{_flag(onesided)}, length={length}, return_complex={_flag(return_complex)}) "
            f"{what}")

    if input.ndim not in (2, 3):
        raise fail(f": expected a tensor with a 2 or 3 dimensions of complex, but got "
                   f"{input.ndim}")
    if onesided is None:
        onesided = input.shape[-2] != n_fft
    if return_complex and onesided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if onesided and input.shape[-2] != n_fft // 2 + 1:
        raise fail(f": expected the frequency dimension (3rd to the last) of the input tensor "
                   f"to match n_fft / 2 + 1 when onesided=True, but got {input.shape[-2]}")
    if not onesided and input.shape[-2] != n_fft:
        raise fail(f": expected the frequency dimension (3rd to the last) of the input tensor "
                   f"to match n_fft when onesided=False, but got {input.shape[-2]}")
    if not 0 < win <= n_fft:
        raise fail(f": expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise fail(": Invalid window shape. window has to be 1D and length of `win_length`")
    if hop <= 0:
        raise fail(f": expected hop_length > 0, but got hop_length={hop}")
    n_frames = input.shape[-1]
    spec = input.transpose(-1, -2)  # (B?, n_frames, n_freq)
    norm = "ortho" if normalized else "backward"
    last = spec.ndim - 1
    if return_complex:
        frames = _f.c2c("istft", spec, (last,), [None], norm, False)
    else:
        if not onesided:
            spec = spec.narrow(-1, 0, n_fft // 2 + 1)
        frames = _f.c2r("istft", spec, (last,), [n_fft], norm)
    w = _centred_window(window, win, n_fft, frames)
    signal = _overlap_add(frames * w, hop)
    envelope = _overlap_add((w * w).expand(n_frames, n_fft), hop)
    start = n_fft // 2 if center else 0
    expected = n_fft + hop * (n_frames - 1)
    if length is not None:
        end = start + length
    elif center:
        end = expected - n_fft // 2
    else:
        end = expected
    end = min(end, expected)
    signal = signal.narrow(-1, start, max(end - start, 0))
    envelope = envelope.narrow(-1, start, max(end - start, 0))
    small = envelope.abs() < 1e-11
    if bool(small.any()):
        raise fail("window overlap add min: 1")
    signal = signal / envelope
    if length is not None and signal.shape[-1] < length:
        warn_once("istft-short-signal",
                  "The length of signal is shorter than the length parameter. Result is "
                  "being padded with zeros in the tail. Please check your center and "
                  "hop_length settings.", UserWarning, stacklevel=2)
        signal = constant_pad(signal, ((0, length - signal.shape[-1]),), 0)
    return signal


del math, np, _dtype
