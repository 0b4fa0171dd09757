"""``numtorch.hub``: download checkpoints into a local cache and load them.

Only the checkpoint side of ``torch.hub`` is provided (:func:`load_state_dict_from_url`,
:func:`download_url_to_file`, :func:`get_dir`, :func:`set_dir`); loading models from GitHub
repositories (``hub.load``) is not.
"""

import contextlib
import hashlib
import os
import re
import sys
import tempfile
import urllib.parse
import urllib.request

from . import serialization

__all__ = ["get_dir", "set_dir", "download_url_to_file", "load_state_dict_from_url"]

_HUB_DIR = [None]
# the hex digits after the last '-' of a file name, e.g. resnet18-f37072fd.pth
_HASH_RE = re.compile(r"-([a-fA-F0-9]*)\.")
_CHUNK = 1 << 16


def _home():
    """numtorch's cache root: ``$NUMTORCH_HOME``, else ``$TORCH_HOME``, else
    ``$XDG_CACHE_HOME/numtorch`` (default ``~/.cache/numtorch``)."""
    for var in ("NUMTORCH_HOME", "TORCH_HOME"):
        if os.environ.get(var):
            return os.path.expanduser(os.environ[var])
    cache = os.environ.get("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.expanduser(os.path.join(cache, "numtorch"))


def get_dir():
    """The hub cache directory: the one given to :func:`set_dir`, else ``<home>/hub``.

    ``<home>`` is ``$NUMTORCH_HOME``, else ``$TORCH_HOME``, else ``~/.cache/numtorch``.
    """
    if _HUB_DIR[0] is not None:
        return _HUB_DIR[0]
    return os.path.join(_home(), "hub")


def set_dir(d):
    """Use ``d`` as the hub cache directory from now on.

    Args:
        d (str or os.PathLike): the directory (created when something is downloaded).
    """
    _HUB_DIR[0] = os.path.expanduser(os.fspath(d))


class _Progress:
    """A progress bar: tqdm when installed, else a plain percentage line on stderr."""

    def __init__(self, total, enabled):
        self.total, self.enabled, self.done, self._bar, self._last = total, enabled, 0, None, -1
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024)

    def update(self, n):
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
            return
        pct = int(100 * self.done / self.total) if self.total else -1
        if pct != self._last:
            self._last = pct
            shown = f"{pct}%" if pct >= 0 else f"{self.done} bytes"
            sys.stderr.write(f"\rDownloading: {shown}")
            sys.stderr.flush()

    def close(self):
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download ``url`` to the path ``dst`` atomically, optionally checking its SHA-256.

    The bytes go to a temporary file next to ``dst`` that is renamed over ``dst`` only when
    the download is complete (and its hash matches), so ``dst`` is never half-written.

    Args:
        url (str): an ``http(s)://``, ``ftp://`` or ``file://`` URL.
        dst (str or os.PathLike): the destination file.
        hash_prefix (str, optional): the SHA-256 hex digest must start with this.
        progress (bool): show a progress bar on stderr.

    Raises:
        RuntimeError: the SHA-256 does not start with ``hash_prefix``.
        urllib.error.URLError: the download failed.
    """
    dst = os.path.expanduser(os.fspath(dst))
    directory = os.path.dirname(os.path.abspath(dst))
    os.makedirs(directory, exist_ok=True)
    req = urllib.request.Request(url, headers={"User-Agent": "numtorch.hub"})
    with contextlib.closing(urllib.request.urlopen(req)) as resp:
        length = resp.headers.get("Content-Length") if hasattr(resp, "headers") else None
        total = int(length) if length and length.isdigit() else None
        fd, tmp = tempfile.mkstemp(prefix=".partial-", dir=directory)
        try:
            sha = hashlib.sha256()
            bar = _Progress(total, progress)
            try:
                with os.fdopen(fd, "wb") as out:
                    while True:
                        chunk = resp.read(_CHUNK)
                        if not chunk:
                            break
                        out.write(chunk)
                        sha.update(chunk)
                        bar.update(len(chunk))
                    out.flush()
                    os.fsync(out.fileno())
            finally:
                bar.close()
            if total is not None and bar.done != total:
                raise RuntimeError(f"download_url_to_file: got {bar.done} bytes from {url}, "
                                   f"expected {total} (connection cut)")
            digest = sha.hexdigest()
            if hash_prefix is not None and not digest.startswith(hash_prefix.lower()):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                                   f'"{digest}")')
            os.replace(tmp, dst)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """Download a checkpoint into the cache (once) and load it with :func:`numtorch.load`.

    Args:
        url (str): the checkpoint URL (``file://`` URLs work too).
        model_dir (str, optional): the cache folder. Default: ``<hub dir>/checkpoints``.
        map_location: passed to :func:`numtorch.load`.
        progress (bool): show a progress bar while downloading.
        check_hash (bool): require the file name's hash part (the hex digits after the last
            ``-``, at least 8 of them) to prefix the file's SHA-256.
        file_name (str, optional): the cached file's name; default the URL's last component.
        weights_only (bool): passed to :func:`numtorch.load`. Default: False, as in torch;
            pass True for files you do not trust.

    Returns:
        The loaded object (usually a state dict).

    Raises:
        RuntimeError: ``check_hash`` is set and the hash does not match ('invalid hash
            value').
    """
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    if not name:
        raise ValueError(f"load_state_dict_from_url: cannot take a file name from {url!r}; "
                         f"pass file_name=")
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        if progress:
            sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        prefix = None
        if check_hash:
            match = _HASH_RE.search(name)
            prefix = match.group(1) if match else None
            if not prefix or len(prefix) < 8:
                raise RuntimeError(f"load_state_dict_from_url: check_hash=True needs a file "
                                   f"name ending in '-<at least 8 hex digits>.<ext>', got "
                                   f"{name!r}")
        download_url_to_file(url, cached, prefix, progress=progress)
    return serialization.load(cached, map_location=map_location, weights_only=weights_only)
