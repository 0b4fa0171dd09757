"""Wrappers that let ``vmap`` batch the functions which compute on a tensor's values on the
host (``quantile``, ``bincount``, ``histc``, ``mode``, ``unique``...).

Under ``vmap`` torch runs an op it has no batching rule for once per sample, and raises for
ops whose result size depends on the values. ``numtorch.func._fallback`` does the same for
these functions; the wrappers here send a call there only while a vmap runs (one list test
otherwise), so that the function objects users hold (``from torch import quantile``,
``vmap(torch.mode)``) batch too. ``install`` runs once, when numtorch is imported.
"""

import functools

from .autograd._func_transforms import KINDS

__all__ = ["NAMES", "install"]

NAMES = ("quantile", "nanquantile", "bincount", "histc", "histogram", "mode", "isin",
         "repeat_interleave", "argwhere", "histogramdd", "unique", "unique_consecutive",
         "nonzero", "where", "masked_select", "as_strided", "as_strided_", "as_strided_scatter",
         "lu", "lu_solve", "lu_unpack", "hash_tensor", "index_put", "index_put_", "zeros_like",
         "ones_like", "full_like", "empty_like", "rrelu", "rrelu_", "equal", "allclose",
         "isclose", "is_nonzero")


def _wrap(name, fn, home):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if "vmap" not in KINDS:
            return fn(*args, **kwargs)
        from .func._fallback import call

        return call(name, fn, args, kwargs)

    wrapper._vmap_fallback = True
    # found where it is installed (pickle looks functions up by module and name)
    wrapper.__module__ = home
    wrapper.__qualname__ = name.rsplit(".", 1)[-1]
    return wrapper


# in torch.nn.functional
FUNCTIONAL_NAMES = ("batch_norm", "grid_sample", "embedding", "one_hot", "ctc_loss", "rrelu",
                    "rrelu_")


# in torch.linalg (named "linalg.<name>" in numtorch.func._fallback)
LINALG_NAMES = ("lu_factor", "lu_factor_ex", "lu", "lu_solve", "matrix_rank", "ldl_factor",
                "ldl_factor_ex", "ldl_solve", "lstsq")


def install(*namespaces):
    """Wrap the functions in ``NAMES`` found in each namespace (a module or a dict), and
    ``FUNCTIONAL_NAMES`` in ``numtorch.nn.functional``."""
    from . import linalg
    from .nn import functional

    for module, names, prefix in ((functional, FUNCTIONAL_NAMES, ""),
                                  (linalg, LINALG_NAMES, "linalg.")):
        for name in names:
            fn = getattr(module, name)
            if not getattr(fn, "_vmap_fallback", False):
                setattr(module, name, _wrap(prefix + name, fn, module.__name__))
    for ns in namespaces:
        get = ns.get if isinstance(ns, dict) else lambda n, _ns=ns: getattr(_ns, n, None)
        for name in NAMES:
            fn = get(name)
            if fn is None or getattr(fn, "_vmap_fallback", False):
                continue
            home = ns["__name__"] if isinstance(ns, dict) else ns.__name__
            wrapped = _wrap(name, fn, home)
            if isinstance(ns, dict):
                ns[name] = wrapped
            else:
                setattr(ns, name, wrapped)
