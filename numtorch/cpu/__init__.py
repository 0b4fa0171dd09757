"""``torch.cpu``: the CPU as a device module (the same small API ``torch.cuda`` has), and
``torch.cpu.amp``.

There is one CPU device and its work is synchronous, so streams and events exist for code
written against the device-module interface and complete immediately.
"""

import contextlib
import os
import platform
import types

from . import amp  # noqa: F401

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream",
           "stream", "set_device", "device_count", "Stream", "StreamContext", "Event",
           "get_capabilities"]


def is_available():
    """Always True: the CPU is always there."""
    return True


def is_initialized():
    return True


def synchronize(device=None):
    """Nothing to wait for: CPU work is done when the call returns."""


def current_device():
    return "cpu"


def set_device(device):
    """Accepted for interface parity; there is only one CPU device."""


def device_count():
    return 1


class Stream:
    """A CPU stream (work on it runs at once); ``priority`` is accepted and ignored."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def wait_event(self, event):
        pass

    def record_event(self):
        pass


class Event:
    """A CPU event: always complete."""

    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_current_stream = Stream()


def current_stream(device=None):
    return _current_stream


class StreamContext(contextlib.AbstractContextManager):
    """Makes ``stream`` the current stream inside a ``with`` block."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _current_stream

    def __enter__(self):
        global _current_stream
        if self.stream is not None:
            self.prev_stream, _current_stream = _current_stream, self.stream

    def __exit__(self, *exc):
        global _current_stream
        if self.stream is not None:
            _current_stream = self.prev_stream


def stream(stream):
    """``with torch.cpu.stream(s):`` makes ``s`` current for the block."""
    return StreamContext(stream)


# torch's names for the x86 features; /proc/cpuinfo spells a few differently
_X86_NAMES = (
    "sse sse2 sse3 ssse3 sse4_1 sse4_2 sse4a avx avx2 avx_vnni avx512_f avx512_cd avx512_dq "
    "avx512_bw avx512_vl avx512_ifma avx512_vbmi avx512_vbmi2 avx512_bitalg avx512_vpopcntdq "
    "avx512_vnni avx512_bf16 avx512_fp16 avx512_vp2intersect avx512_4vnniw avx512_4fmaps "
    "avx10_1 avx10_2 avx_vnni_int8 avx_vnni_int16 avx_ne_convert amx_bf16 amx_tile amx_int8 "
    "amx_fp16 fma3 fma4 f16c bmi bmi2 popcnt lzcnt aes sha clflush clflushopt clwb").split()
_PROC_NAMES = {"pni": "sse3", "fma": "fma3", "abm": "lzcnt", "sha_ni": "sha", "bmi1": "bmi",
               "avx_vnni_int8": "avx_vnni_int8", "avxvnniint8": "avx_vnni_int8",
               "avxvnniint16": "avx_vnni_int16", "avxneconvert": "avx_ne_convert"}
_capabilities = None


def _torch_name(flag):
    if flag.startswith("avx512") and not flag.startswith("avx512_"):
        return "avx512_" + flag[6:]  # avx512f -> avx512_f
    return _PROC_NAMES.get(flag, flag)


def _read_cpuinfo():
    flags, cores, sockets = set(), set(), set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key in ("flags", "Features") and not flags:
                    flags = {_torch_name(flag) for flag in value.split()}
                elif key == "physical id":
                    sockets.add(value)
                elif key == "core id":
                    cores.add((len(sockets), value))
    except OSError:
        pass
    return flags, len(cores), len(sockets)


def get_capabilities():
    """The CPU's instruction-set features (read from ``/proc/cpuinfo`` on Linux), its
    ``architecture`` and core counts, as a read-only mapping."""
    global _capabilities
    if _capabilities is None:
        flags, cores, sockets = _read_cpuinfo()
        caps = {"architecture": platform.machine()}
        if caps["architecture"] in ("x86_64", "AMD64", "i686"):
            caps.update({name: name in flags for name in _X86_NAMES})
        else:
            caps.update({name: True for name in sorted(flags)})
        caps["num_logical_cores"] = os.cpu_count() or 1
        caps["num_physical_cores"] = cores or caps["num_logical_cores"]
        caps["num_sockets"] = sockets or 1
        _capabilities = types.MappingProxyType(caps)
    return _capabilities
