"""Named-tuple results of ops such as ``max(dim)`` (``values``, ``indices``), as torch's."""

from collections import namedtuple

__all__ = ["max", "min", "aminmax", "sort", "topk", "kthvalue", "median", "mode", "cummax",
           "cummin", "slogdet", "qr", "svd", "eigh", "eig", "lstsq", "triangular_solve",
           "geqrf", "linalg_slogdet", "linalg_eigh", "linalg_qr", "linalg_svd", "histogram"]


def _make(name, fields):
    base = namedtuple(name, fields)

    class Result(base):
        __slots__ = ()

        def __repr__(self):
            body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
            return f"torch.return_types.{name}(\n{body})"

    Result.__name__ = Result.__qualname__ = name
    Result.__module__ = __name__
    return Result


max = _make("max", ["values", "indices"])  # noqa: A001
min = _make("min", ["values", "indices"])  # noqa: A001
aminmax = _make("aminmax", ["min", "max"])
sort = _make("sort", ["values", "indices"])
topk = _make("topk", ["values", "indices"])
kthvalue = _make("kthvalue", ["values", "indices"])
median = _make("median", ["values", "indices"])
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
