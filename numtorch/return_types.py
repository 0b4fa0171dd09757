"""Named-tuple results of ops such as ``max(dim)`` (``values``, ``indices``), as torch's.

Each type is a tuple subclass: it unpacks, indexes and compares like a tuple, names its
fields, prints as ``torch.return_types.max(values=..., indices=...)`` (one field a line) and
pickles. Like torch's (C struct sequences, not namedtuples), it is built from one sequence,
``max([values, indices])``, and has no ``_fields``.
"""

import builtins
from operator import itemgetter

from ._class_repr import TorchNamed

__all__ = ["max", "min", "aminmax", "sort", "topk", "kthvalue", "median", "mode", "cummax",
           "nanmedian", "cummin", "slogdet", "qr", "svd", "eigh", "eig", "lstsq", "triangular_solve",
           "geqrf", "linalg_slogdet", "linalg_eigh", "linalg_qr", "linalg_svd", "histogram"]


_NO_SEQUENCE = object()


def _new(cls, sequence=_NO_SEQUENCE, dict=_NO_SEQUENCE, **kwargs):  # (torch's keyword names)
    if sequence is _NO_SEQUENCE:
        raise TypeError("structseq() missing required argument 'sequence' (pos 1)")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for structseq()")
    try:
        items = tuple(sequence)
    except TypeError:
        raise TypeError("constructor requires a sequence") from None
    if dict is not _NO_SEQUENCE and not isinstance(dict, builtins.dict):  # (None too)
        raise TypeError(f"torch.return_types.{cls.__name__}() takes a dict as second arg, if any")
    n = cls.n_fields
    if len(items) != n:
        raise TypeError(f"torch.return_types.{cls.__name__}() takes a {n}-sequence "
                        f"({len(items)}-sequence given)")
    return tuple.__new__(cls, items)


def _repr(self):
    body = ",\n".join(f"{f}={v!r}" for f, v in zip(self.__match_args__, self))
    return f"torch.return_types.{type(self).__name__}(\n{body})"


def _reduce(self):
    return type(self), (tuple(self), {})


def _setattr(self, name, value):
    if name in type(self).__match_args__:
        raise AttributeError("readonly attribute")
    raise AttributeError(f"'torch.return_types.{type(self).__name__}' object has no attribute "
                         f"'{name}'")


def _delattr(self, name):
    _setattr(self, name, None)


@classmethod
def _no_subclass(cls, **kwargs):
    raise TypeError(f"type 'torch.return_types.{cls.__mro__[1].__name__}' is not an acceptable "
                    "base type")


def _make(name, fields):
    """A result type named ``name``: like torch's (a C struct sequence), a direct tuple
    subclass with read-only fields, ``n_fields``/``n_sequence_fields``/``n_unnamed_fields``
    and ``__match_args__``, built from one sequence (and an optional dict); no ``_fields``, so
    collate and pytree treat it as torch does."""
    attrs = {"__slots__": (), "__match_args__": tuple(fields), "n_fields": len(fields),
             "n_sequence_fields": len(fields), "n_unnamed_fields": 0, "__module__": __name__,
             "__doc__": None, "__new__": _new, "__repr__": _repr, "__str__": _repr,
             "__reduce__": _reduce, "__setattr__": _setattr, "__delattr__": _delattr,
             "__init_subclass__": _no_subclass}
    for i, f in enumerate(fields):
        attrs[f] = property(itemgetter(i), doc="")
    return TorchNamed(name, (tuple,), attrs)


def is_return_type(cls):
    """Whether ``cls`` is one of the result types made here."""
    return isinstance(cls, type) and cls.__dict__.get("__reduce__") is _reduce


max = _make("max", ["values", "indices"])  # noqa: A001
min = _make("min", ["values", "indices"])  # noqa: A001
aminmax = _make("aminmax", ["min", "max"])
sort = _make("sort", ["values", "indices"])
topk = _make("topk", ["values", "indices"])
kthvalue = _make("kthvalue", ["values", "indices"])
median = _make("median", ["values", "indices"])
nanmedian = _make("nanmedian", ["values", "indices"])
mode = _make("mode", ["values", "indices"])
cummax = _make("cummax", ["values", "indices"])
cummin = _make("cummin", ["values", "indices"])
slogdet = _make("slogdet", ["sign", "logabsdet"])
qr = _make("qr", ["Q", "R"])
svd = _make("svd", ["U", "S", "V"])
eigh = _make("eigh", ["eigenvalues", "eigenvectors"])
eig = _make("eig", ["eigenvalues", "eigenvectors"])
lstsq = _make("lstsq", ["solution", "residuals", "rank", "singular_values"])
triangular_solve = _make("triangular_solve", ["solution", "cloned_coefficient"])
geqrf = _make("geqrf", ["a", "tau"])
linalg_slogdet = _make("linalg_slogdet", ["sign", "logabsdet"])
linalg_eigh = _make("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_qr = _make("linalg_qr", ["Q", "R"])
linalg_svd = _make("linalg_svd", ["U", "S", "Vh"])
histogram = _make("histogram", ["hist", "bin_edges"])
frexp = _make("frexp", ["mantissa", "exponent"])

# results of numtorch.linalg, lu_unpack and the 0.x symeig
linalg_eig = _make("linalg_eig", ["eigenvalues", "eigenvectors"])
linalg_lstsq = _make("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
linalg_lu = _make("linalg_lu", ["P", "L", "U"])
linalg_lu_factor = _make("linalg_lu_factor", ["LU", "pivots"])
linalg_lu_factor_ex = _make("linalg_lu_factor_ex", ["LU", "pivots", "info"])
linalg_cholesky_ex = _make("linalg_cholesky_ex", ["L", "info"])
linalg_inv_ex = _make("linalg_inv_ex", ["inverse", "info"])
linalg_solve_ex = _make("linalg_solve_ex", ["result", "info"])
lu_unpack = _make("lu_unpack", ["P", "L", "U"])
solve = _make("solve", ["solution", "LU"])  # the 1.x torch.solve's result
_lu_with_info = _make("_lu_with_info", ["LU", "pivots", "info"])
symeig = _make("symeig", ["eigenvalues", "eigenvectors"])
__all__ += ["linalg_eig", "linalg_lstsq", "linalg_lu", "linalg_lu_factor", "linalg_lu_factor_ex",
            "linalg_cholesky_ex", "linalg_inv_ex", "linalg_solve_ex", "lu_unpack", "symeig"]


# with ``out=`` torch returns a twin type named ``<name>_out`` (``torch.return_types.max_out``);
# made for every type above, so they pickle by reference as the plain ones do
_OUT_TWINS = {cls: _make(name + "_out", cls.__match_args__)
              for name, cls in list(globals().items()) if is_return_type(cls)}
globals().update({twin.__name__: twin for twin in _OUT_TWINS.values()})


def out_variant(cls):
    """The ``<name>_out`` twin of return type ``cls`` (``cls`` itself for a plain tuple)."""
    twin = _OUT_TWINS.get(cls)
    if twin is None:
        if not is_return_type(cls) or cls.__name__.endswith("_out"):
            return cls
        # a type made elsewhere (linalg_ldl_factor): its twin, registered here
        twin = _OUT_TWINS[cls] = _make(cls.__name__ + "_out", cls.__match_args__)
        globals()[twin.__name__] = twin
    return twin
