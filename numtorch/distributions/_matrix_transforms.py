"""Transforms acting on whole vectors or matrices (softmax, stick-breaking, Cholesky factors)
and the ones combining other transforms slice by slice (``CatTransform``, ``StackTransform``).
Imported into :mod:`numtorch.distributions.transforms`, which is their public home."""

import math

import numtorch as torch
import numtorch.nn.functional as F

from . import constraints
from ._scalar_transforms import _clipped_sigmoid
from .transforms import Transform
from .utils import _sum_rightmost, tril_matrix_to_vec, vec_to_tril_matrix


def _need_dims(shape, n):
    if len(shape) < n:
        raise ValueError("Too few dimensions on input")


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last dimension. Not injective (adding a constant to ``x``
    changes nothing); the inverse returns ``log y``."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    def _call(self, x):
        e = (x - x.max(-1, True)[0]).exp()
        return e / e.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        return shape

    def inverse_shape(self, shape):
        _need_dims(shape, 1)
        return shape


def _stick_offsets(n, like):
    """``log(n), log(n - 1), ..., log(1)``: shifts that make ``x = 0`` map to the uniform
    point of the simplex."""
    return (n + 1 - like.new_ones(n).cumsum(-1)).log()


class StickBreakingTransform(Transform):
    """Map ``R^n`` onto the ``(n + 1)``-simplex by breaking a unit stick: piece ``i`` takes
    the fraction ``sigmoid(x_i - log(n - i))`` of what is left, the last piece the rest."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        z = _clipped_sigmoid(x - _stick_offsets(x.shape[-1], x))
        left = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(left, [1, 0], value=1)

    def _inverse(self, y):
        head = y[..., :-1]
        rest = torch.clamp(1 - head.cumsum(-1), min=torch.finfo(y.dtype).tiny)
        return head.log() - rest.log() + _stick_offsets(head.shape[-1], y)

    def log_abs_det_jacobian(self, x, y):
        # dy_i/dx_i = y_i (1 - z_i), and log(1 - sigmoid(t)) = logsigmoid(t) - t
        t = x - _stick_offsets(x.shape[-1], x)
        return (-t + F.logsigmoid(t) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _need_dims(shape, 1)
        return shape[:-1] + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Make a lower-triangular matrix with a positive diagonal from any square matrix: keep
    the strict lower triangle and exponentiate the diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Make a positive-definite matrix ``L L^T`` from any square matrix, ``L`` being its
    :class:`LowerCholeskyTransform`."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(torch.linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    """Map ``D(D-1)/2`` unconstrained reals to the Cholesky factor of a ``D x D`` correlation
    matrix: ``tanh`` gives partial correlations in (-1, 1) that fill the strict lower triangle
    row by row, and each row is then scaled (stick-breaking on squared norms) to unit length."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = torch.finfo(x.dtype).eps
        z = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # entry (i, j) is z_ij times the length left in row i after columns < j
        left = (1 - z * z).sqrt().cumprod(-1)
        eye = torch.eye(z.shape[-1], dtype=z.dtype, device=z.device)
        return (z + eye) * F.pad(left[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        left = F.pad((1 - (y * y).cumsum(-1))[..., :-1], [1, 0], value=1)
        z = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return 0.5 * (z.log1p() - (-z).log1p())

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # dy_ij/dz_ij is the row length left before column j; dz/dx = 1 - tanh(x)^2
        left = 1 - (y * y).cumsum(-1)
        scale = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = 2 * (math.log(2.0) - x - F.softplus(-2.0 * x)).sum(-1)
        return scale + tanh

    def forward_shape(self, shape):
        _need_dims(shape, 1)
        n = shape[-1]
        d = int(round((0.25 + 2 * n) ** 0.5 + 0.5))
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        _need_dims(shape, 2)
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


def _check_transforms(tseq):
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")


def _check_dim(dim, x):
    if not -x.dim() <= dim < x.dim():
        raise AssertionError(f"dim {dim} out of range for tensor with {x.dim()} dimensions")


class CatTransform(Transform):
    """Apply ``tseq[i]`` to the ``i``-th slice (of ``lengths[i]`` entries, one by default) of
    the input along ``dim`` and concatenate the results."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        _check_transforms(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        if lengths is None:
            lengths = [1] * len(self.transforms)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, x):
        _check_dim(self.dim, x)
        if x.size(self.dim) != self.length:
            raise AssertionError(f"x.size({self.dim}) = {x.size(self.dim)} must equal length "
                                 f"{self.length}")
        start = 0
        for t, n in zip(self.transforms, self.lengths):
            yield t, start, n
            start += n

    def _call(self, x):
        return torch.cat([t(x.narrow(self.dim, s, n)) for t, s, n in self._slices(x)],
                         dim=self.dim)

    def _inverse(self, y):
        return torch.cat([t.inv(y.narrow(self.dim, s, n)) for t, s, n in self._slices(y)],
                         dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = []
        for t, s, n in self._slices(x):
            term = t.log_abs_det_jacobian(x.narrow(self.dim, s, n), y.narrow(self.dim, s, n))
            if t.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - t.event_dim)
            terms.append(term)
        # slices along a batch dimension stay apart; along an event dimension they add up
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim += self.event_dim
        if dim < 0:
            return torch.cat(terms, dim=dim)
        return sum(terms)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Apply ``tseq[i]`` to the ``i``-th entry of the input along ``dim`` and stack the
    results."""

    def __init__(self, tseq, dim=0, cache_size=0):
        _check_transforms(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _entries(self, x):
        _check_dim(self.dim, x)
        if x.size(self.dim) != len(self.transforms):
            raise AssertionError(f"x.size({self.dim}) = {x.size(self.dim)} must equal "
                                 f"len(transforms) {len(self.transforms)}")
        return x.unbind(self.dim)

    def _call(self, x):
        return torch.stack([t(v) for v, t in zip(self._entries(x), self.transforms)],
                           dim=self.dim)

    def _inverse(self, y):
        return torch.stack([t.inv(v) for v, t in zip(self._entries(y), self.transforms)],
                           dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        xs, ys = self._entries(x), self._entries(y)
        return torch.stack([t.log_abs_det_jacobian(a, b)
                            for t, a, b in zip(self.transforms, xs, ys)], dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """y = F(x), the CDF of a univariate ``distribution``: maps its support onto [0, 1]; the
    log-Jacobian is the distribution's log-density."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)
