"""Worker processes for ``DataLoader(num_workers > 0)``."""

_info = [None]


def current_info():
    """The WorkerInfo of this process (None in the main process)."""
    return _info[0]
