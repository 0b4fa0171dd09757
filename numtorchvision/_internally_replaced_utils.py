"""Download helpers under the private names torchvision's own code imports them by."""

from numtorch.hub import _download, load_state_dict_from_url  # noqa: F401


def _is_remote_location_available():
    """torchvision's builds inside Meta fetch from internal storage; there is none here."""
    return False


def _download_file_from_remote_location(fpath, url):
    """Download ``url`` to ``fpath`` (atomically, resumable)."""
    _download(url, fpath)
