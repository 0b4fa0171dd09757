"""The process's current RPC agent (set by ``init_rpc``, cleared by ``shutdown``)."""

_current = [None]


def agent():
    """The running agent.

    Raises:
        RuntimeError: before ``init_rpc`` or after ``shutdown``.
    """
    a = _current[0]
    if a is None:
        raise RuntimeError("RPC has not been initialized. Call "
                           "torch.distributed.rpc.init_rpc first.")
    return a


def is_running():
    return _current[0] is not None


def set_agent(a):
    _current[0] = a
