"""The logger distributed entry points report failures to: records are dicts describing the
call and the job, sent to the handler ``logging_handlers._log_handlers`` names (by default
"default", which drops them; a program adds handlers to ``_c10d_logger``)."""

import functools
import logging
import os

from .logging_handlers import _log_handlers

__all__ = []


def _get_logging_handler(destination="default"):
    handler = _log_handlers[destination]
    return handler, f"{type(handler).__name__}-{destination}"


def _get_or_create_logger(destination="default"):
    handler, name = _get_logging_handler(destination)
    logger = logging.getLogger(f"c10d-{name}")
    logger.setLevel(logging.DEBUG)
    if handler not in logger.handlers:
        handler.setFormatter(logging.Formatter(
            "%(asctime)s %(filename)s:%(lineno)s %(levelname)s p:%(processName)s "
            "t:%(threadName)s: %(message)s"))
        logger.addHandler(handler)
    logger.propagate = False
    return logger


_c10d_logger = _get_or_create_logger()


def _get_msg_dict(func_name, *args, **kwargs):
    """What a record says about the call: the function, and the job once it runs."""
    from . import distributed_c10d as c10d

    msg = {"func_name": func_name}
    if c10d.is_initialized():
        group = kwargs.get("group") or kwargs.get("process_group")
        rank = c10d.get_rank()
        msg.update(
            pg_name=str(getattr(group, "group_name", None)),
            backend=str(c10d.get_backend(group)),
            world_size=str(c10d.get_world_size()),
            group_size=str(c10d.get_world_size(group)),
            global_rank=str(rank),
            local_rank=str(os.environ.get("LOCAL_RANK", rank)),
        )
    return msg


def _exception_logger(func):
    """Log (at DEBUG, with the error text) any exception ``func`` raises, then re-raise it."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except Exception as error:
            msg = _get_msg_dict(func.__name__, *args, **kwargs)
            msg["error"] = str(error)
            _c10d_logger.debug(msg)
            raise

    return wrapper


def _time_logger(func):
    """Marks a timed entry point; torch 2.13's CPU build emits no record for it (checked
    with a handler on ``_c10d_logger``), so the call runs unchanged."""
    return func
