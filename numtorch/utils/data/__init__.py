"""``numtorch.utils.data``: datasets, samplers, collation and the DataLoader (torch's split)."""

from .dataset import (  # noqa: F401
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
    TensorDataset, random_split,
)
from .sampler import (  # noqa: F401
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler,
)
from .distributed import DistributedSampler  # noqa: F401
from ._collate import default_collate, default_convert  # noqa: F401
from .dataloader import DataLoader, get_worker_info  # noqa: F401
from . import dataset, sampler, dataloader, distributed  # noqa: F401
