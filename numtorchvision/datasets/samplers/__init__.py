"""Samplers for the clip datasets (Kinetics, UCF101, HMDB51): a distributed sampler that
keeps groups of clips together, and per-video uniform / random clip samplers."""

from .clip_sampler import DistributedSampler, RandomClipSampler, UniformClipSampler

__all__ = ("DistributedSampler", "UniformClipSampler", "RandomClipSampler")
