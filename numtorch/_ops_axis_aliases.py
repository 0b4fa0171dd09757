"""NumPy spellings of keyword arguments: ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``.

Torch's argument parser accepts these aliases on its native functions and Tensor methods
(``x.sum(axis=0)``, ``torch.mean(x, axis=1, keepdims=True)``, ``torch.cat(ts, axis=0)``), but not
on the functions it writes in Python (``split``, ``unique``, ``norm``, ``F.softmax``). numtorch's
functions name only ``dim``/``keepdim``, so ``install()`` wraps the names torch accepts the
aliases on. The wrapper renames keywords only when a call passes keywords, so a positional
call costs one extra frame and nothing else.
"""

import functools

__all__ = ["install"]

# Names (as torch.<name> and Tensor.<name>) that take ``axis=`` for ``dim=``: probed on torch.
_DIM_NAMES = (
    "all", "amax", "amin", "aminmax", "any", "argmax", "argmin", "argsort", "cat", "chunk",
    "concat", "concatenate", "count_nonzero", "cummax", "cummin", "cumprod", "cumprod_",
    "cumsum", "cumsum_", "cumulative_trapezoid", "diff", "gather", "index_add", "index_add_",
    "index_copy", "index_copy_", "index_fill", "index_fill_", "index_select", "kthvalue",
    "log_softmax", "logcumsumexp", "logsumexp", "max", "mean", "median", "min", "mode",
    "nanmean", "nanmedian", "nanquantile", "nansum", "narrow", "prod", "quantile",
    "repeat_interleave", "scatter", "scatter_", "scatter_add", "scatter_add_", "select",
    "softmax", "sort", "squeeze", "squeeze_", "stack", "std", "std_mean", "sum",
    "take_along_dim", "topk", "trapezoid", "trapz", "unbind", "unsqueeze", "unsqueeze_", "var",
    "var_mean",
)


def _renamed(fn, kwargs):
    kwargs = dict(kwargs)
    for alias, name in (("axis", "dim"), ("keepdims", "keepdim")):
        if alias in kwargs:
            if name in kwargs:
                # torch, too, takes the alias only in place of the name, not beside it
                raise TypeError(f"{fn.__name__}() got an unexpected keyword argument '{alias}'")
            kwargs[name] = kwargs.pop(alias)
    return kwargs


def _with_aliases(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs and ("axis" in kwargs or "keepdims" in kwargs):
            kwargs = _renamed(fn, kwargs)
        try:
            return fn(*args, **kwargs)
        except TypeError as e:  # (an error path: torch's parser's text for sum's keywords)
            if fn.__name__ == "sum" and kwargs and "unexpected keyword argument" in str(e):
                from .ops.reduction import sum_call_error

                method = fn.__qualname__ != "sum"
                raise sum_call_error(method, args[1:] if method else args, kwargs) from None
            raise

    call._numpy_aliases = True
    return call


def install(namespace, tensor_class):
    """Wrap the aliased names of the module ``namespace`` and of ``tensor_class`` in place."""
    for name in _DIM_NAMES:
        fn = namespace.get(name)
        if callable(fn) and not getattr(fn, "_numpy_aliases", False):
            namespace[name] = _with_aliases(fn)
        for cls in tensor_class.__mro__:
            method = cls.__dict__.get(name)
            if method is None:
                continue
            if callable(method) and not getattr(method, "_numpy_aliases", False):
                setattr(cls, name, _with_aliases(method))
            break
