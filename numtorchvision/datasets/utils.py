"""Downloading, checking and unpacking dataset files.

Downloads go through numtorch.hub's downloader (resumable, MD5-checked, atomic), so a dataset
folder never holds a half-downloaded file; archives are unpacked into a temporary folder
inside the target and moved into place only when complete.
"""

import bz2
import contextlib
import errno
import gzip
import hashlib
import lzma
import os
import pathlib
import re
import shutil
import tarfile
import tempfile
import urllib.error
import zipfile
from urllib.parse import urlparse

from numtorch import hub

USER_AGENT = "numtorchvision"

__all__ = ["calculate_md5", "check_md5", "check_integrity", "download_url", "list_dir",
           "list_files", "download_file_from_google_drive", "extract_archive",
           "download_and_extract_archive", "iterable_to_str", "verify_str_arg"]


def calculate_md5(fpath, chunk_size=1024 * 1024):
    """The MD5 hex digest of the file at ``fpath``."""
    md5 = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            md5.update(chunk)
    return md5.hexdigest()


def check_md5(fpath, md5, **kwargs):
    """True when the file's MD5 is ``md5``."""
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath, md5=None):
    """True when ``fpath`` is a file and (if ``md5`` is given) has that MD5."""
    if not os.path.isfile(fpath):
        return False
    return True if md5 is None else check_md5(fpath, md5)


def _first_problem(files):
    """A note naming the first of ``files`` ((path, md5 or None) pairs) that is missing or has
    the wrong MD5, for "dataset not found" messages; empty when all are fine."""
    for path, md5 in files:
        if not os.path.isfile(path):
            return f" (missing: {path})"
        if md5 is not None:
            got = calculate_md5(path)
            if got != md5:
                return f" ({path} has MD5 {got}, expected {md5}: delete it)"
    return ""


def _google_drive_id(url):
    parts = urlparse(url)
    if re.match(r"(drive|docs)[.]google[.]com", parts.netloc) is None:
        return None
    match = re.match(r"/file/d/(?P<id>[^/]*)", parts.path)
    return None if match is None else match.group("id")


def _fetch(url, fpath, md5):
    hub._download(url, fpath, md5=md5, progress=True, headers={"User-Agent": USER_AGENT})


def download_url(url, root, filename=None, md5=None, max_redirect_hops=3):
    """Download ``url`` to ``root/filename`` unless a file with the right MD5 is there.

    The file appears only once it is complete and its MD5 matches. An ``https`` URL that
    fails is retried over ``http``, as the dataset hosts sometimes need.

    Args:
        url (str): the file's URL.
        root (str or os.PathLike): the folder to put it in (created if needed).
        filename (str, optional): the name to save it under; default the URL's last part.
        md5 (str, optional): the expected MD5; ``None`` skips the check.
        max_redirect_hops (int): kept for torchvision compatibility; urllib follows
            redirects itself.

    Raises:
        RuntimeError: the downloaded file's MD5 is wrong (nothing is written).
        urllib.error.URLError: the server could not be reached.
    """
    root = os.path.expanduser(root)
    filename = filename or os.path.basename(url)
    fpath = os.fspath(os.path.join(root, filename))
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        return
    file_id = _google_drive_id(url)
    if file_id is not None:
        return download_file_from_google_drive(file_id, root, filename, md5)
    try:
        _fetch(url, fpath, md5)
    except (urllib.error.URLError, OSError) as exc:
        if isinstance(exc, urllib.error.HTTPError) or not url.startswith("https"):
            raise
        _fetch(url.replace("https:", "http:", 1), fpath, md5)
    if not check_integrity(fpath, md5):
        raise RuntimeError(f"File not found or corrupted: {fpath}")


def list_dir(root, prefix=False):
    """The directories directly inside ``root`` (with ``root/`` in front when ``prefix``)."""
    root = os.path.expanduser(root)
    dirs = [p for p in os.listdir(root) if os.path.isdir(os.path.join(root, p))]
    return [os.path.join(root, d) for d in dirs] if prefix else dirs


def list_files(root, suffix, prefix=False):
    """The files directly inside ``root`` whose names end with ``suffix``."""
    root = os.path.expanduser(root)
    files = [p for p in os.listdir(root)
             if os.path.isfile(os.path.join(root, p)) and p.endswith(suffix)]
    return [os.path.join(root, f) for f in files] if prefix else files


def download_file_from_google_drive(file_id, root, filename=None, md5=None):
    """Download a Google Drive file (needs the ``gdown`` package)."""
    try:
        import gdown
    except ModuleNotFoundError:
        raise RuntimeError("To download files from GDrive, 'gdown' is required. You can "
                           "install it with 'pip install gdown'.") from None
    root = os.path.expanduser(root)
    fpath = os.fspath(os.path.join(root, filename or file_id))
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        return
    tmp = os.path.join(root, f".{os.path.basename(fpath)}.partial")
    gdown.download(id=file_id, output=tmp, quiet=False, user_agent=USER_AGENT)
    if not check_integrity(tmp, md5):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise RuntimeError(f"File not found or corrupted: {fpath} (Google Drive id {file_id})")
    os.replace(tmp, fpath)


_ARCHIVES = (".tar", ".zip")
_COMPRESSORS = {".bz2": bz2.open, ".gz": gzip.open, ".xz": lzma.open}
_ALIASES = {".tbz": (".tar", ".bz2"), ".tbz2": (".tar", ".bz2"), ".tgz": (".tar", ".gz")}


