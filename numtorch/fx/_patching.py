"""Let numtorch's functions record graph nodes when they are given proxies.

torch functions see an ``fx.Proxy`` through ``__torch_function__``; numtorch's functions are
plain Python, so instead the public callables of the torch namespaces (``torch``,
``torch.nn.functional``, ``torch.linalg``, ``torch.special``, ``torch.fft``) are replaced by
thin wrappers that record a ``call_function`` node when a proxy is among their arguments and
otherwise call the original. The wrappers are installed for the duration of a trace (and for
names a traced function imported directly into its globals); when proxies are made by hand
outside a trace (``Proxy(node)``), they are installed for the rest of the process.

Arguments are recorded as torch records them: torch's Python-level ``nn.functional``
functions pass their tensor inputs positionally and every other parameter, defaults filled
in, by keyword (``F.relu(x)`` records ``(x,), {'inplace': False}``); ``_F_POSITIONAL`` says
how many parameters each passes positionally (observed behaviour of torch 2.13).
"""

import functools
import inspect

__all__ = ["Patcher", "ensure_active", "is_active", "original_of", "proxy_wrapper"]

_F_POSITIONAL = {
    "adaptive_avg_pool2d": 2, "adaptive_avg_pool3d": 2, "adaptive_max_pool1d": 2,
    "adaptive_max_pool2d": 2, "adaptive_max_pool3d": 2,
    "adaptive_max_pool1d_with_indices": 2, "adaptive_max_pool2d_with_indices": 2,
    "adaptive_max_pool3d_with_indices": 2, "affine_grid": 2, "alpha_dropout": 1,
    "batch_norm": 3, "binary_cross_entropy": 2, "binary_cross_entropy_with_logits": 2,
    "celu": 1, "cosine_embedding_loss": 3, "cross_entropy": 2, "ctc_loss": 4, "dropout": 1,
    "dropout1d": 1, "dropout2d": 1, "dropout3d": 1, "elu": 1, "embedding": 2,
    "embedding_bag": 2, "feature_alpha_dropout": 1, "fold": 3, "fractional_max_pool2d": 2,
    "fractional_max_pool3d": 2, "gaussian_nll_loss": 3, "glu": 1, "grid_sample": 2,
    "group_norm": 2, "gumbel_softmax": 1, "hardsigmoid": 1, "hardswish": 1, "hardtanh": 1,
    "hinge_embedding_loss": 2, "huber_loss": 2, "instance_norm": 1, "interpolate": 1,
    "kl_div": 2, "l1_loss": 2, "layer_norm": 2, "leaky_relu": 1, "local_response_norm": 2,
    "log_softmax": 1, "lp_pool1d": 3, "lp_pool2d": 3, "lp_pool3d": 3,
    "margin_ranking_loss": 3, "max_pool1d": 2, "max_pool2d": 2, "max_pool3d": 2,
    "max_pool1d_with_indices": 2, "max_pool2d_with_indices": 2, "max_pool3d_with_indices": 2,
    "max_unpool1d": 3, "max_unpool2d": 3, "max_unpool3d": 3, "mish": 1, "mse_loss": 2,
    "multi_margin_loss": 2, "multilabel_margin_loss": 2, "multilabel_soft_margin_loss": 2,
    "nll_loss": 2, "normalize": 1, "pad": 2, "poisson_nll_loss": 2, "relu": 1, "relu6": 1,
    "rms_norm": 2, "rrelu": 1, "selu": 1, "silu": 1, "smooth_l1_loss": 2,
    "soft_margin_loss": 2, "softmax": 1, "softmin": 1, "softsign": 1, "tanhshrink": 1,
    "threshold": 3, "triplet_margin_loss": 3, "triplet_margin_with_distance_loss": 3,
    "unfold": 2,
}
# torch's F.sigmoid / F.tanh call the tensor's method
_F_AS_METHOD = {"sigmoid", "tanh"}
# predicates torch does not dispatch on: they answer for the proxy object itself
_NOT_RECORDED = {"is_tensor", "is_storage", "typename"}


def _find_tracer(args, kwargs):
    from .proxy import Proxy

    stack = list(args)
    stack.extend(kwargs.values())
    while stack:
        a = stack.pop()
        if isinstance(a, Proxy):
            return a.tracer
        if isinstance(a, (list, tuple)):
            stack.extend(a)
        elif isinstance(a, dict):
            stack.extend(a.values())
    return None


@functools.cache
def _signature(fn):
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _torch_style_args(fn, npos, args, kwargs):
    sig = _signature(fn)
    if sig is None:
        return args, kwargs
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return args, kwargs
    bound.apply_defaults()
    values = list(bound.arguments.items())
    positional = []
    named = {}
    for i, (name, value) in enumerate(values):
        kind = sig.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            positional.extend(value)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            named.update(value)
        elif i < npos and kind is not inspect.Parameter.KEYWORD_ONLY:
            positional.append(value)
        else:
            named[name] = value
    return tuple(positional), named


