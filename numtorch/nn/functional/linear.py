"""nn.functional: linear."""

__all__ = []
