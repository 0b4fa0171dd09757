"""``torch.utils.tensorboard``: write TensorBoard event files (``SummaryWriter``).

The event records, their CRC framing and the background writer thread are numtorch's own;
the protobuf messages come from the ``tensorboard`` package, an optional extra:
``pip install "numtorch[tensorboard]"``.
"""

try:
    import tensorboard  # noqa: F401
    from tensorboard.compat.proto import event_pb2  # noqa: F401
except ImportError as e:  # as torch: the module cannot be imported without the package
    raise ImportError('numtorch.utils.tensorboard needs the tensorboard package: '
                      'pip install "numtorch[tensorboard]" (or pip install tensorboard)') from e

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
