"""KL divergences ``KL(p || q)`` between distributions, dispatched on the pair of types.

:func:`register_kl` adds an implementation for a pair of classes; :func:`kl_divergence`
picks the most specific registered pair for the arguments' types (by their method
resolution orders, ``p`` first), warning when the choice is ambiguous. The pairs torch
registers are all here: closed forms for one family against itself in this module, mixed
pairs in ``_kl_cross``.
"""

import math
import warnings

import numtorch as torch
import numtorch.nn.functional as F

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import (
    LowRankMultivariateNormal,
    _batch_lowrank_logdet,
    _batch_lowrank_mahalanobis,
)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _broadcast_shape, _sum_rightmost
from .utils import euler_constant as _EULER

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}  # (type_p, type_q) -> function
_KL_MEMOIZE = {}  # the dispatch result for concrete (type(p), type(q))


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as ``KL(p || q)`` for these distribution classes.

    Example:
        >>> @register_kl(Normal, Normal)
        ... def kl_normal_normal(p, q):
        ...     ...

    When several registrations match a call, the one most specific in ``p``'s type wins;
    if a different one is most specific in ``q``'s type, a RuntimeWarning suggests
    registering the exact pair.

    Args:
        type_p (type): a subclass of :class:`Distribution`.
        type_q (type): a subclass of :class:`Distribution`.
    """
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


def _dispatch_kl(type_p, type_q):
    """The registered function for the most specific pair of superclasses, or
    NotImplemented."""
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY
               if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    left = min(matches, key=lambda m: (mro_p.index(m[0]), mro_q.index(m[1])))
    right = min(matches, key=lambda m: (mro_q.index(m[1]), mro_p.index(m[0])))
    left_fun, right_fun = _KL_REGISTRY[left], _KL_REGISTRY[right]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left[0].__name__}, {right[1].__name__})",
                      RuntimeWarning)
    return left_fun


def _infinite_like(tensor):
    """A tensor of ``+inf`` shaped like ``tensor``."""
    return torch.full_like(tensor, math.inf)


def _x_log_x(tensor):
    return tensor * tensor.log()


def _batch_trace_XXT(bmat):
    """``trace(X X^T)`` for each matrix of a batch: the sum of its squared entries."""
    n, m = bmat.size(-1), bmat.size(-2)
    return bmat.reshape(bmat.shape[:-2] + (n * m,)).pow(2).sum(-1)


def kl_divergence(p, q):
    """The Kullback-Leibler divergence ``KL(p || q) = E_p[log p(x) - log q(x)]``, one value
    per distribution of the (broadcast) batch.

    Args:
        p (Distribution): the first distribution.
        q (Distribution): the second distribution.

    Raises:
        NotImplementedError: when no registered pair matches the two types.
    """
    key = type(p), type(q)
    try:
        fun = _KL_MEMOIZE[key]
    except KeyError:
        fun = _KL_MEMOIZE[key] = _dispatch_kl(*key)
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fun(p, q)


# -- one family against itself -----------------------------------------------------------
@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    ones = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    ones = ones.masked_fill(q.probs == 0, math.inf).masked_fill(p.probs == 0, 0)
    zeros = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    zeros = zeros.masked_fill(q.probs == 1, math.inf).masked_fill(p.probs == 1, 0)
    return ones + zeros


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sp = p.concentration1 + p.concentration0
    sq = q.concentration1 + q.concentration0
    log_norms = (q.concentration1.lgamma() + q.concentration0.lgamma() + sp.lgamma()
                 - p.concentration1.lgamma() - p.concentration0.lgamma() - sq.lgamma())
    return (log_norms + (p.concentration1 - q.concentration1) * p.concentration1.digamma()
            + (p.concentration0 - q.concentration0) * p.concentration0.digamma()
            + (sq - sp) * sp.digamma())


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    return kl.masked_fill(p.total_count > q.total_count, math.inf)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill((q.probs == 0).expand_as(t), math.inf)
    t = t.masked_fill((p.probs == 0).expand_as(t), 0)
    return t.sum(-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    return (p.mean * (p.logits - q.logits) + p._cont_bern_log_norm() + torch.log1p(-p.probs)
            - q._cont_bern_log_norm() - torch.log1p(-q.probs))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sp = p.concentration.sum(-1)
    sq = q.concentration.sum(-1)
    log_norms = sp.lgamma() - sq.lgamma() - (p.concentration.lgamma()
                                             - q.concentration.lgamma()).sum(-1)
    diff = p.concentration - q.concentration
    return log_norms + (diff * (p.concentration.digamma()
                                - sp.digamma().unsqueeze(-1))).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # the Bregman divergence of the log normaliser F between the natural parameters
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot" + " " * 29 + "be computed using Bregman "
                                  "divergences")
    p_params = [t.detach().requires_grad_() for t in p._natural_params]
    q_params = q._natural_params
    lognorm = p._log_normalizer(*p_params)
    grads = torch.autograd.grad(lognorm.sum(), p_params, create_graph=True)
    out = q._log_normalizer(*q_params) - lognorm
    for pp, qp, g in zip(p_params, q_params, grads):
        out = out - _sum_rightmost((qp - pp) * g, len(q.event_shape))
    return out


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    return (q.concentration * torch.log(p.rate / q.rate)
            + torch.lgamma(q.concentration) - torch.lgamma(p.concentration)
            + (p.concentration - q.concentration) * torch.digamma(p.concentration)
            + (q.rate - p.rate) * (p.concentration / p.rate))


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ratio = p.scale / q.scale
    q_loc, p_loc = q.loc / q.scale, p.loc / q.scale
    return (-ratio.log() - q_loc + p_loc + ratio * _EULER
            + torch.exp(q_loc + (1 + ratio).lgamma() - p_loc) - (1 + _EULER))


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - torch.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    ratio = p.scale / q.scale
    dist = (p.loc - q.loc).abs()
    return -ratio.log() + dist / q.scale + ratio * torch.exp(-dist / p.scale) - 1


def _shapes_differ(p, q, what):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with" + " " * 26
                         + "different event shapes cannot be computed")


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    _shapes_differ(p, q, "Low Rank Multivariate Normals")
    pW, pD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    qW, qD = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    log_dets = (_batch_lowrank_logdet(qW, qD, q._capacitance_tril)
                - _batch_lowrank_logdet(pW, pD, p._capacitance_tril))
    mahal = _batch_lowrank_mahalanobis(qW, qD, q.loc - p.loc, q._capacitance_tril)
    # trace(Sigma_q^-1 Sigma_p) through Woodbury: A = L_C^-1 W_q^T D_q^-1
    A = torch.linalg.solve_triangular(q._capacitance_tril, qW.mT / qD.unsqueeze(-2),
                                      upper=False)
    trace = ((pD / qD).sum(-1) + _batch_trace_XXT(pW * qD.rsqrt().unsqueeze(-1))
             - _batch_trace_XXT(A * pD.sqrt().unsqueeze(-2)) - _batch_trace_XXT(A.matmul(pW)))
    return 0.5 * (log_dets + trace + mahal - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    _shapes_differ(p, q, "(Low Rank) Multivariate Normals")
    qW, qD = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    pL = p._unbroadcasted_scale_tril
    log_dets = (_batch_lowrank_logdet(qW, qD, q._capacitance_tril)
                - 2 * pL.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    mahal = _batch_lowrank_mahalanobis(qW, qD, q.loc - p.loc, q._capacitance_tril)
    A = torch.linalg.solve_triangular(q._capacitance_tril, qW.mT / qD.unsqueeze(-2),
                                      upper=False)
    batch = _broadcast_shape(A.shape[:-2], pL.shape[:-2])
    n = p.event_shape[0]
    qD = qD.expand(batch + (n,))
    pL = pL.expand(batch + (n, n))
    trace = _batch_trace_XXT(pL * qD.rsqrt().unsqueeze(-1)) - _batch_trace_XXT(A.matmul(pL))
    return 0.5 * (log_dets + trace + mahal - n)


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    _shapes_differ(p, q, "(Low Rank) Multivariate Normals")
    pW, pD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    qL = q._unbroadcasted_scale_tril
    log_dets = (2 * qL.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                - _batch_lowrank_logdet(pW, pD, p._capacitance_tril))
    mahal = _batch_mahalanobis(qL, q.loc - p.loc)
    batch = _broadcast_shape(qL.shape[:-2], pW.shape[:-2])
    n = p.event_shape[0]
    qL = qL.expand(batch + (n, n))
    pW = pW.expand(batch + (n, pW.size(-1)))
    pD_sqrt = torch.diag_embed(pD.sqrt()).expand(batch + (n, n))
    trace = (_batch_trace_XXT(torch.linalg.solve_triangular(qL, pW, upper=False))
             + _batch_trace_XXT(torch.linalg.solve_triangular(qL, pD_sqrt, upper=False)))
    return 0.5 * (log_dets + trace + mahal - n)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    _shapes_differ(p, q, "Multivariate Normals")
    pL, qL = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_log_dets = (qL.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                     - pL.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    batch = _broadcast_shape(qL.shape[:-2], pL.shape[:-2])
    n = p.event_shape[0]
    trace = _batch_trace_XXT(torch.linalg.solve_triangular(
        qL.expand(batch + (n, n)), pL.expand(batch + (n, n)), upper=False))
    mahal = _batch_mahalanobis(qL, q.loc - p.loc)
    return half_log_dets + 0.5 * (trace + mahal - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + shift - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    # the support of p must lie inside that of q (p.scale >= q.scale)
    alpha_ratio = q.alpha / p.alpha
    out = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return out.masked_fill(p.support.lower_bound < q.support.lower_bound, math.inf)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (torch.log(p.rate) - torch.log(q.rate)) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    out = ((q.high - q.low) / (p.high - p.low)).log()
    return out.masked_fill((q.low > p.low) | (q.high < p.high), math.inf)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    # Chyzak and Nielsen (2019), "A closed-form formula for the KL divergence between
    # Cauchy distributions"
    return (((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
            - (4 * p.scale * q.scale).log())


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


from . import _kl_cross  # noqa: E402,F401  (registers the mixed pairs)
