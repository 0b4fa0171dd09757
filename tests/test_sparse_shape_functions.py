"""torch.<shape function>(sparse COO tensor): the functional forms run the sparse kernels the
methods run (they fell into the dense shape ops and raised), with torch's errors."""

import warnings

import pytest
import torch

import numtorch

CASES = [
    ("unsqueeze0", lambda L, s: L.unsqueeze(s, 0)),
    ("unsqueeze-1", lambda L, s: L.unsqueeze(s, -1)),
    ("select", lambda L, s: L.select(s, 0, 1)),
    ("select_last", lambda L, s: L.select(s, -1, 2)),
    ("permute", lambda L, s: L.permute(s, (1, 0))),
    ("transpose", lambda L, s: L.transpose(s, 0, 1)),
    ("swapaxes", lambda L, s: L.swapaxes(s, 1, 0)),
    ("t", lambda L, s: L.t(s)),
    ("method_t", lambda L, s: s.t()),
    ("select_out_of_range", lambda L, s: L.select(s, 3, 0)),
    ("unsqueeze_out_of_range", lambda L, s: L.unsqueeze(s, 5)),
    ("permute_wrong_length", lambda L, s: L.permute(s, (0,))),
    ("permute_duplicate", lambda L, s: s.permute(0, 0, *range(2, s.dim()))),
]


def _sparse(L, which):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if which == "2d":
            i = L.tensor([[0, 1, 1], [2, 0, 2]])
            return L.sparse_coo_tensor(i, L.tensor([3., 4., 5.]), (2, 3))
        if which == "1d":
            return L.tensor([1., 0., 2.]).to_sparse()
        if which == "3d":
            return L.arange(24.).reshape(2, 3, 4).to_sparse()
        return L.tensor([[1., 0.], [0., 2.], [3., 0.]]).to_sparse(1)  # one dense dim


def _run(L, f, which):
    try:
        r = f(L, _sparse(L, which))
    except Exception as e:  # noqa: BLE001 - the class and text are compared
        return type(e).__name__, str(e)
    return str(r.layout), tuple(r.shape), r.to_dense().tolist()


@pytest.mark.parametrize("which", ["2d", "1d", "3d", "hybrid"])
@pytest.mark.parametrize("name,f", CASES, ids=[c[0] for c in CASES])
def test_sparse_shape_function_as_torch(name, f, which):
    assert _run(numtorch, f, which) == _run(torch, f, which)


def test_sparse_t_of_1d_is_a_new_tensor():
    for L in (numtorch, torch):
        s = _sparse(L, "1d")
        assert s.t() is not s
