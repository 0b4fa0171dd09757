"""Errors that came from NumPy in NumPy's words now come in torch's class and wording:
allocations too large, data torch cannot build a tensor from, resize_ to a negative size, and
LAPACK failures inside functions built on the SVD."""

import pytest
import torch

import numtorch
from tests.oracle import same

CASES = [
    ("zeros-2**40", lambda t: t.zeros(2 ** 40)),
    ("ones-2**40-float64", lambda t: t.ones(2 ** 40, dtype=t.float64)),
    ("zeros-bytes-overflow", lambda t: t.zeros(2 ** 62)),
    ("empty-2**32-squared", lambda t: t.empty(2 ** 32, 2 ** 32)),
    ("ones-product-overflow", lambda t: t.ones(2 ** 31, 2 ** 31, 2)),
    ("full-2**40", lambda t: t.full((2 ** 40,), 1.)),
    ("randn-2**40", lambda t: t.randn(2 ** 40)),
    ("rand-2**40", lambda t: t.rand(2 ** 40)),
    ("eye-2**21", lambda t: t.eye(2 ** 21)),
    ("new-zeros-2**40", lambda t: t.ones(3).new_zeros(2 ** 40)),
    ("op-result-too-large", lambda t: t.ones(1, 2 ** 20) + t.ones(2 ** 21, 1)),
    ("resize-negative", lambda t: t.ones(3).resize_(-1)),
    ("resize-negative-2d", lambda t: t.ones(3).resize_(2, -1)),
    ("resize-2**40", lambda t: t.ones(3).resize_(2 ** 40)),
    ("tensor-of-strings", lambda t: t.tensor(["a", "b"])),
    ("tensor-number-then-string", lambda t: t.tensor([1, "a"])),
    ("tensor-with-none", lambda t: t.tensor([1, None])),
    ("tensor-of-none", lambda t: t.tensor([None])),
    ("tensor-of-object", lambda t: t.tensor([1, object()]).shape),
    ("tensor-of-long-tensors", lambda t: t.tensor([t.ones(2), 1])),
    ("tensor-beyond-int64", lambda t: t.tensor([1, 2 ** 64])),
    ("pinv-nan", lambda t: t.linalg.pinv(t.full((2, 2), float("nan")))),
    ("pinverse-nan", lambda t: t.pinverse(t.full((2, 2), float("nan")))),
    ("nuclear-norm-nan", lambda t: t.norm(t.full((2, 2), float("nan")), p="nuc")),
    ("matrix-rank-nan", lambda t: t.linalg.matrix_rank(t.full((2, 2), float("nan")))),
    ("slogdet-nan", lambda t: tuple(t.linalg.slogdet(t.full((2, 2), float("nan"))))),
    ("histc-nan-data", lambda t: t.histc(t.tensor([float("nan"), 1.]))),
    ("histc-inf-data", lambda t: t.histc(t.tensor([float("inf"), 1.]))),
    ("histc-nan-max", lambda t: t.histc(t.tensor([1.]), bins=2, min=0, max=float("nan"))),
    ("histc-crossed", lambda t: t.histc(t.tensor([1., 2.]), bins=2, min=3, max=1)),
    ("histc-nan-counted-out", lambda t: t.histc(t.tensor([1., float("nan")]), 2, 0, 3)),
    ("histogram-nan", lambda t: t.histogram(t.tensor([float("nan"), 1.]), 2)),
    ("histogram-inf-range", lambda t: t.histogram(t.tensor([1.]), 2, range=(0., float("inf")))),
    ("histogram-crossed", lambda t: t.histogram(t.tensor([1., 2.]), 2, range=(3., 1.))),
]


@pytest.mark.parametrize("fn", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_errors_match_torch(fn):
    same(fn, warns=True)


def test_linalg_failures_are_runtime_errors_named_like_torchs():
    with pytest.raises(numtorch.linalg.LinAlgError) as e:
        numtorch.linalg.pinv(numtorch.full((2, 2), float("nan")))
    assert isinstance(e.value, RuntimeError)
    assert issubclass(torch.linalg.LinAlgError, RuntimeError)
