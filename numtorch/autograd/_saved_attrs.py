"""Torch's saved-variable attributes (``grad_fn._saved_*``) of the graph nodes users inspect
most, by torch's node name.

Every numtorch node answers ``_saved_self``, ``_saved_other`` and ``_saved_result`` from what
its op saved (None when it saved nothing there). For the nodes listed here the attributes are
torch's: only the ones torch's node has (the others raise AttributeError and are left out of
``dir()``), with the extras torch keeps (``_saved_dim``, ``_saved_alpha``,
``_saved_self_sym_sizes``, ...) read from the recorded op's parameters and input metadata.
The generated node classes (``graph._named``) get these as properties, so nothing is paid while
recording.
"""

__all__ = ["properties"]

_BASE = ("_saved_self", "_saved_other", "_saved_result")


def _input(i):
    return lambda node: node._input_saved(i)


def _result(node):
    from .graph import Op

    return Op._saved_result.fget(node)


def _sizes(i):
    def get(node):
        meta = node._in_meta[i] if i < len(node._in_meta) else None
        return None if meta is None else tuple(int(s) for s in meta[0])
    return get


def _param(name, default=None, convert=None):
    def get(node):
        value = node.__dict__.get(name, default)
        return convert(value) if convert is not None and value is not None else value
    return get


def _dims(node):
    return tuple(node.__dict__.get("dims", ()))


_SELF_OTHER = {"_saved_self": _input(0), "_saved_other": _input(1)}
_RESULT = {"_saved_result": _result}
_SELF = {"_saved_self": _input(0)}
_ALPHA = {"_saved_alpha": _param("alpha", 1)}
_REDUCE_ALL = {"_saved_self_sym_sizes": _sizes(0)}
_REDUCE_DIM = {"_saved_dim": _dims, "_saved_keepdim": _param("keepdim", False),
               "_saved_self_sym_sizes": _sizes(0)}

TABLE = {
    "MulBackward0": _SELF_OTHER,
    "DivBackward0": _SELF_OTHER,
    "AddBackward0": _ALPHA,
    "SubBackward0": _ALPHA,
    "RsubBackward1": _ALPHA,
    "MmBackward0": {"_saved_self": _input(0), "_saved_mat2": _input(1),
                    "_saved_self_sym_sizes": _sizes(0), "_saved_mat2_sym_sizes": _sizes(1)},
    "BmmBackward0": {"_saved_self": _input(0), "_saved_mat2": _input(1)},
    "ReluBackward0": _RESULT,
    "SigmoidBackward0": _RESULT,
    "TanhBackward0": _RESULT,
    "ExpBackward0": _RESULT,
    "SqrtBackward0": _RESULT,
    "LogBackward0": _SELF,
    "AbsBackward0": _SELF,
    "SinBackward0": _SELF,
    "CosBackward0": _SELF,
    "GeluBackward0": {"_saved_self": _input(0),
                      "_saved_approximate": _param("approximate", "none")},
    "ClampBackward1": {"_saved_self": _input(0), "_saved_min": _param("min"),
                       "_saved_max": _param("max")},
    "PowBackward0": {"_saved_self": _input(0), "_saved_exponent": _param("exponent")},
    "SumBackward0": _REDUCE_ALL,
    "SumBackward1": _REDUCE_DIM,
    "MeanBackward0": _REDUCE_ALL,
    "MeanBackward1": _REDUCE_DIM,
    "ViewBackward0": {"_saved_self_sym_sizes": _sizes(0)},
    "ExpandBackward0": {"_saved_self_sym_sizes": _sizes(0)},
    "SoftmaxBackward0": {"_saved_result": _result, "_saved_dim": _param("dim")},
    "LogSoftmaxBackward0": {"_saved_result": _result, "_saved_dim": _param("dim")},
    "NegBackward0": {},
    "TBackward0": {},
    "CloneBackward0": {},
    "ToCopyBackward0": {},
}


def _absent(name, attr):
    def get(node):
        raise AttributeError(f"'{name}' object has no attribute '{attr}'")
    return property(get)


def properties(name):
    """The class attributes a generated node class named ``name`` gets (none for a node
    not listed)."""
    attrs = TABLE.get(name)
    if attrs is None:
        return {}
    ns = {attr: property(get) for attr, get in attrs.items()}
    hidden = {a for a in _BASE if a not in attrs}
    for attr in hidden:
        ns[attr] = _absent(name, attr)

    def __dir__(self):
        return [a for a in object.__dir__(self) if a not in hidden]

    ns["__dir__"] = __dir__
    return ns
