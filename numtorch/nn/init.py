"""``nn.init``: in-place, no-grad initialisers with torch's distributions and bounds."""

__all__ = []
