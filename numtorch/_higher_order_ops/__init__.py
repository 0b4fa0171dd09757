"""``torch._higher_order_ops``: the control-flow operators that user code imports from there."""

from .associative_scan import associative_scan

__all__ = ["associative_scan"]