def _detect_file_type(file):
    """(suffix, archive type or None, compression or None) from the file name."""
    suffixes = pathlib.Path(file).suffixes
    if not suffixes:
        raise RuntimeError(f"File '{file}' has no suffixes that could be used to detect the "
                           f"archive type and compression.")
    suffix = suffixes[-1]
    if suffix in _ALIASES:
        return (suffix, *_ALIASES[suffix])
    if suffix in _ARCHIVES:
        return suffix, suffix, None
    if suffix in _COMPRESSORS:
        if len(suffixes) > 1 and suffixes[-2] in _ARCHIVES:
            return suffixes[-2] + suffix, suffixes[-2], suffix
        return suffix, None, suffix
    known = sorted(set(_ALIASES) | set(_ARCHIVES) | set(_COMPRESSORS))
    raise RuntimeError(f"Unknown compression or archive type: '{suffix}'.\nKnown suffixes "
                       f"are: '{known}'.")


def _move_into(src, dst):
    """Move the tree ``src`` into ``dst``, file by file (existing files are replaced)."""
    os.makedirs(dst, exist_ok=True)
    for entry in os.scandir(src):
        target = os.path.join(dst, entry.name)
        if entry.is_dir(follow_symlinks=False) and os.path.isdir(target):
            _move_into(entry.path, target)
        else:
            os.replace(entry.path, target)


def _unpack(from_path, to_path, archive, compression):
    what = f"{from_path}"
    try:
        if archive == ".tar":
            mode = f"r:{compression[1:]}" if compression else "r"
            with tarfile.open(from_path, mode) as tar:
                if hasattr(tarfile, "data_filter"):
                    tar.extractall(to_path, filter="data")
                else:
                    tar.extractall(to_path)
        else:
            methods = {".bz2": zipfile.ZIP_BZIP2, ".xz": zipfile.ZIP_LZMA}
            with zipfile.ZipFile(from_path, "r",
                                 compression=methods.get(compression, zipfile.ZIP_STORED)) as z:
                z.extractall(to_path)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, lzma.LZMAError) as exc:
        raise RuntimeError(f"{what} is not a complete {archive[1:]} archive ({exc}); delete it "
                           f"and download it again") from exc


def _decompress(from_path, to_path=None, remove_finished=False):
    suffix, archive, compression = _detect_file_type(from_path)
    if not compression:
        raise RuntimeError(f"Couldn't detect a compression from suffix {suffix}.")
    if to_path is None:
        to_path = pathlib.Path(os.fspath(from_path).replace(suffix, archive or ""))
    directory = os.path.dirname(os.path.abspath(to_path))
    if not os.path.isdir(directory):
        # torchvision opens the compressed file, then the output: a missing folder is
        # reported for the output's own path (not for the temporary file written first)
        with _COMPRESSORS[compression](from_path, "rb"):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(to_path))
    fd, tmp = tempfile.mkstemp(prefix=".unpacking-", dir=directory)
    try:
        with _COMPRESSORS[compression](from_path, "rb") as src, os.fdopen(fd, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(tmp, to_path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, (EOFError, OSError, lzma.LZMAError)):
            raise RuntimeError(f"{from_path} is not a complete {compression[1:]} file ({exc}); "
                               f"delete it and download it again") from exc
        raise
    if remove_finished:
        os.remove(from_path)
    return pathlib.Path(to_path)


def extract_archive(from_path, to_path=None, remove_finished=False):
    """Unpack a ``.tar``/``.zip`` archive (optionally compressed) or decompress a single
    ``.gz``/``.bz2``/``.xz`` file into ``to_path`` (default: the archive's folder).

    Nothing appears in ``to_path`` until the whole archive has been read.

    Returns:
        The folder (archives) or file (single compressed files) written; a ``str`` when
        ``from_path`` is one.
    """
    def same_kind(path):
        return os.fspath(path) if isinstance(from_path, str) else path

    if to_path is None:
        to_path = os.path.dirname(from_path)
    suffix, archive, compression = _detect_file_type(from_path)
    if not archive:
        out = os.path.join(to_path, os.path.basename(from_path).replace(suffix, ""))
        return same_kind(_decompress(from_path, out, remove_finished=remove_finished))
    os.makedirs(to_path, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".unpacking-", dir=to_path)
    try:
        _unpack(from_path, staging, archive, compression)
        _move_into(staging, to_path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if remove_finished:
        os.remove(from_path)
    return same_kind(pathlib.Path(to_path))


def download_and_extract_archive(url, download_root, extract_root=None, filename=None,
                                 md5=None, remove_finished=False):
    """:func:`download_url` then :func:`extract_archive` into ``extract_root`` (default the
    download folder)."""
    download_root = os.path.expanduser(download_root)
    extract_root = extract_root or download_root
    filename = filename or os.path.basename(url)
    download_url(url, download_root, filename, md5)
    extract_archive(os.path.join(download_root, filename), extract_root, remove_finished)


def iterable_to_str(iterable):
    return "'" + "', '".join(str(item) for item in iterable) + "'"


def verify_str_arg(value, arg=None, valid_values=None, custom_msg=None):
    """Check that ``value`` is a string among ``valid_values``; returns it.

    Raises:
        ValueError: not a string, or not one of the valid values.
    """
    if not isinstance(value, str):
        where = "" if arg is None else f" for argument {arg}"
        raise ValueError(f"Expected type str{where}, but got type {type(value)}.")
    if valid_values is None or value in valid_values:
        return value
    if custom_msg is not None:
        raise ValueError(custom_msg)
    raise ValueError(f"Unknown value '{value}' for argument {arg}. Valid values are "
                     f"{{{iterable_to_str(valid_values)}}}.")
