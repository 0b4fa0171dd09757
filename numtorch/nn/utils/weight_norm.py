"""Weight normalisation: ``weight = g * v / ||v||`` with the norm over all dims but ``dim``."""

import warnings

from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _norm_except_dim(v, dim):
    """2-norm of ``v`` over every dim except ``dim``, kept with size 1 (``dim=-1``: all).

    ``dim=-1`` means "no dim kept" (a 0-d norm of the whole tensor), as in torch's
    ``norm_except_dim``; other negative values count from the end.
    """
    if dim == -1:
        return v.norm(2)
    d = dim % v.dim()
    others = [i for i in range(v.dim()) if i != d]
    if not others:
        return v.abs()
    return v.norm(2, dim=others, keepdim=True)


def _lane_norms(rows):
    """2-norms of the rows of a float32 (M, N) array in torch's fused weight-norm order: the
    squares summed in 8 lanes (the row's tail into the first lanes), then the lanes halved
    pairwise (i + 4, i + 2, i + 1); a row shorter than 8 summed left to right."""
    import numpy as np

    sq = rows * rows
    n = sq.shape[1]
    if n < 8:
        acc = sq[:, 0].copy()
        for j in range(1, n):
            acc += sq[:, j]
        return np.sqrt(acc)
    main = n - n % 8
    acc = sq[:, :8].copy()
    for j in range(8, main, 8):  # chunks of 8 values, in order
        acc += sq[:, j:j + 8]
    if main < n:
        acc[:, :n - main] += sq[:, main:]
    acc = acc[:, :4] + acc[:, 4:]
    acc = acc[:, :2] + acc[:, 2:]
    return np.sqrt(acc[:, 0] + acc[:, 1])


def _weight_norm(v, g, dim=0):
    """torch._weight_norm: ``v * (g / norm_except_dim(v, 2, dim))``; dim 0 or the last dim
    run torch's fused kernel (same dtypes required, floating only), whose float32 norm over
    the rows (dim 0) is summed in its own order (``_lane_norms``)."""
    import numpy as np

    import numtorch

    if dim == -1:
        return v * (g / v.norm(2))
    nd = v.dim()
    if nd == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                         f"{nd - 1}], but got {dim})")
    d = dim % nd
    if d not in (0, nd - 1):
        return v * (g / _norm_except_dim(v, d))
    from ..._dtype import _TYPE_DISPLAY

    def disp(t):
        return _TYPE_DISPLAY.get(t.dtype.name, t.dtype.name)

    if not v.dtype.is_floating_point:
        raise NotImplementedError(f'"weight_norm_kernel" not implemented for \'{disp(v)}\'')
    if g.dtype != v.dtype:
        raise RuntimeError(f"expected scalar type {disp(v)} but found {disp(g)}")
    n = _norm_except_dim(v, d)
    if d == 0 and nd > 1 and v.dtype == numtorch.float32 and v.device.type == "cpu":
        rows = v.detach().reshape(v.shape[0], -1).numpy()
        fast = numtorch.from_numpy(_lane_norms(rows).astype(np.float32)).reshape(n.shape)
        n = fast + (n - n.detach()) if n.requires_grad else fast  # torch's bits, n's gradient
    return v * (g / n)


class WeightNorm:
    """The forward pre-hook that rebuilds ``module.<name>`` from ``<name>_g``/``<name>_v``."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        """``g * v / norm_except_dim(v)`` from the module's parameters (differentiable)."""
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        """Reparametrise ``module.<name>`` and register the hook; returns the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        """Fold ``g`` and ``v`` back into one plain parameter ``module.<name>``."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Split ``module.<name>`` into a magnitude ``<name>_g`` and a direction ``<name>_v``.

    Deprecated in torch 2 in favour of the parametrisation API, with a FutureWarning.

    Args:
        module: the module to change (in place; it is also returned).
        name: the parameter's name.
        dim: the dim whose slices get their own magnitude; ``None`` (or -1) for one
            magnitude for the whole tensor.

    Example:
        >>> import warnings, numtorch as torch
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     m = torch.nn.utils.weight_norm(torch.nn.Linear(3, 5))
        >>> tuple(m.weight_g.shape), tuple(m.weight_v.shape)
        ((5, 1), (5, 3))
    """
    # torch's warning points into its own weight_norm.py (not the caller): under the default
    # filters a program sees it once, whatever the number of call sites
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=1)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo :func:`weight_norm`: ``module.<name>`` is one parameter again.

    Raises:
        ValueError: when ``module.<name>`` is not weight-normalised.
    """
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
