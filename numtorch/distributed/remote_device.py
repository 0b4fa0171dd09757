"""``_remote_device``: where a remote module lives, "<worker>/<device>",
"rank:<r>/<device>" or "<device>" (RPC's naming)."""

from .. import device as _device

__all__ = []

_FORMAT = ("The valid format is '<workername>/<device>' or 'rank:<rank>/<device>' or "
           "'<device>'")


def _as_device(text):
    try:
        return _device(text)
    except (RuntimeError, ValueError, TypeError):
        return None


class _remote_device:
    """A parsed remote device: ``worker_name()``, ``rank()``, ``device()``."""

    def __init__(self, remote_device):
        if isinstance(remote_device, _remote_device):
            remote_device = str(remote_device)
        text = remote_device
        bad = ValueError(f"Could not parse remote_device: {text}. {_FORMAT}")
        if not isinstance(text, str):
            raise TypeError(f"Invalid type for remote_device: {type(text)}")
        self._worker_name = self._rank = None
        parts = text.split("/")
        if len(parts) == 1:
            dev = _as_device(text)
            if dev is None:  # a bare name that is no device names a worker (on its CPU)
                if not text:
                    raise bad
                self._worker_name, dev = text, _device("cpu")
        elif len(parts) == 2:
            who, dev = parts[0], _as_device(parts[1])
            if dev is None or not who:
                raise bad
            if who.startswith("rank:"):
                num = who[len("rank:"):]
                if not num.isdigit():
                    raise bad
                self._rank = int(num)
            else:
                self._worker_name = who
        else:
            raise bad
        self._device = dev

    def worker_name(self):
        return self._worker_name

    def rank(self):
        return self._rank

    def device(self):
        return self._device

    def __repr__(self):
        where = self._worker_name if self._worker_name is not None else (
            f"rank:{self._rank}" if self._rank is not None else None)
        return str(self._device) if where is None else f"{where}/{self._device}"

    def __eq__(self, other):
        return isinstance(other, _remote_device) and (
            (self._worker_name, self._rank, self._device)
            == (other._worker_name, other._rank, other._device))

    def __hash__(self):
        return hash((self._worker_name, self._rank, str(self._device)))
