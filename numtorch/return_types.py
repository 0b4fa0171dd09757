"""Named-tuple results of ops such as ``max(dim)`` (``values``, ``indices``), as torch's.

Each type is a tuple subclass: it unpacks, indexes and compares like a tuple, names its
fields, prints as ``torch.return_types.max(values=..., indices=...)`` (one field a line) and
pickles. Like torch's, it is built from one sequence, ``max([values, indices])``; the
namedtuple forms ``max(values, indices)`` and ``max(values=..., indices=...)`` work too.
"""

from operator import itemgetter

__all__ = ["max", "min", "aminmax", "sort", "topk", "kthvalue", "median", "mode", "cummax",
           "nanmedian", "cummin", "slogdet", "qr", "svd", "eigh", "eig", "lstsq", "triangular_solve",
           "geqrf", "linalg_slogdet", "linalg_eigh", "linalg_qr", "linalg_svd", "histogram"]


class _ReturnType(tuple):
    """Base of the result types: a tuple with named fields."""

    __slots__ = ()
    _fields = ()
    n_fields = n_sequence_fields = 0

    def __new__(cls, *args, **kwargs):
        n = len(cls._fields)
        if len(args) == 1 and not kwargs and _is_sequence(args[0]):
            items = tuple(args[0])
        else:
            items = args + tuple(kwargs.pop(f) for f in cls._fields[len(args):] if f in kwargs)
            if kwargs:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument "
                                f"'{next(iter(kwargs))}'")
        if len(items) != n:
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {n}-sequence "
                            f"({len(items)}-sequence given)")
        return super().__new__(cls, items)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self):
        return type(self), (tuple(self),)

    def _asdict(self):
        """The fields as a dict, in order."""
        return dict(zip(self._fields, self))


def _is_sequence(x):
    """A plain sequence of results (not a Tensor, which is iterable too)."""
    return isinstance(x, (tuple, list))


def _make(name, fields):
    attrs = {"__slots__": (), "_fields": tuple(fields), "n_fields": len(fields),
             "n_sequence_fields": len(fields), "__module__": __name__,
             "__doc__": f"Result of ``{name}``: the fields {', '.join(fields)}."}
    for i, f in enumerate(fields):
        attrs[f] = property(itemgetter(i), doc=f"Field {i} ({f}).")
    return type(name, (_ReturnType,), attrs)


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
_OUT_TWINS = {cls: _make(name + "_out", cls._fields) for name, cls in list(globals().items())
              if isinstance(cls, type) and issubclass(cls, _ReturnType) and cls is not _ReturnType}
globals().update({twin.__name__: twin for twin in _OUT_TWINS.values()})


def out_variant(cls):
    """The ``<name>_out`` twin of return type ``cls`` (``cls`` itself for a plain tuple)."""
    twin = _OUT_TWINS.get(cls)
    if twin is None:
        if not issubclass(cls, _ReturnType) or cls.__name__.endswith("_out"):
            return cls
        # a type made elsewhere (linalg_ldl_factor): its twin, registered here
        twin = _OUT_TWINS[cls] = _make(cls.__name__ + "_out", cls._fields)
        globals()[twin.__name__] = twin
    return twin
