"""The von Mises distribution on the circle."""

import math

import numpy as np

import numtorch as torch

from . import constraints
from ._bessel import i1_over_i0, log_i0
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _best_fisher(kappa):
    """von Mises(0, kappa) angles, one per element of ``kappa`` (float64 NumPy array), by Best
    and Fisher's (1979) wrapped-Cauchy rejection sampler in torch's draw order: every round
    draws three float64 uniforms for every element (accepted ones too) and an element keeps
    the candidate of the last round that accepted it; rounds go on until all have one."""
    tau = 1 + np.sqrt(1 + 4 * kappa ** 2)
    rho = (tau - np.sqrt(2 * tau)) / (2 * kappa)
    # the expression above cancels catastrophically for tiny kappa; its limit is 1/k + k
    r = np.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
    out = np.zeros(kappa.shape)
    done = np.zeros(kappa.shape, dtype=bool)
    while not done.all():
        u1, u2, u3 = torch.rand((3,) + kappa.shape, dtype=torch.float64).numpy()
        z = np.cos(math.pi * u1)
        f = (1 + r * z) / (r + z)
        c = kappa * (r - f)
        with np.errstate(divide="ignore", invalid="ignore"):
            accept = (c * (2 - c) - u2 > 0) | (np.log(c / u2) + 1 - c >= 0)
        out = np.where(accept, np.sign(u3 - 0.5) * np.arccos(f), out)
        done |= accept
    return out


class VonMises(Distribution):
    """The von Mises (circular normal) distribution of an angle: density
    ``exp(concentration * cos(x - loc)) / (2 pi I0(concentration))``.

    Args:
        loc (Tensor): the mean angle, in radians.
        concentration (Tensor): the concentration kappa (positive).
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, torch.Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        out = self.concentration * torch.cos(value - self.loc)
        return out - math.log(2 * math.pi) - log_i0(self.concentration)

    @lazy_property
    def _loc(self):
        return self.loc.to(torch.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(torch.double)

    def sample(self, sample_shape=torch.Size()):
        """Draw samples (rejection sampling; not reparameterised)."""
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            kappa = self._concentration.detach().expand(shape).cpu().numpy()
            theta = _best_fisher(np.array(kappa, dtype=np.float64))
            theta = torch.from_numpy(theta).to(device=self.loc.device)
            out = (theta + math.pi + self._loc.detach()) % (2 * math.pi) - math.pi
            return out.to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(VonMises, _instance)
        batch_shape = torch.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(VonMises, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """The circular mean (``loc``)."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance ``1 - I1(k) / I0(k)``."""
        return 1 - i1_over_i0(self.concentration)
