"""Exponential families: densities ``p(x) = h(x) exp(<theta, t(x)> - F(theta))``."""

import numtorch as torch

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base of exponential-family distributions.

    A subclass provides ``_natural_params`` (the tuple ``theta``), ``_log_normalizer(*theta)``
    (``F``) and ``_mean_carrier_measure`` (``E[log h(x)]``). From these the entropy and the KL
    divergence between two members of one family follow generically, through autograd: the
    gradient of ``F`` is the mean of the sufficient statistic ``t(x)``.
    """

    @property
    def _natural_params(self):
        """The natural parameters ``theta``, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """The log normalizer ``F(theta)``."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """``E[log h(x)]`` under the distribution."""
        raise NotImplementedError

    def entropy(self):
        """The entropy ``F(theta) - <theta, grad F(theta)> - E[log h(x)]``, with ``grad F``
        from autograd (differentiable again, so the result has gradients too)."""
        out = -self._mean_carrier_measure
        thetas = [p.detach().requires_grad_() for p in self._natural_params]
        lognorm = self._log_normalizer(*thetas)
        grads = torch.autograd.grad(lognorm.sum(), thetas, create_graph=True)
        out = out + lognorm
        for theta, g in zip(thetas, grads):
            out = out - (theta * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return out
