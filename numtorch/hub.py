"""``numtorch.hub``: download checkpoints into a local cache and load them.

Checkpoints (:func:`load_state_dict_from_url`, :func:`download_url_to_file`) and models from
a repository's ``hubconf.py`` (:func:`load`, :func:`list`, :func:`help`), from a local folder
or from GitHub, cached under :func:`get_dir`.
"""

import contextlib
import hashlib
import http.client
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; concurrent downloads are not serialised
    fcntl = None

from . import _hub_repos, serialization

__all__ = ["get_dir", "set_dir", "download_url_to_file", "load_state_dict_from_url", "load",
           "list", "help"]

# torch.hub's module constants, for code that reads them
DEFAULT_CACHE_DIR = "~/.cache"
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
MODULE_HUBCONF = _hub_repos.HUBCONF
VAR_DEPENDENCY = _hub_repos.DEPENDENCIES
READ_DATA_CHUNK = 128 * 1024

# names torch.hub re-exports from the standard library, which libraries import from it
# (timm: ``from torch.hub import urlparse``)
urlparse = urllib.parse.urlparse
urlopen = urllib.request.urlopen
Request = urllib.request.Request
HTTPError = urllib.error.HTTPError
URLError = urllib.error.URLError
try:
    from tqdm import tqdm
except ImportError:  # torch.hub falls back to a bar of its own; numtorch's downloads need none
    tqdm = None

_HUB_DIR = [None]
_CHUNK = 1 << 16


