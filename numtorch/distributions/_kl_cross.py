"""KL divergences between different families (the mixed pairs torch registers). Pairs whose
``p`` puts mass where ``q`` has none are infinite."""

import math

import numtorch as torch

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import _infinite_like, _x_log_x, register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform
from .utils import euler_constant as _EULER

_LOG_2PI = math.log(2 * math.pi)


def _infinite(param):
    """A KL function returning +inf shaped like ``p.<param>``."""
    def kl(p, q):
        return _infinite_like(getattr(p, param))
    return kl


_INFINITE = {
    "concentration1": [(Beta, Pareto)],
    "probs": [(ContinuousBernoulli, Pareto)],
    "rate": [(Exponential, Beta), (Exponential, ContinuousBernoulli), (Exponential, Pareto),
             (Exponential, Uniform), (Poisson, Bernoulli), (Poisson, Binomial)],
    "concentration": [(Gamma, Beta), (Gamma, ContinuousBernoulli), (Gamma, Pareto),
                      (Gamma, Uniform)],
    "loc": [(Gumbel, Beta), (Gumbel, ContinuousBernoulli), (Gumbel, Exponential),
            (Gumbel, Gamma), (Gumbel, Pareto), (Gumbel, Uniform),
            (Laplace, Beta), (Laplace, ContinuousBernoulli), (Laplace, Exponential),
            (Laplace, Gamma), (Laplace, Pareto), (Laplace, Uniform),
            (Normal, Beta), (Normal, ContinuousBernoulli), (Normal, Exponential),
            (Normal, Gamma), (Normal, Pareto), (Normal, Uniform)],
    "scale": [(Pareto, Beta), (Pareto, ContinuousBernoulli), (Pareto, Uniform)],
}
for _param, _pairs in _INFINITE.items():
    for _p, _q in _pairs:
        register_kl(_p, _q)(_infinite(_param))


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return (-p.entropy() - p.mean * q.logits - torch.log1p(-q.probs)
            - q._cont_bern_log_norm())


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    return -p.entropy() - q.rate.log() + q.rate * mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    a, b = p.concentration1, p.concentration0
    e_log_x = a.digamma() - (a + b).digamma()
    return (-p.entropy() + q.concentration.lgamma() - q.concentration * q.rate.log()
            - (q.concentration - 1) * e_log_x + q.rate * a / (a + b))


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    a, b = p.concentration1, p.concentration0
    mean = a / (a + b)
    var_q = q.scale.pow(2)
    second_moment_half = (mean * (1 - mean) / (a + b + 1) + mean.pow(2)) * 0.5
    return (-p.entropy() + 0.5 * (var_q * 2 * math.pi).log()
            + (second_moment_half - q.loc * mean + q.loc.pow(2) * 0.5) / var_q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    out = -p.entropy() + (q.high - q.low).log()
    outside = (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)
    return out.masked_fill(outside, math.inf)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - torch.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    cross = 0.5 * (_LOG_2PI + torch.square(q.loc / q.scale)) + torch.log(q.scale)
    moments = (p.variance + torch.square(p.mean) - 2 * q.loc * p.mean) / (2 * torch.square(
        q.scale))
    return -p.entropy() + cross + moments


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    out = -p.entropy() + (q.high - q.low).log()
    # torch marks a uniform reaching either end of [0, 1] (inclusive) as infinite
    flag = torch.max(torch.ge(q.low, p.support.lower_bound),
                     torch.le(q.high, p.support.upper_bound))
    return torch.where(flag, torch.ones_like(out) * math.inf, out)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    c = q.concentration
    return -c * torch.log(ratio) + ratio + c.lgamma() + c * _EULER - (1 + _EULER)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    prod = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    return (prod.log() - 1 - loc_ratio + torch.exp(loc_ratio) * prod / (prod + 1)
            + prod.reciprocal())


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_q = q.scale.pow(2)
    rate_sq = p.rate.pow(2)
    return (0.5 * torch.log(rate_sq * var_q * 2 * math.pi) - 1
            + (rate_sq.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / var_q)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration / p.rate)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    c = p.concentration
    prod = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    neg_entropy_part = (c - 1) * c.digamma() - c.lgamma() - c
    return (neg_entropy_part + prod.log() + c / prod
            + torch.exp(loc_ratio) * (1 + prod.reciprocal()).pow(-c) - loc_ratio)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    c = p.concentration
    var_q = q.scale.pow(2)
    rate_sq = p.rate.pow(2)
    head = 0.5 * torch.log(rate_sq * var_q * 2 * math.pi) - c - c.lgamma()
    moments = 0.5 * (c.pow(2) + c) / rate_sq - q.loc * c / p.rate + 0.5 * q.loc.pow(2)
    return head + (c - 1) * c.digamma() + moments / var_q


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    ratio = p.scale / q.scale
    return (-(ratio / math.sqrt(2 * math.pi)).log() + (math.pi * ratio * 0.5).pow(2) / 3
            + ((p.loc + p.scale * _EULER - q.loc) / q.scale).pow(2) * 0.5 - (_EULER + 1))


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_q = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_q
    return (-0.5 * torch.log(2 * ratio / math.pi) + ratio
            + (0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)) / var_q - 1)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_ratio = p.loc / q.scale
    var_ratio = (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    return (-var_ratio.log() * 0.5 + mean_ratio - loc_ratio
            + torch.exp(-mean_ratio + 0.5 * var_ratio + loc_ratio) - 0.5 * (1 + _LOG_2PI))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    diff = p.loc - q.loc
    z = diff / p.scale
    # E|x - q.loc| for x ~ N(p.loc, p.scale^2) is the folded normal mean
    folded = math.sqrt(2 / math.pi) * p.scale * torch.exp(-0.5 * z.pow(2)) + diff * torch.erf(
        math.sqrt(0.5) * z)
    return (-torch.log(p.scale / q.scale) + folded / q.scale
            - 0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    prod = p.scale * q.rate
    out = ((p.alpha / prod).log() - p.alpha.reciprocal() + p.alpha * prod / (p.alpha - 1) - 1)
    return out.masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    common = p.scale.log() + p.alpha.reciprocal()
    c = q.concentration
    out = (p.alpha.log() - common + c.lgamma() - c * q.rate.log() + (1 - c) * common
           + q.rate * p.alpha * p.scale / (p.alpha - 1) - 1)
    return out.masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    two_var = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    out = ((math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log() - p.alpha.reciprocal()
           + (p.alpha * common.pow(2) / (p.alpha - 2)
              + (p.alpha * common - q.loc).pow(2)) / two_var - 1)
    return out.masked_fill(p.alpha <= 2, math.inf)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    a, b = q.concentration1, q.concentration0
    e_log_x = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    e_log_1mx = (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    out = ((b - 1) * e_log_1mx + a.lgamma() + b.lgamma() - (a + b).lgamma()
           - torch.log(width) - (a - 1) * e_log_x)
    outside = (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)
    return out.masked_fill(outside, math.inf)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    out = (-p.entropy() - p.mean * q.logits - torch.log1p(-q.probs)
           - q._cont_bern_log_norm())
    flag = torch.max(torch.ge(p.high, q.support.upper_bound),
                     torch.le(p.low, q.support.lower_bound))
    return torch.where(flag, torch.ones_like(out) * math.inf, out)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    out = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return out.masked_fill(p.low < q.support.lower_bound, math.inf)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    c = q.concentration
    e_log_x = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    out = (-width.log() + c.lgamma() - c * q.rate.log() + (1 - c) * e_log_x
           + q.rate * (p.high + p.low) / 2)
    return out.masked_fill(p.low < q.support.lower_bound, math.inf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    ratio = q.scale / (p.high - p.low)
    hi = (p.high - q.loc) / q.scale
    lo = (p.low - q.loc) / q.scale
    return ratio.log() + 0.5 * (hi + lo) - ratio * (torch.exp(-hi) - torch.exp(-lo))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    return ((math.sqrt(math.pi * 2) * q.scale / width).log()
            + 0.5 * (width.pow(2) / 12 + ((p.high + p.low - 2 * q.loc) / 2).pow(2))
            / q.scale.pow(2))


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    log_norm = (q.alpha * q.scale.pow(q.alpha) * width).log()
    e_log_x = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    out = e_log_x * (q.alpha + 1) - log_norm
    return out.masked_fill(p.low < q.support.lower_bound, math.inf)
