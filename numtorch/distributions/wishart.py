"""The Wishart distribution."""

import math
import warnings
from numbers import Number

import numtorch as torch

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import _broadcast_shape, lazy_property, vec_to_tril_matrix

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function: ``sum_{i<p} digamma(x - i/2)``."""
    steps = torch.arange(p, dtype=x.dtype, device=x.device).div(2)
    return torch.digamma(x.unsqueeze(-1) - steps.expand(x.shape + (-1,))).sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution over positive-definite ``p x p`` matrices: the scatter
    matrix of ``df`` draws of a zero-mean normal with the given covariance (given as exactly
    one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``). ``rsample`` uses
    the Bartlett decomposition and redraws singular samples.

    Example:
        >>> Wishart(torch.tensor([2.0]), covariance_matrix=torch.eye(2)).sample().shape
        torch.Size([1, 2, 2])

    Args:
        df (float or Tensor): degrees of freedom, greater than ``p - 1``.
        covariance_matrix (Tensor): the scale matrix.
        precision_matrix (Tensor): its inverse.
        scale_tril (Tensor): its lower Cholesky factor.
    """

    arg_constraints = {"covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky,
                       "df": constraints.greater_than(0)}
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = next(m for m in (covariance_matrix, precision_matrix, scale_tril)
                     if m is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, Number):
            batch_shape = torch.Size(param.shape[:-2])
            self.df = torch.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = _broadcast_shape(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))
        self.arg_constraints = dict(type(self).arg_constraints,
                                    df=constraints.greater_than(p - 1))
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._make_chi2()

    def _make_chi2(self):
        # Bartlett: the i-th diagonal entry of the factor is sqrt(chi2(df - i))
        p = self._event_shape[-1]
        steps = torch.arange(p, dtype=self._unbroadcasted_scale_tril.dtype,
                             device=self._unbroadcasted_scale_tril.device)
        self._dist_chi2 = Chi2(df=self.df.unsqueeze(-1) - steps.expand(self._batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = torch.Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        if "arg_constraints" in self.__dict__:
            new.arg_constraints = self.arg_constraints
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._make_chi2()
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        eye = torch.eye(self._event_shape[-1], device=self._unbroadcasted_scale_tril.device,
                        dtype=self._unbroadcasted_scale_tril.dtype)
        return torch.cholesky_solve(eye, self._unbroadcasted_scale_tril).expand(
            self._matrix_shape())

    def _df_matrix(self):
        return self.df.view(self._batch_shape + torch.Size((1, 1)))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = factor.masked_fill(factor <= 0, math.nan)
        return factor.view(self._batch_shape + torch.Size((1, 1))) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=torch.Size()):
        p = self._event_shape[-1]
        eps = torch.finfo(self.df.dtype).eps
        diag = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=eps)
        below = torch.randn(torch.Size(sample_shape) + self._batch_shape + (p * (p - 1) // 2,),
                            dtype=diag.dtype, device=diag.device)
        noise = torch.diag_embed(diag) + vec_to_tril_matrix(below, diag=-1)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=torch.Size(), max_try_correction=None):
        """Draw samples by the Bartlett decomposition, then redraw flagged ones up to
        ``max_try_correction`` times (default 10), with a warning.

        torch 2.x flags the *valid* (positive-definite) first draws, not the singular ones,
        so it warns on every call and redraws each of them once more (a redraw is checked
        the right way round); the draws and the warning follow torch's, since programs
        seeded alike expect torch's numbers."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = torch.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        flagged = self._rows(self.support.check(sample))
        if not bool(flagged.any()):
            return sample
        warnings.warn("Singular sample detected.", stacklevel=2)
        for _ in range(max_try_correction):
            fresh = self._bartlett_sampling(flagged[flagged].shape)
            sample[flagged] = fresh
            flagged[flagged.clone()] = self._rows(~self.support.check(fresh))
            if not bool(flagged.any()):
                break
        return sample

    def _rows(self, per_matrix):
        """A per-matrix flag reduced to one per sample row (any over the batch dims)."""
        if self._batch_shape:
            per_matrix = per_matrix.amax(self._batch_dims)
        return per_matrix

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        log_det_l = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = torch.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(
            dim1=-2, dim2=-1).sum(dim=-1)
        return -(nu * (p * _LOG_2 / 2 + log_det_l) + torch.mvlgamma(nu / 2, p=p)
                 - (nu - p - 1) / 2 * torch.linalg.slogdet(value).logabsdet + trace / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        log_det_l = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + log_det_l) + torch.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        shifted = y + (p + 1) / 2
        return (shifted * (-torch.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + torch.mvlgamma(shifted, p=p))
