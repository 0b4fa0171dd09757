"""nn.functional: pooling."""

__all__ = []
