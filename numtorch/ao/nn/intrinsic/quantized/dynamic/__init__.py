"""Dynamically quantized fused modules."""

from .modules import LinearReLU  # noqa: F401

__all__ = ["LinearReLU"]
