"""``torch.fx.experimental.proxy_tensor``: which proxy (make_fx) tracing mode is active.

numtorch traces with :func:`torch.fx.symbolic_trace` (Python-level proxies) and has no
dispatch-level proxy mode, which is what :func:`get_proxy_mode` reports on (torch's
``symbolic_trace`` also runs without one). Libraries call it to skip data-dependent work
while ``make_fx`` traces them.
"""

__all__ = ["get_proxy_mode"]


def get_proxy_mode():
    """The active dispatch-level proxy tracing mode, or None when not tracing (always in
    numtorch, which never enters such a mode)."""
    return None  # noqa: RET501 - the answer, spelled out
