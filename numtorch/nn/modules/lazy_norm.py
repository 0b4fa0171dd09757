"""Lazy batch and instance norm: ``num_features`` is read from the first input.

Until the first call the affine parameters and running statistics are
``UninitializedParameter``/``UninitializedBuffer`` placeholders (they appear in the state dict
as such, as in torch); the call materialises them, initialises them and turns the module into
the matching ``BatchNorm*``/``InstanceNorm*`` class. The classes report torch's module paths
(``torch.nn.modules.batchnorm`` / ``.instancenorm``).
"""

from ... import _from_data
from ..._dtype import int64
from ..parameter import UninitializedBuffer, UninitializedParameter
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .lazy import LazyModuleMixin

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """A norm layer with zero features until the first input fixes them."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        factory = {"device": device, "dtype": dtype}
        super().__init__(0, eps, momentum, False, False, **factory)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(**factory)
            if bias:
                self.bias = UninitializedParameter(**factory)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**factory)
            self.running_var = UninitializedBuffer(**factory)
            self.num_batches_tracked = _from_data.tensor(0, dtype=int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materialise the parameters and statistics for ``input.shape[1]`` features."""
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        n = (self.num_features,)
        for t in (self.weight, self.bias, self.running_mean, self.running_var):
            if t is not None:
                t.materialize(n)
        self.reset_parameters()


def _make(name, base, target, module):
    cls = type(name, (_LazyNormBase, base), {
        "cls_to_become": target, "__module__": module, "__qualname__": name,
        "__doc__": f"A :class:`{target.__name__}` whose ``num_features`` is read from the "
                   f"first input (see :mod:`numtorch.nn.modules.lazy_norm`)."})
    return cls


_BN = "numtorch.nn.modules.batchnorm"
_IN = "numtorch.nn.modules.instancenorm"
LazyBatchNorm1d = _make("LazyBatchNorm1d", _BatchNorm, BatchNorm1d, _BN)
LazyBatchNorm2d = _make("LazyBatchNorm2d", _BatchNorm, BatchNorm2d, _BN)
LazyBatchNorm3d = _make("LazyBatchNorm3d", _BatchNorm, BatchNorm3d, _BN)
LazyInstanceNorm1d = _make("LazyInstanceNorm1d", _InstanceNorm, InstanceNorm1d, _IN)
LazyInstanceNorm2d = _make("LazyInstanceNorm2d", _InstanceNorm, InstanceNorm2d, _IN)
LazyInstanceNorm3d = _make("LazyInstanceNorm3d", _InstanceNorm, InstanceNorm3d, _IN)
for _cls, _target in ((LazyBatchNorm1d, BatchNorm1d), (LazyBatchNorm2d, BatchNorm2d),
                      (LazyBatchNorm3d, BatchNorm3d), (LazyInstanceNorm1d, InstanceNorm1d),
                      (LazyInstanceNorm2d, InstanceNorm2d), (LazyInstanceNorm3d, InstanceNorm3d)):
    _cls._check_input_dim = _target._check_input_dim
    if hasattr(_target, "_batched_dims"):
        _cls._batched_dims = _target._batched_dims

# torch defines these in batchnorm.py and instancenorm.py: make them reachable there too
from . import batchnorm as _batchnorm
from . import instancenorm as _instancenorm

for _cls in (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d):
    setattr(_batchnorm, _cls.__name__, _cls)
for _cls in (LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d):
    setattr(_instancenorm, _cls.__name__, _cls)
