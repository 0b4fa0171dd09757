"""URL rendezvous: ``rendezvous(url, rank, world_size)`` yields (store, rank, world_size)
from the handler registered for the URL's scheme (env://, tcp://, file:// built in;
``register_rendezvous_handler`` adds more)."""

import os
from urllib.parse import urlparse

from .constants import default_pg_timeout

__all__ = ["register_rendezvous_handler", "rendezvous"]

_rendezvous_handlers = {}


def register_rendezvous_handler(scheme, handler):
    """Serve ``scheme://`` URLs with ``handler(url, **kwargs)``, a generator of
    (store, rank, world_size) tuples; a scheme can be registered once."""
    if scheme in _rendezvous_handlers:
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _rendezvous_handlers[scheme] = handler


def rendezvous(url, rank=-1, world_size=-1, **kwargs):
    """The handler's generator for ``url``; rank and world_size (when given) are added to
    the URL's query, where handlers read them."""
    if not isinstance(url, str):
        raise RuntimeError(f"`url` must be a string. {type(url)}: {url}")  # noqa: TRY004
    if not isinstance(rank, int):
        raise RuntimeError(f"`rank` must be an integer. {rank}")  # noqa: TRY004
    if not isinstance(world_size, int):
        raise RuntimeError(f"`world_size` must be an integer. {world_size}")  # noqa: TRY004
    extra = [f"{k}={v}" for k, v in (("rank", rank), ("world_size", world_size)) if v != -1]
    if extra:
        sep = "&" if urlparse(url).query else "?"
        url = url + sep + "&".join(extra)
    scheme = urlparse(url).scheme
    if scheme not in _rendezvous_handlers:
        raise RuntimeError(f"No rendezvous handler for {scheme}://")
    return _rendezvous_handlers[scheme](url, **kwargs)


def _url_handler(url, timeout=default_pg_timeout, **kwargs):
    from ._sock_init import _store_for

    yield _swap(_store_for(url, -1, -1, timeout.total_seconds()))


def _swap(store_size_rank):
    store, size, rank = store_size_rank
    return store, rank, size


def _env_handler(url, timeout=default_pg_timeout, **kwargs):
    from urllib.parse import parse_qs

    from ._sock_init import _store_for

    q = parse_qs(urlparse(url).query)
    found = {}
    for key, var in (("rank", "RANK"), ("world_size", "WORLD_SIZE")):
        if key in q:
            found[key] = int(q[key][0])
        elif var in os.environ:
            found[key] = int(os.environ[var])
        else:
            raise ValueError("Error initializing torch.distributed using env:// rendezvous: "
                             f"environment variable {var} expected, but not set")
    for var in ("MASTER_ADDR", "MASTER_PORT"):
        if var not in os.environ:
            raise ValueError("Error initializing torch.distributed using env:// rendezvous: "
                             f"environment variable {var} expected, but not set")
    yield _swap(_store_for("env://", found["world_size"], found["rank"],
                           timeout.total_seconds()))


register_rendezvous_handler("tcp", _url_handler)
register_rendezvous_handler("file", _url_handler)
register_rendezvous_handler("env", _env_handler)
