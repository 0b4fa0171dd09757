"""``DistributedSampler``: each process of a distributed job gets its own share of indices."""

import math

from ..._random import Generator, rng_for
from .sampler import Sampler, _T_co

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[_T_co]):
    """Restrict loading to a disjoint subset per replica (rank), padded to equal length.

    Args:
        dataset: the dataset.
        num_replicas (int, optional): number of processes (default: the world size of the
            initialised default process group).
        rank (int, optional): this process's rank (default: its rank in that group).
        shuffle (bool): shuffle with a seed shared by all ranks (+ the epoch). Default: True.
        seed (int): the shared seed. Default: 0.
        drop_last (bool): drop the tail instead of padding. Default: False.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed

            if not distributed.is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = distributed.get_world_size()  # ValueError before init
            if rank is None:
                rank = distributed.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, "
                             f"{num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = Generator().manual_seed(self.seed + self.epoch)
            indices = rng_for(g).permutation(n).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Change the shuffle for a new epoch (call it before iterating each epoch)."""
        self.epoch = epoch

