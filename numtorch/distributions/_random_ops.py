"""Private ops the distributions need and numtorch's op set lacks: gamma, Dirichlet and
binomial sampling (the first two with implicit reparameterisation gradients, as torch's
``_standard_gamma`` and ``_sample_dirichlet``) and the regularized incomplete gamma function.

Draws come from numtorch's default generator, on the CPU (copied to the parameter's device),
like the other sampling functions. Values and gradients are computed in float64 and cast back.
"""

import numpy as np

from .._random import rng_for
from .._tensor import _make
from ..autograd.graph import Op
from ..backend import helpers_for, xp_of
from . import _gamma_math


def _host64(a):
    a = a if type(a) is np.ndarray else a.get()
    return np.asarray(a, dtype=np.float64)


def _on(xp, arr, dtype):
    return xp.asarray(arr).astype(dtype, copy=False)


class _NoSecondDerivative(Op):
    """A gradient factor torch does not differentiate further: using it in a second backward
    raises torch's NotImplementedError."""

    what = ""

    def backward(self, grad):
        raise NotImplementedError(f"the derivative for '{self.what}' is not implemented.")


class _GammaSampleGrad(_NoSecondDerivative):
    """dx/dalpha of a standard gamma sample x (implicit reparameterisation)."""

    what = "_standard_gamma_grad"

    def forward(self, alpha, x):
        h = helpers_for(np)  # these compute on the host (float64 NumPy)
        return _on(self.xp, _gamma_math.standard_gamma_grad(np, h, _host64(alpha), _host64(x)),
                   x.dtype)


class StandardGamma(Op):
    """x ~ Gamma(alpha, 1), one draw per element of alpha (kept at least the dtype's smallest
    normal number, so ``log x`` stays finite); dx/dalpha by implicit differentiation of the
    CDF: ``-(dF/dalpha) / pdf``."""

    def forward(self, alpha):
        draw = self.rng.standard_gamma(_host64(alpha))
        draw = np.maximum(draw, np.finfo(alpha.dtype).tiny)
        self.save_inputs(alpha)
        return self.save_output(_on(self.xp, draw, alpha.dtype))

    def backward(self, grad):
        # joined to the graph, so a second derivative reaches the factor (and raises there)
        return grad * _GammaSampleGrad.apply(self.saved_inputs(), self.saved_output())


def standard_gamma(alpha, generator=None):
    """Samples of Gamma(alpha, 1) of ``alpha``'s shape, reparameterised."""
    return StandardGamma.apply(alpha, rng=rng_for(generator))


def standard_gamma_grad(alpha, x):
    """The gradient dx/dalpha at standard gamma samples ``x`` (torch's
    ``_standard_gamma_grad``)."""
    return _GammaSampleGrad.apply(alpha, x)


class _DirichletSampleGrad(_NoSecondDerivative):
    """The per-component factor of the Dirichlet reparameterisation gradient: for the
    marginal ``x_i ~ Beta(alpha_i, total - alpha_i)``, ``dx_i/dalpha_i`` (other parameter
    fixed) divided by ``1 - x_i``."""

    what = "_dirichlet_grad"

    def forward(self, x, alpha, total):
        h = helpers_for(np)  # these compute on the host (float64 NumPy)
        x64, a64, t64 = _host64(x), _host64(alpha), _host64(total)
        g = _gamma_math.beta_grad(np, h, x64, a64, t64 - a64) / (1.0 - x64)
        return _on(self.xp, g, x.dtype)


def dirichlet_grad(x, alpha, total):
    """torch's ``_dirichlet_grad``: see :class:`_DirichletSampleGrad`."""
    return _DirichletSampleGrad.apply(x, alpha, total)


class SampleDirichlet(Op):
    """x ~ Dirichlet(alpha) over the last dimension (normalised gamma draws). A unit change
    of alpha_i moves component j by ``g_i (delta_ij - x_j)``, ``g`` being the marginal-beta
    factor of :class:`_DirichletSampleGrad` (the pathwise gradient of Jankowiak and
    Obermeyer, 2018, which torch uses)."""

    def forward(self, alpha):
        g = self.rng.standard_gamma(_host64(alpha))
        g = np.maximum(g, np.finfo(np.float64).tiny)
        x = g / g.sum(-1, keepdims=True)
        info = np.finfo(alpha.dtype)
        x = np.clip(x, info.tiny, 1 - info.eps)
        self.save_inputs(alpha)
        return self.save_output(_on(self.xp, x, alpha.dtype))

    def backward(self, grad):
        x = self.saved_output()
        alpha = self.saved_inputs()
        factor = dirichlet_grad(x, alpha, alpha.sum(-1, keepdim=True))
        return factor * (grad - (x * grad).sum(-1, keepdim=True))


def sample_dirichlet(alpha, generator=None):
    """Reparameterised Dirichlet samples with concentrations ``alpha`` (last dimension)."""
    return SampleDirichlet.apply(alpha, rng=rng_for(generator))


def binomial(count, prob, generator=None):
    """Binomial(count, prob) draws of the broadcast shape, in ``count``'s dtype (no
    gradient)."""
    rng = rng_for(generator)
    n = _host64(count._array)
    p = _host64(prob._array)
    n, p = np.broadcast_arrays(n, p)
    if hasattr(type(rng), "_per_value"):  # torch's stream: torch's sampler and edge rules
        return _make(_on(xp_of(count._array), rng.binomial(n, p), count._array.dtype))
    bad = ~np.isfinite(p) | (p < 0) | (p > 1)
    # np.asarray: NumPy hands back a Python int for 0-d parameters
    draw = np.asarray(rng.binomial(n.astype(np.int64), np.where(bad, 0.5, p)), np.float64)
    draw = np.where(bad, np.nan, draw)
    return _make(_on(xp_of(count._array), draw, count._array.dtype))


class Gammainc(Op):
    """y = P(a, x), the regularized lower incomplete gamma function; dy/dx is the gamma
    density. dy/da is refused with torch's error (torch has no derivative of ``igamma`` with
    respect to its first argument, so ``Gamma(a, r).cdf(x)`` gives none to ``a``)."""

    promote = "float"

    def forward(self, a, x):
        self.save_inputs(a, x)
        p, _ = _gamma_math.igamma_pq(np, helpers_for(np), _host64(a), _host64(x))
        return _on(self.xp, p, np.result_type(a.dtype, x.dtype))

    def backward(self, grad):
        from ..ops import exp, lgamma, where, xlogy

        a, x = self.saved_inputs()
        ga = gx = None
        if self.needs_input_grad[1]:
            pdf = exp(xlogy(a - 1, x) - x - lgamma(a))
            gx = grad * where(x > 0, pdf, 0.0 * pdf)
        if self.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")
        return ga, gx


def gammainc(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    return Gammainc.apply(a, x)
