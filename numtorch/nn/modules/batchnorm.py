"""nn modules: batchnorm (torch's file of the same name; forward passes call nn.functional)."""

from ... import _creation, _from_data
from ..._dtype import int64
from .. import functional as F
from . import _functions
from .module import Module
from .normalization import _affine_parameters, _reset_affine

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _NormBase(Module):
    """Shared state of batch and instance norm: affine parameters and running statistics."""

    _version = 2  # version 2 added num_batches_tracked (older state dicts lack it)
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine_parameters(self, affine, bias, num_features, factory)
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, **factory))
            self.register_buffer("running_var", _creation.ones(num_features, **factory))
            self.register_buffer("num_batches_tracked",
                                 _from_data.tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Reset the running mean to 0, the running variance to 1 and the batch count to 0."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Reset the running statistics, the weight to 1 and the bias to 0."""
        self.reset_running_stats()
        _reset_affine(self, self.affine)

    def _check_input_dim(self, input):
        raise NotImplementedError(f"{type(self).__name__} must define _check_input_dim")

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats \
                and key not in state_dict:
            # checkpoints from before version 2 have no batch count: start it at 0
            state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                               else _from_data.tensor(0, dtype=int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    """Batch norm over dim 1 with running statistics (see ``BatchNorm1d``)."""

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average over all batches so far
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        # buffers are only passed where they are used or updated
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                            self.running_var if track else None, self.weight, self.bias,
                            use_batch, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization over a 2-D ``(N, C)`` or 3-D ``(N, C, L)`` input.

    .. math:: y = \\frac{x - \\mathrm{E}[x]}{\\sqrt{\\mathrm{Var}[x] + \\epsilon}}
              * \\gamma + \\beta

    In training the batch statistics of each channel are used and the running estimates
    updated (unbiased variance); in eval mode the running estimates are used.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float or None): weight of each new batch in the running estimates; None
            keeps a cumulative average. Default: 0.1.
        affine (bool): learn a per-channel ``weight`` and ``bias``. Default: True.
        track_running_stats (bool): keep running estimates. Default: True.
        bias (bool, keyword): with ``affine``, also learn the bias. Default: True.

    Shape:
        - Input: ``(N, C)`` or ``(N, C, L)``. Output: same shape.

    Example:
        >>> m = torch.nn.BatchNorm1d(3)
        >>> m(torch.randn(4, 3)).shape
        torch.Size([4, 3])
    """

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization over a 4-D ``(N, C, H, W)`` input (see ``BatchNorm1d``).

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float or None): weight of each new batch in the running estimates; None
            keeps a cumulative average. Default: 0.1.
        affine (bool): learn a per-channel ``weight`` and ``bias``. Default: True.
        track_running_stats (bool): keep running estimates. Default: True.

    Shape:
        - Input: ``(N, C, H, W)``. Output: same shape.

    Example:
        >>> m = torch.nn.BatchNorm2d(3)
        >>> m(torch.randn(2, 3, 4, 4)).shape
        torch.Size([2, 3, 4, 4])
    """

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization over a 5-D ``(N, C, D, H, W)`` input (see ``BatchNorm1d``).

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float or None): weight of each new batch in the running estimates; None
            keeps a cumulative average. Default: 0.1.
        affine (bool): learn a per-channel ``weight`` and ``bias``. Default: True.
        track_running_stats (bool): keep running estimates. Default: True.

    Shape:
        - Input: ``(N, C, D, H, W)``. Output: same shape.

    Example:
        >>> m = torch.nn.BatchNorm3d(3)
        >>> m(torch.randn(2, 3, 2, 2, 2)).shape
        torch.Size([2, 3, 2, 2, 2])
    """

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch normalization with statistics over the whole batch of every process.

    In training, with ``numtorch.distributed`` initialised and more than one rank in
    ``process_group``, the mean and variance are those of the batches of all ranks together
    (and the input gradient is reduced across them too), so N ranks with B samples each
    normalise exactly as one process with N*B samples would. Otherwise (one process, eval
    mode) it is batch norm over every dim but 1, for inputs of any rank >= 2.

    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float or None): weight of each new batch in the running estimates.
            Default: 0.1.
        affine (bool): learn a per-channel ``weight`` and ``bias``. Default: True.
        track_running_stats (bool): keep running estimates. Default: True.
        process_group (optional): the group to synchronise over (default: all ranks).

    Example:
        >>> m = torch.nn.SyncBatchNorm(3)
        >>> m(torch.randn(4, 3, 2)).shape
        torch.Size([4, 3, 2])

    Note:
        torch synchronises only CUDA inputs and raises for CPU ones; numtorch synchronises
        CPU (and CUDA) inputs alike.
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        if input.dim() >= 2 and input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        group = _functions.sync_group(self)
        if group is None:
            return super().forward(input)
        self._check_input_dim(input)
        return _functions.sync_batch_norm(self, input, group)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replace every ``BatchNorm*d`` in ``module`` (or ``module`` itself) by a
        ``SyncBatchNorm`` sharing its parameters and buffers.

        Args:
            module (Module): the module (tree) to convert.
            process_group (optional): stored on the new layers.

        Returns:
            Module: ``module`` with converted children, or the new layer.

        Example:
            >>> net = torch.nn.Sequential(torch.nn.BatchNorm1d(3))
            >>> type(torch.nn.SyncBatchNorm.convert_sync_batchnorm(net)[0]).__name__
            'SyncBatchNorm'
        """
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                module.affine, module.track_running_stats, process_group,
                                bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
