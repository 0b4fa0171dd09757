"""Spectral normalisation: ``weight = weight_orig / sigma(weight_orig)``.

The largest singular value ``sigma`` is estimated by power iteration with the vectors kept
in the buffers ``<name>_u`` and ``<name>_v``. The iteration runs only in training mode and
never records a graph; gradients flow through ``sigma = u . (W v)`` with ``u``, ``v`` fixed.
"""

from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import UninitializedParameter, Parameter

__all__ = [
    "SpectralNorm",
    "SpectralNormStateDictHook",
    "remove_spectral_norm",
    "spectral_norm",
]


class SpectralNorm:
    """The forward pre-hook that rebuilds ``module.<name>`` from ``<name>_orig``."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``weight`` as a matrix with ``dim`` as rows and every other dim flattened."""
        mat = weight
        if self.dim != 0:
            others = [d for d in range(mat.dim()) if d != self.dim]
            mat = mat.permute(self.dim, *others)
        return mat.reshape(mat.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        """The normalised weight; with ``do_power_iteration`` also refines ``u`` and ``v``."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    # the buffers are updated in place, so the state dict sees the new vectors
                    v.copy_(F.normalize(mat.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mat.mv(v), dim=0, eps=self.eps))
                # clones, so that autograd saves these values rather than the buffers that
                # the next power iteration overwrites
                u = u.clone()
                v = v.clone()
        sigma = u.dot(mat.mv(v))
        return weight / sigma

    def remove(self, module):
        """Replace the reparametrisation by the current normalised weight as a parameter."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Reparametrise ``module.<name>`` and register the hook; returns the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        with no_grad():
            mat = fn.reshape_weight_to_matrix(weight)
            h, w = mat.shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # until the first forward, module.<name> is the raw weight, as in torch
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        return fn


class SpectralNormStateDictHook:
    """The state-dict hook of :func:`spectral_norm`: records ``<name>.version`` (1) under
    ``spectral_norm`` in the module's state-dict metadata, as torch does (its loader reads the
    version to tell current checkpoints from pre-1.0 ones)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = 1


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its largest singular value, estimated by power iteration.

    Args:
        module: the module to change (in place; it is also returned).
        name: the parameter's name.
        n_power_iterations: power-iteration steps per training-mode forward.
        eps: added to norms when normalising the power-iteration vectors.
        dim: the dim taken as the matrix rows (1 for transposed convolutions, else 0).

    Example:
        >>> import numtorch as torch
        >>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(20, 40))
        >>> sorted(k for k, _ in m.named_buffers())
        ['weight_u', 'weight_v']
    """
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) \
            else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo :func:`spectral_norm`, keeping the current normalised weight as a parameter.

    Raises:
        ValueError: when ``module.<name>`` is not spectrally normalised.
    """
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            for j, h in list(module._state_dict_hooks.items()):
                if isinstance(h, SpectralNormStateDictHook) and h.fn.name == name:
                    del module._state_dict_hooks[j]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")


