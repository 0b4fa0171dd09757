"""Video files to and from uint8 tensors through PyAV (FFmpeg's libraries): ``read_video``,
``read_video_timestamps`` and ``write_video`` with torchvision's classic signatures.

PyAV is optional (``pip install 'numtorch[video]'``); it is imported on first use.
"""

import math
import os
from fractions import Fraction

import numpy as np

import numtorch as torch

__all__ = ["read_video", "read_video_timestamps", "write_video"]


def _av():
    try:
        import av
    except ImportError:
        raise ImportError("PyAV is not installed, and is necessary for the video operations in "
                          "torchvision.\nSee https://github.com/mikeboers/PyAV#installation for "
                          "instructions on how to\ninstall PyAV on your system.\n") from None
    return av


def _check_format(output_format):
    fmt = output_format.upper()
    if fmt not in ("THWC", "TCHW"):
        raise ValueError(f"output_format should be either 'THWC' or 'TCHW', got {output_format}.")
    return fmt


def _to_stream_units(value, time_base, rounding):
    """Seconds (a number or Fraction) as a count of ``time_base`` ticks; infinity stays.

    A float is multiplied in floating point (0.2 s at 1/8000 is 1600 ticks, not the 1601 that
    the exact value of the double 0.2 would round up to); Fractions stay exact."""
    if value == math.inf:
        return value
    return int(rounding(value * (1 / Fraction(time_base))))


def _frames_in(container, stream, start, end, length=lambda frame: 0):
    """The decoded frames of ``stream`` that start by ``end`` and end after ``start`` (a
    frame lasting ``length(frame)`` ticks; video frames count as instants), in pts order.

    Seeks to the key frame at or before ``start`` first (falling back to the beginning when
    the container cannot seek) and stops once the decoder has passed ``end``."""
    try:
        container.seek(int(start), any_frame=False, backward=True, stream=stream)
    except Exception:  # noqa: BLE001 - unseekable input: decode from the start
        container.seek(0)
    frames = {}
    for frame in container.decode(stream):
        if frame.pts is None:
            continue
        if frame.pts > end:
            # frames leave the decoder in presentation order: later ones are later still
            break
        if frame.pts >= start or frame.pts + length(frame) > start:
            frames[frame.pts] = frame
    return [frames[pts] for pts in sorted(frames)]


def _audio_array(frames, start, end):
    """Audio frames as one ``(channels, samples)`` array cut to the samples whose time lies in
    ``[start, end]`` (in the stream's ticks)."""
    parts = []
    for frame in frames:
        data = frame.to_ndarray()
        if not frame.format.is_planar:
            # packed samples come as (1, samples * channels)
            data = data.reshape(-1, len(frame.layout.channels)).T
        parts.append(data)
    audio = np.concatenate(parts, axis=1)
    first, last = frames[0].pts, frames[-1].pts + frames[-1].samples * _ticks_per_sample(frames[-1])
    per_sample = (last - first) / audio.shape[1]
    lo = max(0, math.ceil((start - first) / per_sample)) if start > first else 0
    hi = audio.shape[1] if end == math.inf or end >= last else \
        max(lo, int((end - first) / per_sample) + 1)
    return audio[:, lo:hi]


def _ticks_per_sample(frame):
    return float(1 / (Fraction(frame.time_base) * frame.sample_rate))


def read_video(filename, start_pts=0, end_pts=None, pts_unit="pts", output_format="THWC"):
    """Read the video frames and audio of a file between two timestamps.

    Args:
        filename (str): the video file.
        start_pts (int, float or Fraction): the first presentation time to read.
        end_pts (int, float or Fraction, optional): the last one (inclusive); default the end.
        pts_unit (str): ``"pts"`` (the video stream's time-base ticks) or ``"sec"``.
        output_format (str): ``"THWC"`` (default) or ``"TCHW"`` for the frames.

    Returns:
        vframes (Tensor[T, H, W, C] or Tensor[T, C, H, W]): uint8 RGB frames.
        aframes (Tensor[K, L]): the audio samples, ``K`` channels.
        info (dict): ``video_fps`` (float) and ``audio_fps`` (int), where those streams exist.

    Raises:
        RuntimeError: the file does not exist.
        ValueError: ``end_pts`` before ``start_pts`` or an unknown ``output_format``.
    """
    output_format = _check_format(output_format)
    if not os.path.exists(filename):
        raise RuntimeError(f"File not found: {filename}")
    if end_pts is None:
        end_pts = math.inf
    if end_pts < start_pts:
        raise ValueError(f"end_pts should be larger than start_pts, got start_pts={start_pts} "
                         f"and end_pts={end_pts}")
    av = _av()
    info, video, audio = {}, None, None
    with av.open(filename, metadata_errors="ignore") as container:
        streams = container.streams
        if streams.video:
            stream = streams.video[0]
            lo, hi = start_pts, end_pts
            if pts_unit == "sec":
                lo = _to_stream_units(start_pts, stream.time_base, math.floor)
                hi = _to_stream_units(end_pts, stream.time_base, math.ceil)
            frames = _frames_in(container, stream, lo, hi)
            if frames:
                video = np.stack([f.to_ndarray(format="rgb24") for f in frames])
            if stream.average_rate is not None:
                info["video_fps"] = float(stream.average_rate)
        if streams.audio:
            stream = streams.audio[0]
            lo, hi = start_pts, end_pts
            if pts_unit == "sec":
                lo = _to_stream_units(start_pts, stream.time_base, math.floor)
                hi = _to_stream_units(end_pts, stream.time_base, math.ceil)
            elif streams.video:
                # pts bounds are in the video stream's ticks: carry them to the audio's
                video_tb = Fraction(streams.video[0].time_base)
                lo = _to_stream_units(start_pts * video_tb, stream.time_base, math.floor)
                hi = _to_stream_units(end_pts * video_tb, stream.time_base, math.ceil) \
                    if end_pts != math.inf else math.inf
            frames = _frames_in(container, stream, lo, hi,
                                lambda f: f.samples * _ticks_per_sample(f))
            if frames:
                audio = _audio_array(frames, lo, hi)
            info["audio_fps"] = stream.rate
    vframes = (torch.from_numpy(np.ascontiguousarray(video)) if video is not None
               else torch.empty((0, 1, 1, 3), dtype=torch.uint8))
    aframes = (torch.from_numpy(np.ascontiguousarray(audio)) if audio is not None
               else torch.empty((1, 0), dtype=torch.float32))
    if output_format == "TCHW":
        vframes = vframes.permute(0, 3, 1, 2)
    return vframes, aframes, info


