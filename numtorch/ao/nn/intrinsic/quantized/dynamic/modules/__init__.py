"""Dynamically quantized fused modules."""

from .linear_relu import LinearReLU  # noqa: F401

__all__ = ["LinearReLU"]
