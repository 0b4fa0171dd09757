"""The LKJ distribution over Cholesky factors of correlation matrices."""

import math

import numtorch as torch

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution (Lewandowski, Kurowicka and Joe, 2009) for lower Cholesky factors
    ``L`` of ``dim x dim`` correlation matrices: ``L L^T`` has density proportional to
    ``det(L L^T)^(concentration - 1)``. Samples come from the onion method.

    Note:
        torch 2.13 draws row ``k >= 2`` with ``Beta(k - 1/2, .)`` instead of the onion
        method's ``Beta(k/2, .)``, so its samples do not follow its own ``log_prob`` for
        ``dim >= 3`` (the correlations are not exchangeable); numtorch samples the LKJ law.

    Example:
        >>> LKJCholesky(3, 0.5).sample().shape
        torch.Size([3, 3])

    Args:
        dim (int): the matrix size (at least 2).
        concentration (float or Tensor): the shape parameter eta (positive).
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = torch.Size((dim, dim))
        # onion method: row k > 0 of the factor has off-diagonal squared length
        # y_k ~ Beta(k/2, eta + (dim - 1 - k)/2) (row 0 draws a dummy Beta(1/2, .))
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = torch.arange(self.dim - 1, dtype=self.concentration.dtype,
                              device=self.concentration.device)
        offset = torch.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = torch.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            z = torch.randn(self._extended_shape(sample_shape), dtype=y.dtype,
                            device=y.device).tril(-1)
            norms = z.norm(dim=-1, keepdim=True)
            # row 0 has no off-diagonal part: its direction is zero, not 0/0
            direction = z / norms.masked_fill(norms == 0, 1.0)
            w = torch.sqrt(y) * direction
            tiny = torch.finfo(w.dtype).tiny
            diag = torch.clamp(1 - torch.sum(w ** 2, dim=-1), min=tiny).sqrt()
            return w + torch.diag_embed(diag)

    def log_prob(self, value):
        # density of L: prod_{i>=1} L_ii^(dim - i - 1 + 2 (eta - 1)) (rows counted from 0),
        # normalised as in Lewandowski et al., eq. 16, via the multivariate gamma function
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torch.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = torch.sum(order * diag.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = torch.lgamma(alpha) * dm1
        numerator = torch.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized - (pi_constant + numerator - denominator)
