"""Distances against torch: cosine similarity, pairwise distance, pdist and their modules."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module, check_op, check_raises

DTYPES = ["float64", "float32"]
INF = float("inf")

CASES = {
    "cos_default": (lambda t, a, b: t.nn.functional.cosine_similarity(a, b),
                    [(3, 4), (3, 4)], {}),
    "cos_dim0_broadcast": (lambda t, a, b: t.nn.functional.cosine_similarity(a, b, dim=0),
                           [(3, 4), (4,)], {}),
    "cos_last_broadcast": (lambda t, a, b: t.nn.functional.cosine_similarity(a, b, -1, 0.1),
                           [(3, 1, 4), (5, 4)], {}),
    "cos_vectors": (lambda t, a, b: t.nn.functional.cosine_similarity(a, b, dim=0),
                    [(5,), (5,)], {}),
    # norms below eps: the value is clamped but the gradient flows as if it were not
    "cos_tiny_norms": (lambda t, a, b: t.nn.functional.cosine_similarity(a, b),
                       [(3, 4), (3, 4)], {"low": -1e-9, "high": 1e-9}),
    "cos_empty": (lambda t, a, b: t.nn.functional.cosine_similarity(a, b), [(0, 4), (0, 4)],
                  {}),
    "pd_default": (lambda t, a, b: t.nn.functional.pairwise_distance(a, b),
                   [(3, 4), (3, 4)], {}),
    "pd_p15_keepdim_broadcast": (lambda t, a, b: t.nn.functional.pairwise_distance(
        a, b, p=1.5, keepdim=True), [(3, 4), (4,)], {}),
    "pd_inf": (lambda t, a, b: t.nn.functional.pairwise_distance(a, b, p=INF),
               [(3, 4), (3, 4)], {}),
    "pd_negative_p": (lambda t, a, b: t.nn.functional.pairwise_distance(a, b, p=-1),
                      [(3, 4), (3, 4)], {}),
    "pd_one": (lambda t, a, b: t.nn.functional.pairwise_distance(a, b, p=1, eps=0.0),
               [(2, 3, 4), (2, 3, 4)], {}),
    "pd_vectors": (lambda t, a, b: t.nn.functional.pairwise_distance(a, b), [(4,), (4,)], {}),
    "pd_scalars": (lambda t, a, b: t.nn.functional.pairwise_distance(a, b), [(), ()], {}),
    # torch has no double backward for pdist
    "pdist": (lambda t, a: t.nn.functional.pdist(a), [(5, 3)], {"second_order": False}),
    "pdist_p1": (lambda t, a: t.nn.functional.pdist(a, p=1), [(5, 3)],
                 {"second_order": False}),
    "pdist_p3": (lambda t, a: t.nn.functional.pdist(a, p=3), [(4, 3)],
                 {"second_order": False}),
    "pdist_p_half": (lambda t, a: t.nn.functional.pdist(a, p=0.5), [(4, 3)],
                     {"second_order": False}),
    "pdist_p0": (lambda t, a: t.nn.functional.pdist(a, p=0), [(4, 3)],
                 {"second_order": False}),
    "pdist_inf": (lambda t, a: t.nn.functional.pdist(a, p=INF), [(4, 3)],
                  {"second_order": False}),
    "pdist_one_row": (lambda t, a: t.nn.functional.pdist(a), [(1, 3)],
                      {"second_order": False}),
    # torch crashes in the backward of an empty pdist; compare the forward
    "pdist_no_rows": (lambda t, a: t.nn.functional.pdist(a), [(0, 3)], {"grad": False}),
    "torch_pdist": (lambda t, a: t.nn.functional.pdist(a.t()), [(3, 4)],
                    {"second_order": False}),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_functional_matches_torch(name, dtype):
    fn, shapes, kw = CASES[name]
    check_op(fn, shapes, dtype=dtype, **kw)


def test_pdist_gradient_at_duplicate_rows_matches_torch():
    x = np.random.default_rng(0).standard_normal((4, 3))
    x[1] = x[0]
    check_op(lambda t, a: t.nn.functional.pdist(a), [x], second_order=False)


def test_pairwise_distance_of_integers_is_float():
    a = np.array([[1, 2, 3], [4, 5, 6]])
    b = np.array([[0, 2, 1], [4, 4, 4]])
    check_op(lambda t, a, b: t.nn.functional.pairwise_distance(a, b), [a, b], grad=False)


def test_cosine_similarity_promotes_mixed_floats():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3))
    b = rng.standard_normal((2, 3)).astype(np.float32)
    check_op(lambda t, a, b: t.nn.functional.cosine_similarity(a, b), [a, b], atol=1e-6,
             rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make", [
    lambda t: t.nn.CosineSimilarity(),
    lambda t: t.nn.CosineSimilarity(dim=0, eps=0.1),
    lambda t: t.nn.PairwiseDistance(),
    lambda t: t.nn.PairwiseDistance(p=1.0, eps=0.0, keepdim=True),
])
def test_modules_match_torch(make, dtype):
    check_module(make, [(3, 4), (3, 4)], dtype=dtype)


def test_module_attributes_and_reprs():
    for make in (lambda t: t.nn.CosineSimilarity(dim=2, eps=1e-3),
                 lambda t: t.nn.PairwiseDistance(p=3.0, eps=0.5, keepdim=True)):
        a, b = make(numtorch), make(torch)
        assert repr(a) == repr(b)
        for k in ("dim", "eps", "norm", "keepdim"):
            assert getattr(a, k, None) == getattr(b, k, None)
    from numtorch.nn.modules import distance

    assert distance.CosineSimilarity is numtorch.nn.CosineSimilarity
    assert distance.PairwiseDistance is numtorch.nn.PairwiseDistance


ERRORS = [
    (lambda t: t.nn.functional.cosine_similarity(t.randn(3, 4), t.randn(3, 5)),
     "The size of tensor a (4) must match the size of tensor b (5) at non-singleton "
     "dimension 1"),
    (lambda t: t.nn.functional.cosine_similarity(t.randn(3, 4), t.randn(3, 4), dim=2),
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda t: t.nn.functional.cosine_similarity(t.ones(3, 4, dtype=t.int32),
                                                 t.ones(3, 4, dtype=t.int32)),
     "expected common dtype to be floating point, yet common dtype is Int"),
    (lambda t: t.nn.functional.pairwise_distance(t.randn(2, 3, 4), t.randn(3, 5)),
     "must match the size of tensor b"),
    (lambda t: t.nn.functional.pdist(t.randn(5)), "pdist only supports 2D tensors, got: 1D"),
    (lambda t: t.nn.functional.pdist(t.randn(2, 5, 3)),
     "pdist only supports 2D tensors, got: 3D"),
    (lambda t: t.nn.functional.pdist(t.randn(5, 3), p=-1),
     "pdist only supports non-negative p values"),
    (lambda t: t.nn.functional.pdist(t.ones(5, 3, dtype=t.int64)),
     "pdist only supports floating-point dtypes"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_bad_input_raises_like_torch(case):
    fn, match = ERRORS[case]
    check_raises(fn, match=match)
