"""``numtorchvision.io``: image files to and from uint8 tensors (through Pillow), video files
through PyAV (optional, imported on first use)."""

from .image import (  # noqa: F401
    ImageReadMode,
    __all__,
    decode_avif,
    decode_gif,
    decode_heic,
    decode_image,
    decode_jpeg,
    decode_png,
    decode_webp,
    encode_jpeg,
    encode_png,
    read_file,
    read_image,
    write_file,
    write_jpeg,
    write_png,
)
from .video import read_video, read_video_timestamps, write_video  # noqa: E402,F401

__all__ = [*__all__, "read_video", "read_video_timestamps", "write_video"]
