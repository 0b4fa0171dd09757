"""``torch.Stream`` and ``torch.Event``: the device-agnostic stream and event of torch 2.x.

On the CPU a stream is the one host stream (work is done when a call returns) and events are
refused as torch refuses them; on CUDA both stand for ``numtorch.cuda.Stream`` / ``Event``.
"""

from . import _device
from ._class_repr import TorchNamed

_TYPE_CODE = {"cpu": 0, "cuda": 1, "meta": 9}
_NO_EVENTS = "cpu backend doesn't support events."


def _resolve(device):
    if device is None:
        from . import cuda

        return _device.device("cuda") if cuda.is_available() else _device.device("cpu")
    if isinstance(device, int):
        from . import cuda

        if not cuda.is_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return _device.device("cuda", device)
    dev = _device.device(device)
    if dev.type == "cuda":
        from . import cuda

        if not cuda.is_available():
            raise RuntimeError("PyTorch is not linked with support for cuda devices")
    elif dev.type not in ("cpu", "meta"):
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")
    return dev


class Stream(metaclass=TorchNamed):
    """An ordered queue of work on a device; ``torch.Stream(device=None, *, priority=0)``."""

    _torch_name = "torch.Stream"

    def __init__(self, device=None, *, priority=0, **kwargs):
        dev = _resolve(device)
        self._dev = dev
        self._cuda = None
        if dev.type == "cuda":
            from . import cuda

            self._cuda = cuda.Stream(dev, priority=priority)

    @property
    def device(self):
        return self._dev

    @property
    def device_type(self):
        return _TYPE_CODE[self._dev.type]

    @property
    def device_index(self):
        if self._dev.type != "cuda":
            return -1
        return self._dev.index or 0

    @property
    def stream_id(self):
        return 0 if self._cuda is None else getattr(self._cuda, "stream_id", 0)

    @property
    def native_handle(self):
        if self._cuda is None:
            raise RuntimeError("Backend doesn't support getting stream native handle.")
        return self._cuda.cuda_stream

    def query(self):
        return True if self._cuda is None else self._cuda.query()

    def synchronize(self):
        if self._cuda is not None:
            self._cuda.synchronize()

    def is_capturing(self):
        return False

    def record_event(self, event=None):
        if self._cuda is None:
            raise RuntimeError(_NO_EVENTS)
        event = event if event is not None else Event(self._dev)
        event.record(self)
        return event

    def wait_event(self, event):
        if self._cuda is not None:
            self._cuda.wait_event(event._cuda)

    def wait_stream(self, stream):
        if self._cuda is None:
            raise RuntimeError(_NO_EVENTS)
        self._cuda.wait_stream(stream._cuda)

    def __enter__(self):
        if self._cuda is not None:
            self._cuda.__enter__()
        return self

    def __exit__(self, *exc):
        if self._cuda is not None:
            return self._cuda.__exit__(*exc)
        return None

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device_type, self.device_index,
                                              self.stream_id) == (other.device_type,
                                                                  other.device_index,
                                                                  other.stream_id)

    def __hash__(self):
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self._dev.type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event(metaclass=TorchNamed):
    """A marker in a stream's work; ``torch.Event(device=None, *, enable_timing=False,
    blocking=False, interprocess=False)``."""

    _torch_name = "torch.Event"

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        dev = _resolve(device)
        self._dev, self._timing = dev, bool(enable_timing)
        self._flags = 1 if enable_timing else 0  # the flag torch shows: timing or not
        self._recorded = False
        self._cuda = None
        if dev.type == "cuda":
            from . import cuda

            self._cuda = cuda.Event(enable_timing=enable_timing, blocking=blocking,
                                    interprocess=interprocess)

    @property
    def device(self):
        return self._dev

    @property
    def event_id(self):
        return 0

    def query(self):
        return True if self._cuda is None else self._cuda.query()

    def record(self, stream=None):
        if self._cuda is None:
            raise RuntimeError(_NO_EVENTS)
        self._cuda.record(None if stream is None else stream._cuda)
        self._recorded = True

    def wait(self, stream=None):
        if self._cuda is not None:
            self._cuda.wait(None if stream is None else stream._cuda)

    def synchronize(self):
        if self._cuda is not None:
            self._cuda.synchronize()

    def elapsed_time(self, end_event):
        if not (self._timing and end_event._timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        return self._cuda.elapsed_time(end_event._cuda)

    def ipc_handle(self):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue "
                                  "if you need this!")

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue "
                                  "if you need this!")

    def __repr__(self):
        index = -1 if self._dev.type == "cpu" else (self._dev.index or 0)
        return (f"torch.Event device_type={self._dev.type}, device_index={index}, "
                f"event_flag={self._flags}, event_id={self.event_id}")