def original_of(fn):
    """The function a proxy wrapper stands for (``fn`` itself if it is not a wrapper)."""
    return getattr(fn, "__fx_original__", fn)


def _same(fn):
    return fn


class _ProxyWrapper:
    """Stands in a torch namespace for a numtorch function while proxies are about: calls it,
    or records it when a proxy is among the arguments.

    It compares equal to (and hashes as) the function itself, so ``node.target ==
    torch.sigmoid`` and ``{torch.sin: ...}[node.target]`` hold while it is installed; nodes
    always record the function itself.
    """

    def __init__(self, orig, impl):
        functools.update_wrapper(self, orig)
        self.__fx_original__ = orig
        self._impl = impl

    def __call__(self, *args, **kwargs):
        return self._impl(*args, **kwargs)

    def __eq__(self, other):
        return other is self or original_of(other) is self.__fx_original__

    def __hash__(self):
        return hash(self.__fx_original__)

    def __repr__(self):
        return repr(self.__fx_original__)

    def __reduce__(self):
        return (_same, (self.__fx_original__,))


def proxy_wrapper(orig, f_name=None, wrapped_leaf=False, private=False):
    """A callable that calls ``orig``, or records it when a proxy is among the arguments.

    Args:
        orig: the function.
        f_name (str, optional): its ``torch.nn.functional`` name (arguments are then recorded
            as torch records them).
        wrapped_leaf (bool): ``orig`` was registered with ``fx.wrap`` (generated code
            re-registers it).
        private (bool): the wrapper only exists during one trace, in a module's globals.
    """
    npos = _F_POSITIONAL.get(f_name) if f_name is not None else None
    as_method = f_name in _F_AS_METHOD

    def record(*args, **kwargs):
        tracer = _find_tracer(args, kwargs)
        if tracer is None:
            return orig(*args, **kwargs)
        if as_method and args:
            return tracer.create_proxy("call_method", orig.__name__, args[:1], {})
        if npos is not None:
            args, kwargs = _torch_style_args(orig, npos, args, kwargs)
        if wrapped_leaf:
            from . import _codegen

            _codegen.wrapped_functions[id(orig)] = orig
        return tracer.create_proxy("call_function", orig, args, kwargs)

    if private or wrapped_leaf:
        wrapper = functools.wraps(orig)(record)
        wrapper.__fx_original__ = orig
        return wrapper
    return _ProxyWrapper(orig, record)


