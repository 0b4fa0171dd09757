"""Ready-made parametrizations (torch.nn.utils.parametrizations): ``orthogonal``,
``spectral_norm`` and ``weight_norm`` in their parametrize-based form.

They compute what torch's do from the same originals and buffers, so state dicts move between
the two libraries in both directions. Where torch draws random numbers (spectral norm's
starting vectors, the completion of a non-square orthogonal base) numtorch draws its own; the
values then agree once a state dict has been loaded.
"""

from enum import Enum, auto

from ... import linalg
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .weight_norm import _norm_except_dim, _weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _eye_like(x, n):
    import numtorch

    return numtorch.eye(n, dtype=x.dtype, device=x.device)


def _is_orthogonal(q):
    """Whether the columns of ``q`` are orthonormal, to a tolerance scaled by its size."""
    import numtorch

    n, k = q.shape[-2], q.shape[-1]
    eps = 10 * n * numtorch.finfo(q.dtype).eps
    return numtorch.allclose(q.mH @ q, _eye_like(q, k), atol=eps)


def _make_orthogonal(a):
    """The Q of a QR factorisation of ``a`` whose R has a positive diagonal."""
    import numtorch

    x, tau = numtorch.geqrf(a)
    q = linalg.householder_product(x, tau)
    return q * x.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """Maps an unconstrained matrix to one with orthonormal columns (or rows, if wide)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        import numtorch

        n, k = X.shape[-2], X.shape[-1]
        wide = n < k
        if wide:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:  # pad to a square matrix: only its first k columns are returned
                pad = X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)
                X = numtorch.cat([X, pad], dim=-1)
            A = X - X.mH  # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = numtorch.matrix_exp(A)
            else:
                eye = _eye_like(A, n)
                Q = linalg.solve(eye - A * 0.5, eye + A * 0.5)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            # the diagonal of X holds the signs (+-1) of the reflections; not differentiated
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if getattr(self, "base", None) is not None:
            Q = self.base @ Q
        return Q.mT if wide else Q

    @no_grad()
    def right_inverse(self, Q):
        import numtorch

        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        wide = n < k
        if wide:
            Q = Q.mT
            n, k = k, n
        if "base" not in self._buffers:
            if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            A, tau = numtorch.geqrf(Q)
            # signs of R's diagonal on the diagonal, flipped where LAPACK skipped a reflection
            d = A.diagonal(dim1=-2, dim2=-1).sign()
            d = numtorch.where(tau == 0.0, -d, d)
            A = A.diagonal_scatter(d, 0, -2, -1)
            return A.mT if wide else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # complete the k columns to an orthogonal n x n basis
            extra = numtorch.randn(*(Q.shape[:-2] + (n, n - k)), dtype=Q.dtype,
                                   device=Q.device)
            Q = _make_orthogonal(numtorch.cat([Q, extra], dim=-1))
        self.base = Q
        # with the base holding Q, the original becomes -I: every map sends it to I
        neg_eye = numtorch.zeros_like(Q_init)
        return neg_eye.diagonal_scatter(-numtorch.ones_like(neg_eye.diagonal(0, -2, -1)),
                                        0, -2, -1)


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain ``module.<name>`` to matrices with orthonormal columns (rows when wide).

    Args:
        module (Module): the module.
        name (str): the matrix (or batch of matrices) to constrain. Default: ``"weight"``.
        orthogonal_map (str, optional): ``"matrix_exp"``, ``"cayley"`` or ``"householder"``;
            default ``matrix_exp`` for square or complex matrices, else ``householder``.
        use_trivialization (bool): keep a ``base`` buffer and parametrize relative to it
            (so assigning an orthogonal matrix works with every map). Default: True.

    Returns:
        Module: ``module``, with the parametrization registered.

    Example:
        >>> m = torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(4, 4))
        >>> bool(torch.allclose(m.weight @ m.weight.T, torch.eye(4), atol=1e-5))
        True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _SpectralNorm(Module):
    """Divides a weight by its largest singular value, estimated by power iteration (the
    vectors ``_u``/``_v`` advance by ``n_power_iterations`` steps per training forward)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._reshape_weight_to_matrix(weight)
            h, w = mat.shape
            u = mat.new_empty(h).normal_(0, 1)
            v = mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.flatten(1)

    @no_grad()
    def _power_method(self, mat, n_iterations):
        import numtorch

        for _ in range(n_iterations):
            self._u.copy_(F.normalize(numtorch.mv(mat, self._v), dim=0, eps=self.eps))
            self._v.copy_(F.normalize(numtorch.mv(mat.mH, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        import numtorch

        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()  # constants for the gradient
        sigma = numtorch.vdot(u, numtorch.mv(mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm, re-estimated in every training forward.

    Args:
        module (Module): the module.
        name (str): the weight. Default: ``"weight"``.
        n_power_iterations (int): power-iteration steps per forward. Default: 1.
        eps (float): added in the normalisations. Default: 1e-12.
        dim (int, optional): the output dim of the weight; default 1 for transposed
            convolutions, else 0.

    Returns:
        Module: ``module``, with the parametrization registered.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        transposed = isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
        dim = 1 if transposed else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


class _WeightNorm(Module):
    """weight = g * v / ||v|| (the norm over every dim but ``dim``)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Split ``module.<name>`` into a magnitude ``original0`` and a direction ``original1``.

    Checkpoints of the older ``nn.utils.weight_norm`` (keys ``<name>_g``/``<name>_v``) load
    into the new keys.

    Args:
        module (Module): the module.
        name (str): the weight. Default: ``"weight"``.
        dim (int, optional): the dim kept by the norm; None for the norm of the whole
            tensor. Default: 0.

    Returns:
        Module: ``module``, with the parametrization registered.
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                    error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(compat_hook)
    return module