def _home():
    """numtorch's cache root: ``$NUMTORCH_HOME``, else ``$TORCH_HOME``, else
    ``$XDG_CACHE_HOME/numtorch`` (default ``~/.cache/numtorch``)."""
    for var in ("NUMTORCH_HOME", "TORCH_HOME"):
        if os.environ.get(var):
            return os.path.expanduser(os.environ[var])
    cache = os.environ.get("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.expanduser(os.path.join(cache, "numtorch"))


def _get_torch_home():
    """The cache root (torch.hub's private helper, which libraries call)."""
    return _home()


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

    The bytes go to ``.<name>.partial`` next to ``dst``, which is renamed over ``dst`` only
    when the download is complete (and its hash matches), so ``dst`` is never half-written. A
    cut connection is resumed with an HTTP Range request (here, or by a later call when this
    one gave up), and concurrent downloads of the same file wait for each other.

    Args:
        url (str): an ``http(s)://``, ``ftp://`` or ``file://`` URL.
        dst (str or os.PathLike): the destination file.
        hash_prefix (str, optional): the SHA-256 hex digest must start with this.
        progress (bool): show a progress bar on stderr.

    Raises:
        RuntimeError: the SHA-256 does not start with ``hash_prefix``.
        urllib.error.URLError: the download failed.
    """
    _download(url, dst, sha256_prefix=hash_prefix, progress=progress)


def _hash_file(path, algorithms):
    hashes = {name: hashlib.new(name) for name in algorithms}
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            for h in hashes.values():
                h.update(chunk)
    return {name: h.hexdigest() for name, h in hashes.items()}


@contextlib.contextmanager
def _locked_partial(partial):
    """Open (creating) the partial file under an exclusive lock, as an append-mode file.

    After the lock is granted the path is checked to still name the locked file: another
    process may have finished the same download and renamed it away meanwhile.
    """
    while True:
        f = open(partial, "ab")
        if fcntl is None:
            break
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            same = os.path.samestat(os.fstat(f.fileno()), os.stat(partial))
        except FileNotFoundError:
            same = False
        if same:
            break
        f.close()
    try:
        yield f
    finally:
        f.close()  # closing releases the lock


def _request(url, start, headers):
    hdrs = dict(headers)
    if start:
        hdrs["Range"] = f"bytes={start}-"
    return urllib.request.urlopen(urllib.request.Request(url, headers=hdrs))


def _copy_body(resp, out, bar):
    """Append the response body to ``out``; returns the number of bytes written."""
    written = 0
    while True:
        chunk = resp.read(_CHUNK)
        if not chunk:
            return written
        out.write(chunk)
        written += len(chunk)
        bar.update(len(chunk))


def _download(url, dst, *, sha256_prefix=None, md5=None, progress=True,
              headers=None, retries=3):
    """The download behind :func:`download_url_to_file` and numtorchvision's datasets.

    Resumable, atomic (``dst`` appears only complete and verified), locked against
    concurrent downloads of the same file, with an optional SHA-256 prefix or MD5 check.
    On a hash mismatch the partial data is deleted; on a network failure it is kept, so the
    next call resumes where this one stopped.
    """
    dst = os.path.abspath(os.path.expanduser(os.fspath(dst)))
    directory, name = os.path.split(dst)
    os.makedirs(directory, exist_ok=True)
    partial = os.path.join(directory, f".{name}.partial")
    headers = headers or {"User-Agent": "numtorch.hub"}
    with _locked_partial(partial) as out:
        have = out.tell()
        bar = None
        try:
            for attempt in range(retries + 1):
                try:
                    resp = _request(url, have, headers)
                except urllib.error.HTTPError as exc:
                    if exc.code != 416 or not have:
                        raise
                    out.truncate(0)  # the server refuses our range: start again
                    out.seek(0)
                    have = 0
                    continue
                with contextlib.closing(resp):
                    status = getattr(resp, "status", None)
                    if have and status != 206:
                        out.truncate(0)  # no range support: the body is the whole file
                        out.seek(0)
                        have = 0
                    length = resp.headers.get("Content-Length") if resp.headers else None
                    total = have + int(length) if length and length.isdigit() else None
                    if bar is None:
                        bar = _Progress(total, progress)
                        bar.update(have)
                    try:
                        have += _copy_body(resp, out, bar)
                        complete = total is None or have >= total
                    except (http.client.IncompleteRead, ConnectionError, TimeoutError):
                        complete = False
                    out.flush()
                    have = out.tell()
                if complete:
                    break
                if attempt == retries:
                    raise RuntimeError(f"download of {url} stopped at {have} of {total} bytes "
                                       f"after {retries + 1} attempts; calling again resumes "
                                       f"from {partial}")
        except BaseException:
            if out.tell() == 0:
                with contextlib.suppress(OSError):
                    os.unlink(partial)
            raise
        finally:
            if bar is not None:
                bar.close()
        os.fsync(out.fileno())
        wanted = [a for a, v in (("sha256", sha256_prefix), ("md5", md5)) if v]
        digests = _hash_file(partial, wanted) if wanted else {}
        problem = None
        if sha256_prefix and not digests["sha256"].startswith(sha256_prefix.lower()):
            problem = (f'invalid hash value (expected "{sha256_prefix}", got '
                       f'"{digests["sha256"]}")')
        elif md5 and digests["md5"] != md5.lower():
            problem = (f"the file downloaded from {url} has MD5 {digests['md5']}, expected "
                       f"{md5}: it is corrupted or not the expected file. {dst} was not "
                       f"written; download it again")
        if problem:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise RuntimeError(problem)
        os.replace(partial, dst)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """Download a checkpoint into the cache (once) and load it with :func:`numtorch.load`.

    Args:
        url (str): the checkpoint URL (``file://`` URLs work too).
        model_dir (str, optional): the cache folder. Default: ``<hub dir>/checkpoints``.
        map_location: passed to :func:`numtorch.load`.
        progress (bool): show a progress bar while downloading.
        check_hash (bool): require the file name's hash part (the lowercase hex digits
            after a ``-`` and before a ``.``) to prefix the file's SHA-256; a name without one
            is not checked, as in torch.
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
        # torch names the download on stdout, whether or not it shows a progress bar
        sys.stdout.write(f'Downloading: "{url}" to {cached}\n')
        prefix = None
        if check_hash:  # as torch: a name without a hash part is simply not checked
            match = HASH_REGEX.search(name)
            prefix = match.group(1) if match else None
        download_url_to_file(url, cached, prefix, progress=progress)
    if _is_legacy_zip(cached):
        return _legacy_zip_load(cached, model_dir, map_location, weights_only)
    return serialization.load(cached, map_location=map_location, weights_only=weights_only)


def _is_legacy_zip(path):
    """A zip holding one file, as pre-1.6 checkpoints were published (resnet18-5c106cde.pth):
    not torch's own zip format, which always holds several records."""
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
    return len(infos) == 1 and not infos[0].is_dir()


def _legacy_zip_load(path, model_dir, map_location, weights_only):
    """Extract the one checkpoint inside a legacy zip into ``model_dir`` and load it; an entry
    whose name would land outside ``model_dir`` is refused with torch's ValueError."""
    warnings.warn("Falling back to the old format < 1.6. This support will be deprecated in "
                  "favor of default zipfile format introduced in 1.6. Please redo "
                  "torch.save() to save it in the new zipfile format.", FutureWarning,
                  stacklevel=3)
    root = os.path.realpath(model_dir)
    with zipfile.ZipFile(path) as zf:
        (member,) = zf.infolist()
        name = os.path.normpath(member.filename)
        if name.startswith(("/", "\\")) or (len(name) >= 2 and name[1] == ":"
                                             and name[0].isalpha()):
            raise ValueError(f"Archive entry has absolute path: {member.filename}")
        if ".." in re.split(r"[/\\]", name):
            raise ValueError(f"Archive entry contains directory traversal: {member.filename}")
        target = os.path.realpath(os.path.join(root, name))
        if os.path.commonpath([root, target]) != root:
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
        zf.extract(member, root)
    return serialization.load(target, map_location=map_location, weights_only=weights_only)


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """Build a model from the entrypoint ``model`` of a repository's ``hubconf.py``.

    Args:
        repo_or_dir (str): ``"owner/name[:ref]"`` of a GitHub repository (``source="github"``;
            ``ref`` is a branch, tag or commit, by default ``main``, else ``master``), or a
            local folder holding ``hubconf.py`` (``source="local"``).
        model (str): the entrypoint, a callable defined in ``hubconf.py``.
        *args, **kwargs: passed to the entrypoint.
        source (str): ``"github"`` or ``"local"``.
        trust_repo (bool, str or None): ``"check"`` asks (on stdin) before fetching a
            repository that is not trusted yet, ``False`` always asks, ``True`` (or ``None``)
            trusts it; trusted repositories are kept in ``<hub dir>/trusted_list``.
        force_reload (bool): fetch the repository again even when it is cached.
        verbose (bool): say on stderr when the cached copy is used.
        skip_validation (bool): do not ask GitHub's API whether ``ref`` belongs to the
            repository before fetching it.

    Returns:
        What the entrypoint returns.

    Raises:
        ValueError: an unknown ``source``, or ``model`` is not a string.
        RuntimeError: ``hubconf.py`` has no callable ``model``, or names ``dependencies``
            that cannot be imported.
    """
    return _hub_repos.load(repo_or_dir, model, *args, source=source, trust_repo=trust_repo,
                           force_reload=force_reload, verbose=verbose,
                           skip_validation=skip_validation, **kwargs)


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):
    """The entrypoints (public callables of ``hubconf.py``) of a GitHub repository, sorted.

    The arguments are those of :func:`load`.
    """
    return _hub_repos.list_entrypoints(github, force_reload, skip_validation, trust_repo,
                                       verbose)


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    """The docstring of the entrypoint ``model`` of a GitHub repository's ``hubconf.py``.

    The arguments are those of :func:`load`.
    """
    return _hub_repos.entrypoint_doc(github, model, force_reload, skip_validation, trust_repo)
