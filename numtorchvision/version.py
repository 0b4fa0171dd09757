"""Version information, as torchvision's ``torchvision.version`` module."""

__version__ = "0.28.0"
git_version = "Unknown"
cuda = None
