"""nn modules: normalization (torch's file of the same name; forward passes call nn.functional)."""

__all__ = []
