"""The 1.x ``torch.solve`` (kept as a shim; torch 2.13 removed it) returns a named tuple
``(solution, LU)`` as 1.x did, so 1.x code reading ``.solution`` runs."""

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


def test_solve_names_its_fields():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((4, 2))
    res = numtorch.solve(numtorch.from_numpy(b), numtorch.from_numpy(a))
    assert type(res).__name__ == "solve" and res.__match_args__ == ("solution", "LU")
    want = torch.linalg.solve(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    np.testing.assert_allclose(res.solution.numpy(), want, rtol=1e-12)
    assert res[0] is res.solution
    lu, _ = torch.linalg.lu_factor(torch.from_numpy(a))
    np.testing.assert_allclose(res.LU.numpy(), lu.numpy(), rtol=1e-12)
    assert repr(res).startswith("torch.return_types.solve(\nsolution=tensor(")
