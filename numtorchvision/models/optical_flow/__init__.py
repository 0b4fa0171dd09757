"""Optical flow models: RAFT (large and small) with torchvision's structure and weights."""

from .raft import *  # noqa: F403
