"""``torch.cuda`` streams and events, over CuPy's.

CuPy runs every kernel and copy on its current stream, so ``with torch.cuda.stream(s):`` (which
makes ``s``'s CuPy stream current) is all it takes for numtorch's ops to respect a stream.
Events mark points on a stream, for timing (``elapsed_time``) and for one stream to wait on
another without blocking the host.
"""

from .. import backend
from .._device import device as _torch_device

__all__ = ["Stream", "ExternalStream", "Event", "current_stream", "default_stream",
           "set_stream", "stream", "StreamContext"]


def _cupy():
    cp = backend.cupy_or_none()
    if cp is None:
        raise backend.cuda_unavailable()
    return cp


def _index(device):
    from .random import _index as index_of

    return index_of("cuda" if device is None else device)


class Stream:
    """A CUDA stream: an ordered queue of GPU work (a ``cupy.cuda.Stream`` underneath).

    Args:
        device (int, str or device, optional): the GPU. Default: the current one.
        priority (int): lower numbers run first (CUDA's stream priorities). Default: 0.
    """

    def __new__(cls, device=None, priority=0, **kwargs):
        if backend.cupy_or_none() is None:
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        cp = _cupy()
        idx = _index(device)
        with cp.cuda.Device(idx):
            made = cp.cuda.Stream(non_blocking=True, priority=priority or None)
        return cls._wrap(made, idx, priority)

    @classmethod
    def _wrap(cls, cupy_stream, index, priority=0):
        self = object.__new__(cls)
        self._stream = cupy_stream
        self.device = backend.helpers_for(backend.cupy_or_none()).cuda_device(index)
        self.priority = priority
        return self

    @property
    def cuda_stream(self):
        """The ``cudaStream_t`` handle, as an int (0 for the default stream)."""
        return int(self._stream.ptr)

    @property
    def device_index(self):
        return self.device.index

    def query(self):
        """True when all work queued so far has finished."""
        return bool(self._stream.done)

    def synchronize(self):
        """Block the host until the stream's work is done."""
        self._stream.synchronize()

    def wait_event(self, event):
        """Make later work on this stream wait for ``event`` (the host does not wait)."""
        self._stream.wait_event(event._event)

    def wait_stream(self, stream):
        """Make later work on this stream wait for the work queued on ``stream`` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Record ``event`` (a new one if None) at this point of the stream, and return it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def __enter__(self):
        self._stream.__enter__()
        return self

    def __exit__(self, *exc):
        return self._stream.__exit__(*exc)

    def __eq__(self, other):
        return isinstance(other, Stream) and self.cuda_stream == other.cuda_stream and \
            self.device == other.device

    def __hash__(self):
        return hash((self.cuda_stream, self.device))

    def __repr__(self):
        return f"<torch.cuda.Stream device={self.device} cuda_stream={hex(self.cuda_stream)}>"


class ExternalStream(Stream):
    """A stream made elsewhere (another library), known by its ``cudaStream_t`` handle."""

    def __new__(cls, stream_ptr, device=None, **kwargs):
        cp = _cupy()
        idx = _index(device)
        with cp.cuda.Device(idx):
            made = cp.cuda.ExternalStream(int(stream_ptr))
        return cls._wrap(made, idx)


class Event:
    """A marker on a stream, for timing and for cross-stream waits (``cupy.cuda.Event``).

    Args:
        enable_timing (bool): record times, for :meth:`elapsed_time`. Default: False.
        blocking (bool): :meth:`synchronize` blocks the thread instead of spinning.
        interprocess (bool): shareable with other processes. Default: False.
    """

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if backend.cupy_or_none() is None:
            raise RuntimeError("Tried to instantiate dummy base class Event")
        self._event = _cupy().cuda.Event(block=blocking, disable_timing=not enable_timing,
                                         interprocess=interprocess)
        self.enable_timing = enable_timing

    def record(self, stream=None):
        """Record the event on ``stream`` (default: the current stream)."""
        if stream is None:
            stream = current_stream()
        self._event.record(stream._stream)

    def wait(self, stream=None):
        """Make later work on ``stream`` (default: the current one) wait for this event."""
        if stream is None:
            stream = current_stream()
        stream.wait_event(self)

    def query(self):
        """True when the work before the event has finished."""
        return bool(self._event.done)

    def synchronize(self):
        """Block the host until the event has happened."""
        self._event.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds between this event and ``end_event`` (both recorded with timing)."""
        return float(_cupy().cuda.get_elapsed_time(self._event, end_event._event))

    def ipc_handle(self):
        """A handle another process could open this event with; numtorch does not share
        events between processes, so this raises RuntimeError."""
        raise RuntimeError("Event.ipc_handle: interprocess events are not supported by numtorch")

    def __repr__(self):
        return f"<torch.cuda.Event {id(self._event):#x}>"


def current_stream(device=None):
    """The stream GPU work is queued on now (``device``'s; default: the current GPU's)."""
    cp = _cupy()
    idx = _index(device)
    return Stream._wrap(cp.cuda.get_current_stream(idx), idx)


def default_stream(device=None):
    """The default (legacy null) stream of ``device``."""
    cp = _cupy()
    return Stream._wrap(cp.cuda.Stream.null, _index(device))


def set_stream(stream):
    """Make ``stream`` current (None: no change)."""
    if stream is not None:
        stream._stream.use()


class StreamContext:
    """``with torch.cuda.stream(s):``: ``s`` is the current stream inside the block (and its
    GPU the current GPU); None leaves both unchanged."""

    def __init__(self, stream):
        self.stream = stream
        self._device = None

    def __enter__(self):
        if self.stream is None:
            return None
        cp = _cupy()
        self._device = cp.cuda.Device(self.stream.device.index)
        self._device.__enter__()
        self.stream.__enter__()
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            self.stream.__exit__(*exc)
            self._device.__exit__(*exc)
        return False


def stream(stream):
    """A context manager making ``stream`` current inside its block (see
    :class:`StreamContext`)."""
    return StreamContext(stream)
