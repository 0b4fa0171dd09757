"""``torch.backends.openmp``: whether intra-op parallelism is available (numtorch splits
large kernels across threads and BLAS runs threaded: yes)."""


def is_available():
    return True
