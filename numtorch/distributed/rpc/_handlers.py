"""Running one incoming request on a pool thread and sending its reply.

A request is ``(func, args, kwargs, rref_id)``. Without ``rref_id`` the reply carries
``func``'s result (``rpc_sync``/``rpc_async``); with it the result is stored on this worker
under that id and the reply is an empty acknowledgement (``remote``). A function marked with
``async_execution`` returns a Future, and the reply goes out when that Future completes,
without holding a pool thread meanwhile.
"""

from ... import futures as _futures
from ..autograd import _context
from . import _rref, _wire
from ._agent import _RESP_ERR, _RESP_OK, error_payload
from .functions import is_async


def run_request(agent, peer, request, reply):
    """Run a decoded ``request`` and answer through ``reply(kind, payload)``.

    ``request`` is ``((func, args, kwargs, rref_id, fork_id), context)``, or the exception
    that decoding it raised.
    """
    if isinstance(request, Exception):  # an undecodable request fails on the caller
        reply(_RESP_ERR, error_payload(agent.me, request))
        return
    (func, args, kwargs, rref_id, _), ctx = request
    with _context.entered(ctx):
        try:
            out = func(*args, **kwargs)
            fut = _as_future(func, out)
        except Exception as e:  # noqa: BLE001 - the error belongs to the caller
            fut = _futures.Future()
            fut.set_exception(_with_text(agent, e))
    if rref_id is not None:
        # the owner keeps the value (or the error, raised by to_here); the caller only
        # learns that the request arrived and ran
        target = _rref.existing_future(rref_id)
        if target is not None:  # None: every reference was dropped already
            fut.add_done_callback(lambda f: _settle(target, f))
        fut.add_done_callback(lambda f: reply(_RESP_OK, _wire.dumps(None)))
        return
    fut.add_done_callback(lambda f: _answer(agent, peer, f, ctx, reply))


def _as_future(func, out):
    if isinstance(out, _rref.AsyncResult):
        out = out.future
    elif not is_async(func):
        done = _futures.Future()
        done.set_result(out)
        return done
    if not isinstance(out, _futures.Future):
        raise TypeError(f"a function marked with @rpc.functions.async_execution must return "
                        f"a torch.futures.Future, but it returned {type(out).__name__}")
    return out


def _with_text(agent, e):
    """Keep the remote traceback text with the error (used when the reply is built)."""
    e._rpc_payload = error_payload(agent.me, e)
    return e


def _settle(target, f):
    try:
        target.set_result(f.wait())
    except Exception as e:  # noqa: BLE001 - to_here raises it on the caller
        target.set_exception(e)


def _answer(agent, peer, f, ctx, reply):
    try:
        value = f.wait()
    except Exception as e:  # noqa: BLE001
        reply(_RESP_ERR, getattr(e, "_rpc_payload", None) or error_payload(agent.me, e))
        return
    try:
        payload = _wire.dumps(value, ctx, peer)
    except Exception as e:  # noqa: BLE001 - an unpicklable result fails on the caller
        reply(_RESP_ERR, error_payload(agent.me, e))
        return
    reply(_RESP_OK, payload)
