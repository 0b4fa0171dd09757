"""nn.functional: sparse."""

__all__ = []
