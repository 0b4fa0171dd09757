"""``numtorch.device``: a device type ('cpu' or 'cuda') and an optional index."""

__all__ = ["device"]


class device:
    """A place where a tensor's memory lives, e.g. ``device('cpu')`` or ``device('cuda', 0)``.

    Args:
        type (str or device): ``'cpu'``, ``'cuda'`` or ``'cuda:N'``.
        index (int, optional): the device ordinal for ``'cuda'``.
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002 - torch's argument name
        if isinstance(type, device):
            if index is not None:
                raise ValueError("device(): an index cannot be given with a device object")
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device(): expected a string or int, but got {type!r}")
        name = type
        if ":" in name:
            if index is not None:
                raise ValueError(f"device(): type (string) must not include an index because "
                                 f"index was passed explicitly: {name}")
            name, _, idx = name.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(idx)
        if name not in ("cpu", "cuda", "meta"):
            raise RuntimeError(f"Expected one of cpu, cuda, meta device type at start of device "
                               f"string: {type}")
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type, self.index = name, index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")


def as_device(d):
    """Accept a device, a string or an int (a CUDA ordinal) and return a device."""
    if d is None or type(d) is device:
        return d
    return device(d)