def read_video_timestamps(filename, pts_unit="pts"):
    """The presentation timestamps of every video frame and the frame rate.

    Args:
        filename (str): the video file.
        pts_unit (str): ``"pts"`` (ints in the stream's time base) or ``"sec"`` (Fractions).

    Returns:
        pts (list of int or Fraction), sorted; video_fps (float or None without video).
    """
    av = _av()
    if not os.path.exists(filename):
        raise RuntimeError(f"File not found: {filename}")
    with av.open(filename, metadata_errors="ignore") as container:
        if not container.streams.video:
            return [], None
        stream = container.streams.video[0]
        # the packets carry the timestamps: no need to decode the pictures
        pts = sorted(p.pts for p in container.demux(stream) if p.pts is not None)
        fps = float(stream.average_rate) if stream.average_rate is not None else None
        time_base = Fraction(stream.time_base)
    if pts_unit == "sec":
        pts = [p * time_base for p in pts]
    return pts, fps


_AUDIO_FORMATS = {np.dtype(np.float32): "fltp", np.dtype(np.float64): "dblp",
                  np.dtype(np.int16): "s16p", np.dtype(np.int32): "s32p", np.dtype(np.uint8): "u8p"}


def write_video(filename, video_array, fps, video_codec="libx264", options=None,
                audio_array=None, audio_fps=None, audio_codec=None, audio_options=None):
    """Write frames (and optionally audio) to a video file.

    Args:
        filename (str): the file; its extension picks the container.
        video_array (Tensor[T, H, W, C]): uint8 RGB frames.
        fps (number): frames per second (a float is rounded).
        video_codec (str): the FFmpeg encoder name (``"libx264"``, ``"mpeg4"``,
            ``"libx264rgb"`` for lossless RGB, ...).
        options (dict, optional): encoder options, e.g. ``{"crf": "0"}``.
        audio_array (Tensor[C, N], optional): audio samples, one row per channel.
        audio_fps (int, optional), audio_codec (str, optional), audio_options (dict,
            optional): the audio's sample rate, encoder and options.
    """
    av = _av()
    frames = np.ascontiguousarray(torch.as_tensor(video_array, dtype=torch.uint8).numpy())
    if isinstance(fps, float):
        fps = int(np.round(fps))
    with av.open(filename, mode="w") as container:
        stream = container.add_stream(video_codec, rate=fps)
        stream.width, stream.height = frames.shape[2], frames.shape[1]
        stream.pix_fmt = "rgb24" if video_codec == "libx264rgb" else "yuv420p"
        stream.options = options or {}
        audio = None
        if audio_array is not None:
            audio = _audio_stream(container, audio_array, audio_fps, audio_codec, audio_options)
        for image in frames:
            container.mux(stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")))
        container.mux(stream.encode())
        if audio is not None:
            audio_stream, frame = audio
            container.mux(audio_stream.encode(frame))  # PyAV cuts it to the codec's frame size
            container.mux(audio_stream.encode())


def _audio_stream(container, audio_array, audio_fps, audio_codec, audio_options):
    """The audio stream and one frame holding all of ``audio_array`` ((channels, samples))."""
    import av

    samples = np.ascontiguousarray(torch.as_tensor(audio_array).numpy())
    channels = samples.shape[0]
    layout = {1: "mono", 2: "stereo"}.get(channels, f"{channels}c")
    stream = container.add_stream(audio_codec, rate=audio_fps)
    stream.layout = layout
    stream.options = audio_options or {}
    # planar frames: one row per channel, as the array is laid out
    fmt = _AUDIO_FORMATS.get(samples.dtype)
    if fmt is None:
        samples, fmt = samples.astype(np.float32), "fltp"
    frame = av.AudioFrame.from_ndarray(samples, format=fmt, layout=layout)
    frame.sample_rate = audio_fps
    frame.pts = 0
    return stream, frame
