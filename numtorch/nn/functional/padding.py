"""nn.functional: padding."""

__all__ = []
