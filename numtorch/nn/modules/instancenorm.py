"""nn modules: instancenorm (torch's file of the same name; forward passes call nn.functional)."""

import warnings

from .. import functional as F
from .batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    """Instance norm: per-sample, per-channel statistics over the spatial dims."""

    _batched_dims = 0  # set by the subclasses: the rank of a batched input

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)

    def _check_input_dim(self, input):
        nd = self._batched_dims
        if input.dim() not in (nd - 1, nd):
            raise ValueError(f"expected {nd - 1}D or {nd}D input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None and not self.track_running_stats:
            # checkpoints from before 0.4 stored running stats that these layers no longer
            # keep: report them, then drop them so loading can go on
            keys = [prefix + n for n in ("running_mean", "running_var")
                    if prefix + n in state_dict]
            if keys:
                name = type(self).__name__
                names = " and ".join(f'"{k}"' for k in keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {name} with "
                    f"track_running_stats=False. If state_dict is a checkpoint saved before "
                    f"0.4.0, this may be expected because {name} does not track running stats "
                    f"by default since 0.4.0. Please remove these keys from state_dict. If the "
                    f"running stats are actually needed, instead set track_running_stats=True "
                    f"in {name} to enable them. See the documentation of {name} for details.")
                for k in keys:
                    state_dict.pop(k)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        unbatched = self._batched_dims - 1
        feature_dim = input.dim() - unbatched
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. "
                          "You can silence this warning by not passing in num_features, which "
                          "is not used because affine=False", stacklevel=2)
        if input.dim() == unbatched:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


_ARGS = """
    Args:
        num_features (int): the number of channels ``C``.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): weight of each new batch in the running estimates. Default: 0.1.
        affine (bool): learn a per-channel ``weight`` and ``bias``. Default: False.
        track_running_stats (bool): keep running estimates, used in eval mode.
            Default: False.
"""


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of a ``(N, C, L)`` or unbatched ``(C, L)`` input.

    Each channel of each sample is standardised over ``L``.
    {args}
    Example:
        >>> torch.nn.InstanceNorm1d(3)(torch.randn(2, 3, 5)).shape
        torch.Size([2, 3, 5])
    """

    _batched_dims = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of a ``(N, C, H, W)`` or unbatched ``(C, H, W)`` input.
    {args}
    Example:
        >>> torch.nn.InstanceNorm2d(3)(torch.randn(2, 3, 4, 4)).shape
        torch.Size([2, 3, 4, 4])
    """

    _batched_dims = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of a ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)`` input.
    {args}
    Example:
        >>> torch.nn.InstanceNorm3d(3)(torch.randn(2, 3, 2, 2, 2)).shape
        torch.Size([2, 3, 2, 2, 2])
    """

    _batched_dims = 5


for _cls in (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d):
    _cls.__doc__ = _cls.__doc__.format(args=_ARGS)
