"""nn.functional: vision."""

__all__ = []