class Patcher:
    """Replaces attributes and dict entries, and puts every one back on ``restore``."""

    def __init__(self):
        self._undo = []

    def set_attr(self, obj, name, value):
        self._undo.append((setattr, obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    def set_class_attr(self, cls, name, value):
        """Shadow ``cls.name`` (perhaps inherited) with ``value`` until ``restore``."""
        if name in cls.__dict__:
            self._undo.append((setattr, cls, name, cls.__dict__[name]))
        else:
            self._undo.append((lambda c, n, _v: delattr(c, n), cls, name, None))
        setattr(cls, name, value)

    def set_item(self, d, name, value):
        if name in d:
            self._undo.append((dict.__setitem__, d, name, d[name]))
        else:
            self._undo.append((lambda d_, k, _v: d_.pop(k, None), d, name, None))
        d[name] = value

    def restore(self):
        while self._undo:
            fn, obj, name, value = self._undo.pop()
            fn(obj, name, value)


_wrappers = {}  # (namespace name, attribute) -> wrapper, made once
_by_original = {}  # id(original) -> wrapper (for names imported into a module's globals)
_active_depth = 0
_namespace_patcher = None
_sticky = False


def _namespaces():
    import importlib

    import numtorch
    import numtorch.nn.functional as F

    spaces = [("F", F), ("torch", numtorch)]
    for sub in ("linalg", "special", "fft"):
        spaces.append((sub, importlib.import_module("numtorch." + sub)))
    return spaces


_aliases = {}  # (torch name) -> alias function


def _alias(orig, key, torch_name):
    """A function of its own for ``orig`` exported under another name (``torch.arctan``), so
    nodes calling it are named and printed as torch names them."""
    alias = _aliases.get(torch_name)
    if alias is None:
        @functools.wraps(orig)
        def alias(*args, **kwargs):
            return orig(*args, **kwargs)

        alias.__name__ = alias.__qualname__ = key
        alias.__wrapped__ = orig
        # pickles find the alias where it lives: numtorch.arctan
        space = torch_name.rsplit(".", 1)[0]
        alias.__module__ = "numtorch" + space[len("torch"):]
        from ._names import register_torch_name

        register_torch_name(alias, torch_name)
        _aliases[torch_name] = alias
    return alias


def install_aliases():
    """Give each alias (``torch.arctan`` of ``torch.atan``) a function of its own in its
    namespace, as torch has, so graphs built by hand with it print its name."""
    import numtorch
    import numtorch.nn.functional as F

    from ._names import _public_entries

    # torch and torch.nn.functional hold the aliases (the lazily imported torch.fft and
    # torch.special stay unimported); the canonical name is the one a function was defined as
    entries = _public_entries(subs=())
    canonical = {id(v): name for name, key, v in entries if getattr(v, "__name__", None) == key}
    spaces = {"torch.nn.functional": F, "torch": numtorch}
    for torch_name, key, value in entries:
        if getattr(value, "__name__", None) == key or id(value) not in canonical:
            continue
        space = spaces.get(torch_name.rsplit(".", 1)[0])
        if space is not None and getattr(space, key, None) is value:
            setattr(space, key, _alias(value, key, torch_name))


def _namespace_wrappers():
    if not _wrappers:
        from ._names import _public_entries, torch_name_of

        spaces = dict(_namespaces())
        labels = {"torch.nn.functional": "F", "torch._C._nn": "F", "torch": "torch",
                  "torch.functional": "torch", "torch.random": "torch",
                  "torch.serialization": "torch", "torch._tensor_str": "torch"}
        for torch_name, key, value in _public_entries():
            prefix = torch_name.rsplit(".", 1)[0]
            label = labels.get(prefix, prefix.split(".")[-1].lstrip("_"))
            if key in _NOT_RECORDED or label not in spaces:
                continue
            if getattr(spaces[label], key, None) is not value:
                label = "F" if getattr(spaces["F"], key, None) is value else "torch"
            target = value
            if getattr(value, "__name__", None) != key and torch_name_of(value) != torch_name:
                target = _alias(value, key, torch_name)
            wrapper = _by_original.get(id(target))
            if wrapper is None or label == "F":
                wrapper = proxy_wrapper(target, key if label == "F" else None)
                _by_original.setdefault(id(target), wrapper)
                _by_original.setdefault(id(value), wrapper)
            _wrappers[(label, key)] = (spaces[label], wrapper)
        from ..ops import profiler as ops_profiler

        for key in ("_record_function_enter", "_record_function_enter_new",
                    "_record_function_exit"):  # torch.ops.profiler, which fx programs emit
            value = getattr(ops_profiler, key)
            wrapper = _by_original.setdefault(id(value), proxy_wrapper(value))
            _wrappers[("ops.profiler", key)] = (ops_profiler, wrapper)
    return _wrappers


def activate():
    """Install the namespace wrappers (nested calls are counted)."""
    global _active_depth, _namespace_patcher
    _active_depth += 1
    if _active_depth == 1 and not _sticky:
        _namespace_patcher = Patcher()
        for (label, key), (space, wrapper) in _namespace_wrappers().items():
            _namespace_patcher.set_attr(space, key, wrapper)


def deactivate():
    global _active_depth, _namespace_patcher
    _active_depth -= 1
    if _active_depth == 0 and not _sticky and _namespace_patcher is not None:
        _namespace_patcher.restore()
        _namespace_patcher = None


def is_active():
    return _active_depth > 0 or _sticky


def ensure_active():
    """Keep the wrappers installed from now on (proxies were made outside a trace)."""
    global _sticky
    if _sticky or _active_depth > 0:
        return
    activate()
    _sticky = True


def reset():
    """Remove sticky wrappers (used by tests to leave the process as they found it)."""
    global _sticky, _active_depth
    if _sticky:
        _sticky = False
        _active_depth = 1
        deactivate()


def patch_globals(patcher, fn_globals):
    """Wrap the numtorch functions a traced function's module imported by name."""
    _namespace_wrappers()
    for key, value in list(fn_globals.items()):
        wrapper = _by_original.get(id(value)) if callable(value) else None
        if wrapper is not None and original_of(wrapper) is value:
            patcher.set_item(fn_globals, key, wrapper)


_method_wrappers = {}  # method name -> wrapper


def _method_wrapper(name, method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        tracer = _find_tracer(args, kwargs)
        if tracer is None:
            return method(self, *args, **kwargs)
        return tracer.create_proxy("call_method", name, (self,) + args, kwargs)

    return wrapper


def patch_tensor_methods(patcher):
    """While tracing, a tensor method given a proxy argument (``self.pe.narrow(1, 0, n)``,
    ``buf[0, i]``) records a ``call_method`` node on the tensor, as torch does."""
    import numtorch

    if not _method_wrappers:
        for cls in reversed(numtorch.Tensor.__mro__[:-1]):
            for name, value in vars(cls).items():
                if (name.startswith("_") and name != "__getitem__") \
                        or not inspect.isfunction(value):
                    continue
                _method_wrappers[name] = _method_wrapper(name, value)
    for name, wrapper in _method_wrappers.items():
        patcher.set_class_attr(numtorch.Tensor, name, wrapper)
